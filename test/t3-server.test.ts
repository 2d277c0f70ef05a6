// A run on a remote machine through the real server (docs/desktops-and-tiers.md#a-run-on-a-machine):
// an admin registers a machine over REST (a real OpenSSH server in a network
// namespace of its own, test/helpers/sshd.ts), confirms its host key and tests
// it; a run moves there with the admin's consent from the Inbox's API; its
// terminal streams from the machine to the "/terminal" namespace with a secret
// redacted; a person takes over, types at the machine's shell and hands back,
// and the agent goes on there. Nothing of the run is left on the machine.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { io, type Socket } from "socket.io-client";
import { plainText } from "@/server/compute";
import { createApiToken, createUser } from "@/server/identity";
import type { ControlReply, DataMessage, SnapshotMessage, StatusMessage } from "@/server/realtime";
import { defaultTierSettings, saveTierSettings } from "@/server/tiers";
import { createTestDb, type TestDb } from "./helpers/db";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";
import { startTestSshd, type TestSshd } from "./helpers/sshd";
import { waitFor } from "./helpers/wait";

const SECRET = "t3-srv-Vb81Qz6Lp0Xk-s3cr3t";
let t: TestDb;
let server: ServerProcess;
let sshd: TestSshd;
let home: string;
const tokens = { admin: "", operator: "" };
const OPERATOR = "Ada Operator";

type Turn = { text?: string; toolCalls?: Array<{ tool: string; args: Record<string, unknown> }> };

async function api<T = any>(token: string, method: string, route: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${server.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as T };
}

/** A watcher of the run's terminal that records what it gets. */
class Watcher {
  readonly socket: Socket;
  snapshots: SnapshotMessage[] = [];
  data: DataMessage[] = [];
  statuses: StatusMessage[] = [];

  constructor(
    token: string,
    private readonly runId: string,
  ) {
    this.socket = io(`${server.url}/terminal`, {
      path: "/socket.io",
      transports: ["websocket"],
      auth: { token },
      reconnection: false,
      forceNew: true,
    });
    this.socket.on("snapshot", (m: SnapshotMessage) => m.runId === runId && this.snapshots.push(m));
    this.socket.on("status", (m: StatusMessage) => m.runId === runId && this.statuses.push(m));
    this.socket.on("data", (m: DataMessage) => {
      if (m.runId !== runId) return;
      this.data.push(m);
      this.socket.emit("ack", { runId, seq: m.seq });
    });
  }

  attach() {
    return new Promise<{ ok: boolean }>((resolve) => this.socket.emit("attach", { runId: this.runId }, resolve));
  }

  call(event: "takeover" | "handback") {
    return new Promise<ControlReply>((resolve) => this.socket.emit(event, { runId: this.runId }, resolve));
  }

  type(data: string) {
    return new Promise<ControlReply>((resolve) => this.socket.emit("input", { runId: this.runId, data }, resolve));
  }

  /** Everything seen: the snapshots' screens and the live output, as plain text. */
  text() {
    return plainText(this.snapshots.map((s) => s.data).join("") + this.data.map((d) => d.data).join(""));
  }
}

beforeAll(async () => {
  [t, sshd] = await Promise.all([createTestDb(), startTestSshd()]);
  const admin = await createUser(t.db, {
    email: "admin@rein.test",
    name: "Admin",
    password: "password-123",
    role: "admin",
    teams: ["alpha"],
  });
  const op = await createUser(t.db, {
    email: "ada@rein.test",
    name: OPERATOR,
    password: "password-123",
    role: "operator",
    teams: ["alpha"],
  });
  tokens.admin = (await createApiToken(t.db, { userId: admin, name: "admin" })).token;
  tokens.operator = (await createApiToken(t.db, { userId: op, name: "op" })).token;
  const settings = defaultTierSettings({ desktop: 0 });
  settings.T3.enabled = true;
  await saveTierSettings(t.db, settings, { userId: admin, name: "Admin" });
  await t.db.$disconnect();
  home = execFileSync("getent", ["passwd", sshd.user]).toString().split(":")[5];
  const s = spawnServer({
    REIN_DATA_DIR: t.dir,
    PORT: String(await freePort()),
    REIN_SCRIPTED_DELAY_MS: "1",
    REIN_POD_POOL_SIZE: "0",
  });
  await s.ready;
  server = s;
}, 90_000);

