// npm run bench:channels — what the outbound channels cost (issue 19), each
// figure against a peer measured in the same run:
// (a) an event committed by Rein's run store → its webhook delivered to a
//     local receiver (outbox, dispatcher, delivery row, signature, attempt
//     log), against a signed POST of the same body straight to the receiver;
// (b) deliveries per second sustained with 100 endpoints (every event goes to
//     all of them), against the same number of signed POSTs sent directly
//     with the same concurrency;
// (c) a Slack click (a signed POST to the actions endpoint) → the waiting
//     run running again, against the same decision through REST v1.
// Prints figures; asserts nothing.
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import {
  ChannelDispatcher,
  Webhooks,
  createRestHandler,
  createSlackActionsHandler,
  saveSlackSettings,
  webhookHeaders,
} from "@/server/channels";
import { openNativeSqlite, type Db } from "@/server/db";
import { HitlBroker, HumanGate, connectHitl, memoryKeyRing, newKeyRecord } from "@/server/hitl";
import { createApiToken, createUser, loadActor } from "@/server/identity";
import { SqliteRunStore, createKernel, createRun, type Kernel, type RunEventRecord } from "@/server/kernel";
import { PolicyGate } from "@/server/policy";
import { memoryKeyring, putSecret } from "@/server/secrets";
import { testServices } from "@/test/helpers/services";
import { migratedDb, summary } from "./bench-stats";

const LATENCY_N = Number(process.env.BENCH_N) || 300;
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS) || 100;
const EVENTS = Number(process.env.BENCH_EVENTS) || 50;
const RUNS = Number(process.env.BENCH_RUNS) || 20;
const WARMUP = 10;
const CONCURRENCY = 16;
const SILENT = { info() {}, error: (m: string, e?: unknown) => console.error(m, e) };
const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

function line(label: string, samples: number[]) {
  const s = summary(samples);
  console.log(
    `  ${label.padEnd(52)} p50 ${round(s.p50).toString().padStart(8)} ms   p99 ${round(s.p99).toString().padStart(8)} ms   (n=${s.n})`,
  );
  return s;
}

