// npm run bench:scale — several machines (docs/several-machines.md) with real
// processes on one PostgreSQL schema and Redis, each figure against a baseline
// measured in the same run:
// (1) runs completed per minute with 1, 2 and 4 worker processes, the model
//     IO-bound (a fixed pause per streamed word, no shell), as a ratio to 1;
// (2) a REST launch → the run's queued→running event (p50/p99), across the
//     queue against one process on SQLite;
// (3) SIGKILL of a worker holding runs → each run's run.resumed on another
//     worker (p50/p99), with a replacement worker started after each kill;
// (4) keystroke echo and terminal throughput of a taken-over run watched on
//     a second web process, against one process on SQLite.
// Prints figures; asserts nothing. Any failure stops it with a message and a
// non-zero exit; a figure that was not measured is never printed.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { io, type Socket } from "socket.io-client";
import { RunQueue, channelsFor, connectRedis } from "@/server/cluster";
import { openDb, type Db } from "@/server/db";
import { createApiToken, createUser } from "@/server/identity";
import { createPgSchema, type PgSchema } from "../test/helpers/pg";
import { freePort, spawnServer, type ServerProcess } from "../test/helpers/server-process";
import { migratedDb, summary } from "./bench-stats";

const RUNS = Number(process.env.BENCH_RUNS) || 40;
const KILLS = Number(process.env.BENCH_KILLS) || 5;
const KEYS = Number(process.env.BENCH_KEYS) || 50;
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
// Every process this script starts gets its settings from it alone.
for (const name of ["REDIS_URL", "DATABASE_URL", "REIN_ROLE", "REIN_REDIS_PREFIX", "REIN_DATA_DIR"]) delete process.env[name];

const SLOTS_PER_WORKER = 4; // REIN_WORKERS of each worker process
const DELAY_MS = 50; // REIN_SCRIPTED_DELAY_MS: the scripted model pauses before each streamed word
const WORDS = 10; // words per model turn: each model call takes WORDS × DELAY_MS
const TURNS = 4; // model calls per run of (1)
const LONG_TURNS = 40; // model calls per run of (3)
const RUNS_PER_KILL = SLOTS_PER_WORKER; // the survivor has a free slot for every run of the victim
const THROUGHPUT_BYTES = 15_000_000; // base64 makes 20 MB of it
const PRINTED_MB = (THROUGHPUT_BYTES * 4) / 3 / 1e6;
const SECRET = "bench-scale-secret-0123456789abcdef";

const round = (n: number, d = 1) => (Math.round(n * 10 ** d) / 10 ** d).toFixed(d);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const p5099 = (xs: number[], unit = "ms", d = 0) => {
  const s = summary(xs);
  return `p50 ${round(s.p50, d).padStart(7)} ${unit}   p99 ${round(s.p99, d).padStart(7)} ${unit}   (n=${s.n})`;
};

/** Polls until `probe` gives a truthy value; throws naming what never came. */
async function until<T>(probe: () => T | Promise<T>, what: string, limitMs: number, intervalMs = 50): Promise<NonNullable<T>> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`gave up after ${limitMs / 1000} s waiting for ${what}`);
    await sleep(intervalMs);
  }
}

const words = (tag: string) => Array.from({ length: WORDS }, (_, i) => (i === 0 ? tag : `w${i}`)).join(" ");
/** Turns of pure tool calls (update_tasks) and a last turn of text: no shell, no pod. */
const ioBound = (turns: number) => [
  ...Array.from({ length: turns - 1 }, (_, i) => ({
    text: words(`Step${i}`),
    toolCalls: [{ tool: "update_tasks", args: { tasks: [{ title: `step ${i}`, status: "done" }] } }],
  })),
  { text: words("Done") },
];

interface Deployment {
  token: string;
  url: string;
}