afterAll(async () => {
  await server?.kill("SIGTERM");
  await sshd?.cleanup();
  await t?.cleanup();
});

describe("a run on a machine, through the server", () => {
  it("an admin registers the machine; the run moves there with consent; its terminal streams from the machine, redacted; a person takes over and hands back", async () => {
    // The machine: registered, its key installed, its host key confirmed, tested.
    const reg = await api(tokens.admin, "POST", "/api/v1/machines", {
      name: "build-box",
      host: sshd.host,
      user: sshd.user,
      concurrency: 2,
    });
    expect(reg.status, JSON.stringify(reg.body)).toBe(201);
    const machineId = reg.body.id as string;
    sshd.authorize(reg.body.publicKey);
    const contact = await api(tokens.admin, "POST", `/api/v1/machines/${machineId}/contact`);
    expect(contact.body.fingerprint).toBe(sshd.fingerprint());
    expect((await api(tokens.admin, "POST", `/api/v1/machines/${machineId}/confirm-key`, { fingerprint: sshd.fingerprint() })).status).toBe(
      200,
    );
    const tested = await api(tokens.admin, "POST", `/api/v1/machines/${machineId}/test`);
    expect(tested.body.ok, JSON.stringify(tested.body)).toBe(true);
    const secret = await api(tokens.admin, "POST", "/api/v1/secrets", { name: "DEPLOY_TOKEN", value: SECRET });
    expect(secret.status, JSON.stringify(secret.body)).toBeLessThan(300);
    const scope = await api(tokens.admin, "PUT", "/api/v1/secrets/DEPLOY_TOKEN/scope", {
      agents: ["*"],
      teams: ["*"],
      callerCommands: true,
    });
    expect(scope.status, JSON.stringify(scope.body)).toBe(200);

    const turns: Turn[] = [
      { toolCalls: [{ tool: "upgrade_tier", args: { tier: "T3", reason: "The build needs the big machine" } }] },
      { toolCalls: [{ tool: "shell", args: { command: "echo token=$DEPLOY_TOKEN; sleep 3" } }] },
      { toolCalls: [{ tool: "shell", args: { command: "cat by-person.txt; echo agent-is-back" } }] },
      { text: "Built." },
    ];
    const launched = await api(tokens.operator, "POST", "/api/v1/runs", {
      goal: "Build on the big machine",
      agent: "demo-browser",
      scenario: { turns },
      complexity: 0.8,
      secrets: ["DEPLOY_TOKEN"],
    });
    expect(launched.status, JSON.stringify(launched.body)).toBe(201);
    const runId = launched.body.id as string;

    // The admin consents from the Inbox's API.
    const request = await waitFor(
      async () => {
        const list = await api(tokens.admin, "GET", "/api/v1/human-requests?limit=50");
        return (list.body.requests as Array<{ id: string; runId: string; title: string }>).find((r) => r.runId === runId) ?? null;
      },
      "the consent question",
      { limitMs: 30_000 },
    );
    expect(request.title).toBe("Let demo-browser move to T3 (remote machine) on build-box?");
    expect((await api(tokens.admin, "POST", `/api/v1/human-requests/${request.id}/decision`, { decision: "approve" })).status).toBe(200);

    // The terminal streams from the machine.
    const ada = new Watcher(tokens.operator, runId);
    await waitFor(async () => (await ada.attach()).ok || null, "the run's terminal", { limitMs: 30_000, intervalMs: 200 });
    await waitFor(() => /sleep 3/.test(ada.text()), "the command on the machine", { limitMs: 30_000, intervalMs: 50 });

    // A person takes over; once the step ends the run pauses and they type at the machine's shell.
    const took = await ada.call("takeover");
    expect(took.ok, JSON.stringify(took)).toBe(true);
    await waitFor(async () => (await api(tokens.operator, "GET", `/api/v1/runs/${runId}`)).body.status === "paused", "the run to pause", {
      limitMs: 30_000,
    });
    await waitFor(() => ada.statuses.some((s) => s.ready === true), "control to be ready", { intervalMs: 20 });
    const typed = await ada.type("echo typed-on-$(id -un) > by-person.txt; cat by-person.txt\r");
    expect(typed.ok, JSON.stringify(typed)).toBe(true);
    await waitFor(
      () => {
        if (/^typed-on-\S+$/m.test(ada.text())) return true;
        throw new Error(`the screen ends with: ${ada.text().slice(-600)}`);
      },
      "the person's command on the machine",
      { intervalMs: 20 },
    );
    const who = /^typed-on-(\S+)$/m.exec(ada.text())![1];
    // Hand back once the machine's shell is at its prompt again (the output can come a moment before it).
    await waitFor(
      async () => {
        const back = await ada.call("handback");
        if (back.ok) return true;
        throw new Error(back.error);
      },
      "the terminal to be handed back",
      { intervalMs: 50 },
    );

    const done = await waitFor(
      async () => {
        const status = (await api(tokens.operator, "GET", `/api/v1/runs/${runId}`)).body.status as string;
        return ["succeeded", "failed", "canceled"].includes(status) ? status : null;
      },
      "the run to finish",
      { limitMs: 60_000 },
    );
    const events = async () => {
      const { body } = await api(tokens.operator, "GET", `/api/v1/runs/${runId}/events?limit=1000`);
      return (body.events ?? body.items ?? body) as Array<{ type: string; payload: any }>;
    };
    expect(done, JSON.stringify((await events()).slice(-8).map((e) => [e.type, e.payload]))).toBe("succeeded");
    // The run leaves its machine once it has ended.
    const log = await waitFor(async () => {
      const all = await events();
      return all.filter((e) => e.type === "tier.changed").length >= 2 ? all : null;
    }, "the run to leave the machine");
    await waitFor(() => /^agent-is-back$/m.test(ada.text()), "the agent's next command on the machine", { intervalMs: 20 });

    const shells = log.filter((e) => e.type === "tool.result" && e.payload.tool === "shell").map((e) => e.payload);
    expect(shells[0].output.output).toContain("token=[secret:DEPLOY_TOKEN]");
    // What the person wrote on the machine came back, and the agent read it there.
    expect(shells[1].output.output).toContain(`typed-on-${who}`);
    expect(fs.readFileSync(path.join(t.dir, "workspaces", runId, "by-person.txt"), "utf8")).toBe(`typed-on-${who}\n`);
    expect(log.filter((e) => e.type === "terminal.input").map((e) => e.payload.text)).toEqual([
      "echo typed-on-$(id -un) > by-person.txt; cat by-person.txt",
    ]);
    expect(log.filter((e) => e.type === "terminal.control").map((e) => [e.payload.action, e.payload.byName])).toEqual([
      ["takeover", OPERATOR],
      ["handback", OPERATOR],
    ]);
    const changes = log.filter((e) => e.type === "tier.changed").map((e) => e.payload);
    expect(changes.map((c) => [c.from, c.to, c.machineName])).toEqual([
      ["T1", "T3", "build-box"],
      ["T3", "T1", "build-box"],
    ]);
    // Never the secret's value: not in the watcher's stream, not in the log.
    expect(ada.text()).not.toContain(SECRET);
    expect(JSON.stringify(log)).not.toContain(SECRET);
    // Nothing of the run is left on the machine.
    await waitFor(() => !fs.existsSync(path.join(home, "rein-runs", runId)), "the run's folder on the machine to go");
    ada.socket.close();
  }, 120_000);
});