/** A receiver that answers 200 at once and calls back with each body's data.seq (or -1). */
async function receiver(onBody: (seq: number, path: string) => void) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok");
      let seq = -1;
      try {
        seq = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { data?: { seq?: number } }).data?.seq ?? -1;
      } catch {
        /* a body that is not JSON counts as -1 */
      }
      onBody(seq, req.url ?? "/");
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    agent,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function post(url: string, headers: Record<string, string>, body: string, agent?: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", headers: { ...headers, "content-length": Buffer.byteLength(body) }, agent }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function webhookBench(dir: string) {
  const url = `file:${path.join(dir, "webhooks.db")}`;
  const db = await migratedDb(url);
  const native = openNativeSqlite(url);
  const admin = (await loadActor(db, await createUser(db, { email: "admin@bench.local", password: "bench-password", role: "admin" })))!;
  const webhooks = new Webhooks({ db, keyring: memoryKeyring(), log: SILENT });
  const dispatcher = new ChannelDispatcher({ db, webhooks, log: SILENT });
  // As the server wires it: every write nudges the dispatcher.
  const store = new SqliteRunStore(native, () => dispatcher.kick());
  dispatcher.start();
  await webhooks.setAllowHosts(admin, ["127.0.0.1"]);
  const waiters = new Map<string, () => void>();
  let received = 0;
  const rx = await receiver((seq, p) => {
    received++;
    waiters.get(`${p}#${seq}`)?.();
  });

  // (a) latency, one endpoint.
  console.log("\n(a) event committed → webhook delivered to a local receiver (one endpoint)");
  const { endpoint, secret } = await webhooks.create(admin, { url: `${rx.url}/one`, eventTypes: ["*"] });
  const run = await db.run.create({
    data: { goal: "bench", agentName: "demo-coder", agentVersion: 1, createdById: admin.userId, model: "scripted" },
  });
  const rein: number[] = [];
  for (let i = 0; i < LATENCY_N + WARMUP; i++) {
    const seq = i + 1;
    const arrived = new Promise<void>((resolve) => waiters.set(`/one#${seq}`, resolve));
    const t0 = performance.now();
    await store.appendEvents(run.id, [{ type: "run.state", payload: { from: "running", to: "running", reason: `tick ${i}` } }]);
    await arrived;
    if (i >= WARMUP) rein.push(performance.now() - t0);
  }
  await dispatcher.idle();
  const direct: number[] = [];
  for (let i = 0; i < LATENCY_N + WARMUP; i++) {
    const seq = 100_000 + i;
    const body = JSON.stringify({
      type: "run.state_changed",
      timestamp: new Date().toISOString(),
      data: { runId: run.id, seq, from: "running", to: "running" },
    });
    const arrived = new Promise<void>((resolve) => waiters.set(`/one#${seq}`, resolve));
    const t0 = performance.now();
    const id = `msg_${crypto.randomBytes(16).toString("base64url")}`;
    await post(
      `${rx.url}/one`,
      { "content-type": "application/json", ...webhookHeaders([secret], id, Math.floor(Date.now() / 1000), body) },
      body,
    );
    await arrived;
    if (i >= WARMUP) direct.push(performance.now() - t0);
  }
  const a = line("through Rein (commit, outbox, delivery, attempt log)", rein);
  const b = line("peer: the same signed POST sent directly", direct);
  console.log(`  Rein adds ${round(a.p50 - b.p50)} ms at p50 (${round(a.p50 / b.p50, 1)}×)`);
  await webhooks.update(admin, endpoint.id, { enabled: false });

  // (b) throughput, 100 endpoints.
  console.log(`\n(b) deliveries per second with ${ENDPOINTS} endpoints, ${EVENTS} events (${ENDPOINTS * EVENTS} deliveries)`);
  for (let i = 0; i < ENDPOINTS; i++) await webhooks.create(admin, { url: `${rx.url}/e${i}`, eventTypes: ["run.state_changed"] });
  const total = ENDPOINTS * EVENTS;
  received = 0;
  let done!: () => void;
  let finished = new Promise<void>((r) => (done = r));
  const poll = setInterval(() => received >= total && done(), 2);
  let t0 = performance.now();
  for (let i = 0; i < EVENTS; i++)
    await store.appendEvents(run.id, [{ type: "run.state", payload: { from: "running", to: "running", reason: `burst ${i}` } }]);
  await finished;
  const reinSeconds = (performance.now() - t0) / 1000;
  await dispatcher.idle();
  const pending = await db.webhookDelivery.count({ where: { state: { not: "succeeded" }, endpoint: { disabledAt: null } } });

  received = 0;
  finished = new Promise<void>((r) => (done = r));
  const bodies = Array.from({ length: total }, (_, i) => ({
    path: `/e${i % ENDPOINTS}`,
    body: JSON.stringify({
      type: "run.state_changed",
      timestamp: new Date().toISOString(),
      data: { runId: run.id, seq: i, from: "running", to: "running" },
    }),
  }));
  t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      const agent = new http.Agent({ keepAlive: false });
      for (let k = next++; k < total; k = next++) {
        const { path: p, body } = bodies[k];
        await post(
          `${rx.url}${p}`,
          { "content-type": "application/json", ...webhookHeaders([secret], `msg_${k}`, Math.floor(Date.now() / 1000), body) },
          body,
          agent,
        );
      }
    }),
  );
  await finished;
  const directSeconds = (performance.now() - t0) / 1000;
  clearInterval(poll);
  console.log(`  through Rein: ${Math.round(total / reinSeconds)} deliveries/s (${round(reinSeconds, 2)} s; ${pending} not delivered)`);
  console.log(
    `  peer: signed POSTs sent directly, ${CONCURRENCY} at a time: ${Math.round(total / directSeconds)} deliveries/s (${round(directSeconds, 2)} s)`,
  );

  await dispatcher.stop();
  await rx.close();
  native.close();
  await db.$disconnect();
}