async function api<T>(d: Deployment, method: string, route: string, body?: unknown, url = d.url): Promise<T> {
  const res = await fetch(`${url}${route}`, {
    method,
    headers: { authorization: `Bearer ${d.token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** Launches runs over REST, 8 at a time; each with the moment its call was sent. */
async function launch(d: Deployment, n: number, body: (i: number) => object): Promise<Array<{ id: string; sentAt: number }>> {
  const out: Array<{ id: string; sentAt: number }> = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(8, n) }, async () => {
      for (let i = next++; i < n; i = next++) {
        const sentAt = Date.now();
        out[i] = { id: (await api<{ id: string }>(d, "POST", "/api/v1/runs", body(i))).id, sentAt };
      }
    }),
  );
  return out;
}

/** Each run's queued→running event, minus the moment its REST call was sent. */
async function startLatencies(db: Db, runs: Array<{ id: string; sentAt: number }>): Promise<number[]> {
  const sent = new Map(runs.map((r) => [r.id, r.sentAt]));
  const rows = await db.runEvent.findMany({
    where: { runId: { in: [...sent.keys()] }, type: "run.state" },
    select: { runId: true, seq: true, payload: true, createdAt: true },
    orderBy: { seq: "asc" },
  });
  const first = new Map<string, number>();
  for (const r of rows)
    if (!first.has(r.runId) && (JSON.parse(r.payload) as { to?: string }).to === "running") first.set(r.runId, r.createdAt.getTime());
  const missing = [...sent.keys()].filter((id) => !first.has(id));
  if (missing.length) throw new Error(`no queued→running event for ${missing.length} run(s), e.g. ${missing[0]}`);
  return [...sent].map(([id, at]) => first.get(id)! - at);
}

async function waitEnded(db: Db, ids: string[], limitMs: number, want = "succeeded") {
  await until(
    async () => {
      const rows = await db.run.findMany({ where: { id: { in: ids } }, select: { id: true, status: true, statusReason: true } });
      const bad = rows.find((r) => ["failed", "canceled", "succeeded", "waiting_human"].includes(r.status) && r.status !== want);
      if (bad) throw new Error(`run ${bad.id} ended ${bad.status} (${bad.statusReason ?? "no reason"}), expected ${want}`);
      return rows.length === ids.length && rows.every((r) => r.status === want);
    },
    `${ids.length} runs to be ${want}`,
    limitMs,
    100,
  );
}

/** Launches single-turn runs one at a time on an idle deployment; each launch → its queued→running event. */
async function idleStartLatency(d: Deployment, db: Db): Promise<number[]> {
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    const [r] = await launch(d, 1, () => ({ goal: `start ${i}`, agent: "demo-team", scenario: [{ text: "Done." }] }));
    await waitEnded(db, [r!.id], 60_000);
    runs.push(r!);
  }
  return startLatencies(db, runs);
}

// --- the cluster ---

class Cluster {
  schema!: PgSchema;
  db!: Db;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-scale-"));
  prefix = `rein-bench-scale-${process.pid}-${Date.now()}`;
  token = "";
  webs: ServerProcess[] = [];
  workers: Array<ServerProcess & { id: string }> = [];

  get url() {
    return this.webs[0]!.url;
  }

  env(extra: Record<string, string>): Record<string, string> {
    return {
      DATABASE_URL: this.schema.url,
      REDIS_URL,
      REIN_REDIS_PREFIX: this.prefix,
      REIN_DATA_DIR: this.dir,
      NEXTAUTH_SECRET: SECRET,
      REIN_SCRIPTED_DELAY_MS: String(DELAY_MS),
      REIN_POD_POOL_SIZE: "0",
      ...extra,
    };
  }

  async start() {
    this.schema = await createPgSchema("bench_scale");
    this.db = await openDb(this.schema.url, { poolMax: 4 });
    const userId = await createUser(this.db, { email: "bench@rein.test", password: "password-123", role: "operator" });
    this.token = (await createApiToken(this.db, { userId, name: "bench:scale" })).token;
    await this.startWeb(); // the first web process seeds the built-in agents
  }

  async startWeb() {
    const s = spawnServer(this.env({ REIN_ROLE: "web", PORT: String(await freePort()) }));
    this.webs.push(s);
    await s.ready;
    return s;
  }

  async startWorker() {
    const s = spawnServer(
      this.env({ REIN_ROLE: "worker", PORT: String(await freePort()), REIN_WORKERS: String(SLOTS_PER_WORKER) }),
      "is executing runs",
    );
    const w = Object.assign(s, { id: "" });
    this.workers.push(w);
    await s.ready;
    w.id = /Rein worker (\S+) is executing runs/.exec(s.output())?.[1] ?? "";
    if (!w.id) throw new Error(`a worker did not say its id:\n${s.output().slice(-500)}`);
    return w;
  }

  async stopWorker(w: ServerProcess, signal: NodeJS.Signals) {
    this.workers = this.workers.filter((x) => x !== w);
    await w.kill(signal);
  }

  async stop() {
    await Promise.all([...this.webs, ...this.workers].map((p) => p.kill("SIGKILL")));
    this.webs = [];
    this.workers = [];
    const redis = connectRedis(REDIS_URL, { name: "bench-scale-cleanup" });
    try {
      const q = new RunQueue(channelsFor(this.prefix).queue, redis);
      await q.queue.obliterate({ force: true }).catch(() => {});
      await q.close();
      // Terminal streams, pods and channels of this run's prefix.
      let cursor = "0";
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", `${this.prefix}:*`, "COUNT", 500);
        if (keys.length) await redis.del(...keys);
        cursor = next;
      } while (cursor !== "0");
    } finally {
      redis.disconnect();
    }
    await this.db?.$disconnect().catch(() => {});
    await this.schema?.drop();
    fs.rmSync(this.dir, { recursive: true, force: true, maxRetries: 5 });
  }
}

async function throughputWithWorkers(c: Cluster): Promise<{ perMin: number; start: number[] }> {
  const t0 = Date.now();
  const runs = await launch(c, RUNS, (i) => ({ goal: `scale ${i}`, agent: "demo-team", scenario: ioBound(TURNS) }));
  await waitEnded(
    c.db,
    runs.map((r) => r.id),
    600_000,
  );
  const minutes = (Date.now() - t0) / 60_000;
  return { perMin: RUNS / minutes, start: await startLatencies(c.db, runs) };
}

/** SIGKILLs the worker holding the most of a fresh batch of long runs; each of its runs → run.resumed elsewhere. */
async function killRound(c: Cluster): Promise<number[]> {
  const runs = await launch(c, RUNS_PER_KILL, (i) => ({ goal: `long ${i}`, agent: "demo-team", scenario: ioBound(LONG_TURNS) }));
  const ids = runs.map((r) => r.id);
  try {
    const live = new Set(c.workers.map((w) => w.id));
    const leases = await until(
      async () => {
        const running = await c.db.run.count({ where: { id: { in: ids }, status: "running" } });
        const rows = await c.db.runLease.findMany({ where: { runId: { in: ids } }, select: { runId: true, owner: true } });
        return running === ids.length && rows.length === ids.length && rows.every((l) => live.has(l.owner)) ? rows : null;
      },
      "every long run to run on a worker",
      60_000,
    );
    await sleep(1500); // a few steps in, leases renewed
    const held = new Map<string, string[]>();
    for (const l of await c.db.runLease.findMany({ where: { runId: { in: ids } }, select: { runId: true, owner: true } }))
      held.set(l.owner, [...(held.get(l.owner) ?? []), l.runId]);
    const [victimId, victimRuns] = [...held].sort((a, b) => b[1].length - a[1].length)[0] ?? [leases[0]!.owner, []];
    const victim = c.workers.find((w) => w.id === victimId);
    if (!victim) throw new Error(`the lease owner ${victimId} is not a worker this bench started`);
    const killedAt = Date.now();
    await c.stopWorker(victim, "SIGKILL");
    const resumed = await until(
      async () => {
        const rows = await c.db.runEvent.findMany({
          where: { runId: { in: victimRuns }, type: "run.resumed" },
          select: { runId: true, payload: true, createdAt: true },
        });
        const mine = rows.filter((r) => (JSON.parse(r.payload) as { fromWorker?: string }).fromWorker === victimId);
        return new Set(mine.map((r) => r.runId)).size === victimRuns.length ? mine : null;
      },
      `the ${victimRuns.length} run(s) of killed worker ${victimId} to resume on another worker`,
      90_000,
    );
    const first = new Map<string, number>();
    for (const r of resumed) first.set(r.runId, Math.min(first.get(r.runId) ?? Infinity, r.createdAt.getTime()));
    return [...first.values()].map((at) => at - killedAt);
  } finally {
    await Promise.all(ids.map((id) => api(c, "POST", `/api/v1/runs/${id}/cancel`).catch(() => {})));
    await waitEnded(c.db, ids, 60_000, "canceled").catch(() => {});
  }
}

// --- the terminal, through any deployment ---

interface TerminalFigures {
  echo: number[];
  /** Null when the output did not all arrive: `failure` says why. */
  mbps: number | null;
  /** What arrived as live output; the rest was skipped for screen snapshots. */
  receivedMb: number;
  snapshots: number;
  failure?: string;
}

/** Launches a run on `launchUrl`, takes its terminal over on `watchUrl`, types, hands back, cancels. */
async function terminalFigures(d: Deployment, launchUrl: string, watchUrl: string): Promise<TerminalFigures> {
  const { id } = await api<{ id: string }>(
    d,
    "POST",
    "/api/v1/runs",
    {
      goal: "terminal across processes",
      agent: "demo-coder",
      scenario: [
        { text: "First.", toolCalls: [{ tool: "shell", args: { command: "sleep 2" } }] },
        { text: "Then.", toolCalls: [{ tool: "shell", args: { command: "echo agent-again" } }] },
        { text: "Done." },
      ],
    },
    launchUrl,
  );
  const socket: Socket = io(`${watchUrl}/terminal`, {
    path: "/socket.io",
    transports: ["websocket"],
    auth: { token: d.token },
    reconnection: false,
    forceNew: true,
  });
  let buffer = "";
  let bytes = 0;
  const listeners = new Set<() => void>();
  let ready = false;
  socket.on("data", (m: { runId: string; seq: number; data: string }) => {
    if (m.runId !== id) return;
    // Only the tail is kept: the checks look for short marks, and 20 MB would make each check slow.
    buffer = (buffer + m.data).slice(-4096);
    bytes += m.data.length;
    socket.emit("ack", { runId: id, seq: m.seq });
    listeners.forEach((l) => l());
  });
  // A viewer that fell behind (flow control) is sent the screen instead of the output it missed.
  let snapshots = 0;
  socket.on("snapshot", (m: { runId: string; data: string }) => {
    if (m.runId !== id) return;
    buffer = m.data.slice(-4096);
    snapshots++;
    listeners.forEach((l) => l());
  });
  socket.on("status", (m: { runId: string; ready?: boolean }) => m.runId === id && m.ready === true && (ready = true));
  const call = <T>(event: string, extra: Record<string, unknown> = {}) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to "${event}" from ${watchUrl}/terminal`)), 15_000);
      socket.emit(event, { runId: id, ...extra }, (reply: T) => {
        clearTimeout(timer);
        resolve(reply);
      });
    });
  /** Resolves once `test` holds on the data seen so far (checked on every chunk). */
  const seen = (test: () => boolean, what: string, limitMs: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!test()) return;
        listeners.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`gave up after ${limitMs / 1000} s waiting for ${what}`));
      }, limitMs);
      listeners.add(check);
      check();
    });
  let handedBack = false;
  try {
    await until(
      async () => (await call<{ ok: boolean; podId?: string }>("attach", { cols: 200, rows: 50 })).podId,
      "the run's terminal pod",
      60_000,
      100,
    );
    await seen(() => buffer.includes("sleep 2"), "the agent's first command on the screen", 30_000);
    const taken = await call<{ ok: boolean; error?: string }>("takeover");
    if (!taken.ok) throw new Error(`takeover refused: ${taken.error ?? JSON.stringify(taken)}`);
    await until(() => ready, "control of the terminal to be ready", 30_000, 20);

    const echo: number[] = [];
    for (let i = 1; i <= KEYS; i++) {
      buffer = "";
      const t0 = performance.now();
      const tag = `k${i}`;
      const echoed = seen(() => buffer.includes(tag), `the echo of ${tag}`, 15_000);
      const typed = call<{ ok: boolean }>("input", { data: `echo ${tag}\r` });
      typed.catch(() => {}); // awaited below; a refusal while waiting for the echo is not lost
      await echoed;
      echo.push(performance.now() - t0);
      if (!(await typed).ok) throw new Error(`input refused: ${JSON.stringify(await typed)}`);
      // The command's own output too, so the next keystrokes meet an idle shell.
      await seen(() => buffer.split(tag).length > 2, `the output of echo ${tag}`, 15_000);
    }

    buffer = "";
    bytes = 0;
    snapshots = 0;
    const t0 = performance.now();
    const finished = seen(() => buffer.includes("done-marker"), "the end of 20 MB of output", 120_000);
    finished.catch(() => {}); // awaited below
    await call("input", { data: `head -c ${THROUGHPUT_BYTES} /dev/zero | base64 -w 0; echo; echo done""-marker\r` });
    // A stalled stream still leaves the echo figures; the caller reports the failure and exits non-zero.
    const failure = await finished.then(
      () => undefined,
      (err: Error) =>
        `${err.message} (${round(bytes / 1e6)} MB of output arrived in ${round((performance.now() - t0) / 1000)} s, through ${watchUrl})`,
    );
    const secs = (performance.now() - t0) / 1000;
    buffer = "";
    const receivedMb = bytes / 1e6;
    const back = await call<{ ok: boolean }>("handback");
    handedBack = back.ok;
    // The rate is of what the command printed, until its end showed on this viewer; what arrived live is beside it.
    return { echo, mbps: failure ? null : PRINTED_MB / secs, receivedMb, snapshots, failure };
  } finally {
    if (!handedBack) await call("handback").catch(() => {});
    socket.disconnect();
    await api(d, "POST", `/api/v1/runs/${id}/cancel`, undefined, launchUrl).catch(() => {});
  }
}

