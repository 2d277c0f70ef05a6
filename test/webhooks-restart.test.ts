// An event committed by a process that dies before sending it is delivered
// after the restart, once (issue 19): the outbox row went in with the event,
// and the next server hands it out. The receiver is written from the spec.
import { spawn } from "node:child_process";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createApiToken, createUser } from "@/server/identity";
import { createTestDb, type TestDb } from "./helpers/db";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";
import { startWebhookReceiver, type WebhookReceiver } from "./helpers/webhook-receiver";
import { waitFor } from "./helpers/wait";

let t: TestDb;
let receiver: WebhookReceiver;
let servers: ServerProcess[] = [];
let token = "";
let adminId = "";

beforeEach(async () => {
  t = await createTestDb();
  adminId = await createUser(t.db, { email: "ada@rein.test", name: "Ada", password: "password-123", role: "admin" });
  token = (await createApiToken(t.db, { userId: adminId, name: "setup" })).token;
  receiver = await startWebhookReceiver();
});

afterEach(async () => {
  await Promise.all(servers.map((s) => s.kill()));
  servers = [];
  await receiver.close();
  await t.cleanup();
});

async function start(): Promise<ServerProcess> {
  const s = spawnServer({ REIN_DATA_DIR: t.dir, PORT: String(await freePort()), REIN_POD_POOL_SIZE: "0", REIN_WORKERS: "1" });
  servers.push(s);
  await s.ready;
  return s;
}

async function api<T>(s: ServerProcess, method: string, p: string, body?: unknown): Promise<T> {
  const res = await fetch(s.url + p, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
  return json as T;
}

function commitAndDie(runId: string): Promise<NodeJS.Signals | number | null> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join("test", "helpers", "commit-and-die.ts"), t.url, runId], {
    cwd: path.resolve(__dirname, ".."),
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) =>
    child.on("exit", (code, signal) => (code && code !== 0 ? reject(new Error(err)) : resolve(signal ?? code))),
  );
}

it("an event committed by a process SIGKILLed before sending is delivered after the restart, exactly once", async () => {
  let s = await start();
  await api(s, "PUT", "/api/v1/webhooks/allowed-hosts", { hosts: [new URL(receiver.url).host] });
  const { secret } = await api<{ secret: string }>(s, "POST", "/api/v1/webhooks", { url: receiver.url, eventTypes: ["run.state_changed"] });
  receiver.useSecret(secret);
  await s.kill("SIGKILL");

  const run = await t.db.run.create({
    data: { goal: "Nothing", agentName: "demo-coder", agentVersion: 1, createdById: adminId, model: "scripted" },
  });
  expect(await commitAndDie(run.id)).toBe("SIGKILL");
  const [message] = await t.db.outboxMessage.findMany({ where: { runId: run.id } });
  expect(message).toMatchObject({ type: "run.state_changed", dispatchedAt: null });
  expect(receiver.received).toHaveLength(0);

  s = await start();
  await waitFor(() => receiver.received.length >= 1, "the delivery after the restart");
  expect(receiver.received).toHaveLength(1);
  expect(receiver.received[0]).toMatchObject({ id: message.id, verified: true });
  expect(JSON.parse(receiver.received[0].body)).toMatchObject({ type: "run.state_changed", data: { runId: run.id, to: "canceled" } });

  // Another restart sends nothing again.
  await s.kill("SIGTERM");
  s = await start();
  await new Promise((r) => setTimeout(r, 2_000));
  expect(receiver.received).toHaveLength(1);
  const { deliveries } = await api<{ deliveries: Array<{ state: string; attempts: number }> }>(
    s,
    "GET",
    `/api/v1/webhooks/${(await t.db.webhookEndpoint.findFirstOrThrow()).id}/deliveries`,
  );
  expect(deliveries).toEqual([expect.objectContaining({ state: "succeeded", attempts: 1 })]);
});