async function slackBench(dir: string) {
  const url = `file:${path.join(dir, "slack.db")}`;
  const db: Db = await migratedDb(url);
  const keyring = memoryKeyring();
  const policy = new PolicyGate(db);
  const gate = new HumanGate({ db, policy });
  const kernel: Kernel = await createKernel({
    db,
    databaseUrl: url,
    dataDir: path.join(dir, "slack-data"),
    workers: 1,
    scriptedDelayMs: 0,
    log: SILENT,
    gate,
    keyring,
  });
  const broker = new HitlBroker({
    db,
    runs: kernel.store,
    enqueue: (id) => kernel.enqueue(id),
    validateArgs: (t, a) => kernel.deps.registry.validate(t, a),
    log: SILENT,
  });
  connectHitl(kernel, broker, SILENT);
  const operator = (await loadActor(db, await createUser(db, { email: "op@bench.local", password: "bench-password", role: "operator" })))!;
  const adminId = await createUser(db, { email: "admin@bench.local", password: "bench-password", role: "admin" });
  const admin = (await loadActor(db, adminId))!;
  const approverId = await createUser(db, {
    email: "approver@bench.local",
    name: "Approver",
    password: "bench-password",
    role: "approver",
  });
  const token = (await createApiToken(db, { userId: approverId, name: "bench" })).token;
  const signingSecret = crypto.randomBytes(16).toString("hex");
  await putSecret(db, keyring, { name: "SLACK_BOT_TOKEN", value: "xoxb-bench", actor: adminId });
  await putSecret(db, keyring, { name: "SLACK_SIGNING_SECRET", value: signingSecret, actor: adminId });
  await saveSlackSettings(db, admin, { enabled: true, defaultChannels: {} });
  await db.slackUser.create({ data: { slackUserId: "U0BENCH", userId: approverId, email: "approver@bench.local" } });
  // Slack's Web API is not reached: the clicker is mapped, and an approval sends no ephemeral refusal.
  const slack = createSlackActionsHandler({ db, keyring, broker, apiUrl: "http://127.0.0.1:9/api/", log: SILENT });
  const hitl = { broker, links: { db, keys: memoryKeyRing({ version: 1, current: newKeyRecord(new Date()) }) } };
  // REST decides through the broker; any other service it reached would fail loudly.
  const rest = createRestHandler(testServices({ db }, { kernel, hitl }), { authSecret: "bench-secret-bench-secret-bench-secret" });
  const server = http.createServer(
    (req, res) => void (req.url?.startsWith("/api/channels/slack/actions") ? slack(req, res) : rest(req, res)),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const running = (runId: string) =>
    new Promise<number>((resolve) => {
      const off = kernel.bus.onAny((id, events: RunEventRecord[]) => {
        if (id === runId && events.some((e) => e.type === "run.state" && (e.payload as { to: string }).to === "running")) {
          off();
          resolve(performance.now());
        }
      });
    });
  const waitingRun = async (i: number) => {
    const waiting = new Promise<string>((resolve) => {
      const off = kernel.bus.onAny((runId, events: RunEventRecord[]) => {
        if (events.some((e) => e.type === "run.state" && (e.payload as { to: string }).to === "waiting_human")) {
          off();
          resolve(runId);
        }
      });
    });
    await createRun(kernel, { goal: `Deploy ${i}`, agent: "demo-deploy" }, operator);
    const runId = await waiting;
    await kernel.pool.whenIdle();
    return { runId, request: await db.humanRequest.findFirstOrThrow({ where: { runId, state: "PENDING" } }) };
  };

  console.log("\n(c) a decision → the waiting demo-deploy run running again");
  const clicks: number[] = [];
  const restDecisions: number[] = [];
  for (let i = 0; i < RUNS + 2; i++) {
    {
      const { runId, request } = await waitingRun(i);
      const body = `payload=${encodeURIComponent(JSON.stringify({ type: "block_actions", user: { id: "U0BENCH" }, channel: { id: "C0BENCH" }, container: { channel_id: "C0BENCH", message_ts: "1.1" }, actions: [{ action_id: "rein:approve", value: request.id }] }))}`;
      const ts = Math.floor(Date.now() / 1000);
      const signature = `v0=${crypto.createHmac("sha256", signingSecret).update(`v0:${ts}:${body}`).digest("hex")}`;
      const resumed = running(runId);
      const t0 = performance.now();
      const status = await post(
        `${base}/api/channels/slack/actions`,
        { "content-type": "application/x-www-form-urlencoded", "x-slack-request-timestamp": String(ts), "x-slack-signature": signature },
        body,
      );
      if (status !== 200) throw new Error(`the click was refused (${status})`);
      const at = await resumed;
      if (i >= 2) clicks.push(at - t0);
      await kernel.pool.whenIdle();
    }
    {
      const { runId, request } = await waitingRun(i);
      const resumed = running(runId);
      const t0 = performance.now();
      const status = await post(
        `${base}/api/v1/human-requests/${request.id}/decision`,
        { "content-type": "application/json", authorization: `Bearer ${token}` },
        JSON.stringify({ decision: "approve" }),
      );
      if (status !== 200) throw new Error(`the REST decision was refused (${status})`);
      const at = await resumed;
      if (i >= 2) restDecisions.push(at - t0);
      await kernel.pool.whenIdle();
    }
  }
  await slack.settled();
  const s = line("a signed Slack click", clicks);
  const r = line("peer: the same approval through REST v1", restDecisions);
  console.log(`  Slack adds ${round(s.p50 - r.p50)} ms at p50`);
  server.closeAllConnections();
  server.close();
  await kernel.pool.stop();
  kernel.close();
  await db.$disconnect();
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-channels-"));
  console.log(`bench:channels on Node ${process.version}, ${os.cpus().length} CPUs`);
  try {
    await webhookBench(dir);
    await slackBench(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