// --- one process on SQLite, the baseline of (2) and (4) ---

async function singleProcess(): Promise<{ start: number[]; terminal: TerminalFigures }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-scale-one-"));
  let server: ServerProcess | undefined;
  try {
    const db = await migratedDb(`file:${path.join(dir, "rein.db")}`);
    try {
      const userId = await createUser(db, { email: "bench@rein.test", password: "password-123", role: "operator" });
      const token = (await createApiToken(db, { userId, name: "bench:scale" })).token;
      const s = spawnServer({
        REIN_DATA_DIR: dir,
        PORT: String(await freePort()),
        NEXTAUTH_SECRET: SECRET,
        REIN_SCRIPTED_DELAY_MS: String(DELAY_MS),
        REIN_POD_POOL_SIZE: "0",
        REIN_WORKERS: String(SLOTS_PER_WORKER),
      });
      server = s;
      await s.ready;
      const d = { token, url: s.url };
      const start = await idleStartLatency(d, db);
      const terminal = await terminalFigures(d, s.url, s.url);
      return { start, terminal };
    } finally {
      await db.$disconnect();
    }
  } finally {
    await server?.kill("SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
}

async function main() {
  console.log(`\nSeveral machines: 1 web process + worker processes on PostgreSQL and Redis (node --import tsx server.ts each)`);
  console.log(
    `settings: BENCH_RUNS=${RUNS} BENCH_KILLS=${KILLS} BENCH_KEYS=${KEYS}; REIN_WORKERS=${SLOTS_PER_WORKER} per worker; ` +
      `scripted model REIN_SCRIPTED_DELAY_MS=${DELAY_MS} × ${WORDS} words = ${DELAY_MS * WORDS} ms per model call; ` +
      `(1) runs of ${TURNS} model calls (update_tasks between, no shell); (3) runs of ${LONG_TURNS} calls, ${RUNS_PER_KILL} per kill; ` +
      `lease TTL default; ${os.cpus().length} cores\n`,
  );
  const c = new Cluster();
  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    await c.stop().catch((err: Error) => console.error(`cleanup: ${err.message}`));
  };
  process.once("SIGINT", () => void cleanup().finally(() => process.exit(130)));
  let clusterStart: number[];
  let clusterTerminal: TerminalFigures;
  try {
    await c.start();
    // (1) 1, 2, 4 workers, the same processes kept.
    const figures: Array<{ workers: number; perMin: number; start: number[] }> = [];
    for (const n of [1, 2, 4]) {
      while (c.workers.length < n) await c.startWorker();
      figures.push({ workers: n, ...(await throughputWithWorkers(c)) });
    }
    const base = figures[0]!.perMin;
    const ideal = (60_000 / (TURNS * WORDS * DELAY_MS)) * SLOTS_PER_WORKER;
    console.log(`(1) runs completed per minute (${RUNS} runs launched at once over REST, until all succeeded)`);
    for (const f of figures) {
      console.log(
        `  ${String(f.workers).padStart(2)} worker(s)  ${round(f.perMin).padStart(7)} runs/min   ×${round(f.perMin / base, 2)} vs 1 worker   ` +
          `(model-bound ceiling ${round(ideal * f.workers, 0)}/min)   launch → running, queued behind others: ${p5099(f.start)}`,
      );
    }

    // (2) on idle workers.
    clusterStart = await idleStartLatency(c, c.db);
    console.log(
      `\n(2) REST launch → the run's queued→running event, idle, ${RUNS} runs one at a time (one process's figure below, at the end)`,
    );
    console.log(`  web + queue + 4 workers (PostgreSQL, Redis) ${p5099(clusterStart)}`);

    // (3) two workers.
    while (c.workers.length > 2) await c.stopWorker(c.workers[c.workers.length - 1]!, "SIGTERM");
    while (c.workers.length < 2) await c.startWorker();
    const takeovers: number[] = [];
    for (let k = 0; k < KILLS; k++) {
      takeovers.push(...(await killRound(c)));
      await c.startWorker();
    }
    console.log(`\n(3) SIGKILL of a worker → run.resumed on the other, ${KILLS} kills, a replacement worker after each`);
    console.log(
      `  takeover                                   ${p5099(takeovers)}   (for scale: BullMQ's stalled-job check alone 15-60 s; aim p50 < 2000 ms, p99 < 12000 ms)`,
    );

    // (4) web process B + one worker.
    while (c.workers.length > 1) await c.stopWorker(c.workers[c.workers.length - 1]!, "SIGTERM");
    const b = await c.startWeb();
    clusterTerminal = await terminalFigures(c, c.url, b.url);
  } finally {
    await cleanup();
  }
  const single = await singleProcess();

  const s1 = summary(single.start);
  const s2 = summary(clusterStart);
  console.log(`\n(2) REST launch → the run's queued→running event, idle, ${RUNS} runs one at a time`);
  console.log(`  one process (SQLite, in-process pool)      ${p5099(single.start)}`);
  console.log(`  web + queue + 4 workers, as above: ×${round(s2.p50 / s1.p50, 2)} p50, ×${round(s2.p99 / s1.p99, 2)} p99 of one process`);

  const e1 = summary(single.terminal.echo);
  const e2 = summary(clusterTerminal.echo);
  console.log(`\n(4) taken-over terminal: one process vs web process B + the worker holding the pod (through Redis)`);
  console.log(`  keystroke → echo (echo k<i>), one process  ${p5099(single.terminal.echo, "ms", 2)}`);
  console.log(
    `  keystroke → echo, across processes         ${p5099(clusterTerminal.echo, "ms", 2)}   ×${round(e2.p50 / e1.p50, 2)} p50, ×${round(e2.p99 / e1.p99, 2)} p99`,
  );
  const throughput = (t: TerminalFigures) =>
    t.mbps === null
      ? `not measured: ${t.failure}`
      : `${round(t.mbps).padStart(7)} MB/s   (20 MB printed; ${round(t.receivedMb)} MB reached the viewer live, ${t.snapshots} screen snapshot(s) for the rest)`;
  console.log(`  output throughput, one process             ${throughput(single.terminal)}`);
  const ratio =
    single.terminal.mbps !== null && clusterTerminal.mbps !== null ? `   ×${round(clusterTerminal.mbps / single.terminal.mbps, 2)}` : "";
  console.log(`  output throughput, across processes        ${throughput(clusterTerminal)}${ratio}\n`);
  const failures = [single.terminal.failure, clusterTerminal.failure].filter(Boolean);
  if (failures.length) throw new Error(`the terminal's output throughput was not measured: ${failures.join("; ")}`);
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(`\nbench:scale failed: ${err.message}`);
    process.exit(1);
  },
);
