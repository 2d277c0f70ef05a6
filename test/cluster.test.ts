// Several machines, in one test process: workers with their own database
// pools, registries and fenced stores share one PostgreSQL schema and one
// Redis queue. Runs are handed out once, a worker that stops renewing loses
// its run to another and writes nothing more, and a run's side effects
// happen once. (The same with real processes and SIGKILL: test/cluster-processes.test.ts.)
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { HeldRuns, openDb, type Db } from "@/server/db";
import { createKernel, initialState, PrismaRunStore, type Kernel, type RunEventRecord } from "@/server/kernel";
import { createUser } from "@/server/identity";
import {
  ClusterWorker,
  LOCK_NAMESPACE,
  ProcessRegistry,
  RunLeases,
  RunQueue,
  channelsFor,
  connectRedis,
  listProcesses,
  type Redis,
} from "@/server/cluster";
import type { Scenario } from "@/server/models";
import { makeTempDir } from "./helpers/db";
import { createPgSchema, type PgSchema } from "./helpers/pg";
import { waitFor } from "./helpers/wait";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const QUIET = { info() {}, error() {} };

interface Node {
  db: Db;
  kernel: Kernel;
  registry: ProcessRegistry;
  worker: ClusterWorker;
  held: HeldRuns;
  redis: Redis;
  logs: string[];
  close(): Promise<void>;
}

let schema: PgSchema;
let dataDir: string;
let prefix: string;
let userId: string;
const nodes: Node[] = [];

beforeAll(async () => {
  schema = await createPgSchema("cluster");
  dataDir = makeTempDir("rein-cluster-");
  const db = await openDb(schema.url, { poolMax: 2 });
  userId = await createUser(db, { email: "op@test.local", password: "test-password-1", role: "operator" });
  await db.$disconnect();
});

afterAll(async () => {
  await schema.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

afterEach(async () => {
  await Promise.all(nodes.splice(0).map((n) => n.close()));
  const redis = connectRedis(REDIS_URL, { name: "test-cleanup" });
  const q = new RunQueue(channelsFor(prefix).queue, redis);
  await q.queue.obliterate({ force: true }).catch(() => {});
  await q.close();
  redis.disconnect();
});

async function startNode(
  opts: {
    ttlMs?: number;
    renewMs?: number;
    sweepMs?: number;
    concurrency?: number;
    scriptedDelayMs?: number;
    homeOf?: (runId: string) => Promise<string | null>;
  } = {},
): Promise<Node> {
  const db = await openDb(schema.url, { poolMax: 4 });
  const logs: string[] = [];
  const log = { info: (m: string) => logs.push(m), error: (m: string) => logs.push(m) };
  const held = new HeldRuns();
  const kernel = await createKernel({
    db,
    databaseUrl: schema.url,
    dataDir,
    workers: 4,
    scriptedDelayMs: opts.scriptedDelayMs ?? 0,
    fences: held,
    log,
  });
  const registry = await ProcessRegistry.start({ db, databaseUrl: schema.url, role: "worker", version: "test", log: QUIET });
  const redis = connectRedis(REDIS_URL, { name: "test-worker" });
  const worker = new ClusterWorker({
    pool: kernel.pool,
    store: kernel.store,
    held,
    leases: new RunLeases(db, opts.ttlMs ?? 10_000),
    registry,
    redis,
    names: channelsFor(prefix),
    concurrency: opts.concurrency ?? 4,
    renewMs: opts.renewMs ?? 300,
    sweepMs: opts.sweepMs ?? 200,
    homeOf: opts.homeOf,
    log,
  });
  await worker.start();
  const node: Node = {
    db,
    kernel,
    registry,
    worker,
    held,
    redis,
    logs,
    async close() {
      await worker.stop(2_000);
      await registry.stop();
      redis.disconnect();
      kernel.close();
      await db.$disconnect();
    },
  };
  nodes.push(node);
  return node;
}

/** A run of `steps` shell commands, each appending its number to effects.log once (after `sleep` seconds). */
async function addRun(db: Db, steps: number, sleep = 0): Promise<string> {
  const scenario: Scenario = {
    turns: [
      ...Array.from({ length: steps }, (_, i) => ({
        text: `Step ${i}.`,
        toolCalls: [{ tool: "shell", args: { command: `${sleep ? `sleep ${sleep}; ` : ""}echo ${i} >> effects.log` } }],
      })),
      { text: "Done." },
    ],
  };
  const run = await db.run.create({
    data: {
      goal: "count",
      agentName: "demo-coder",
      agentVersion: 1,
      model: "scripted/run-scenario",
      scenario: JSON.stringify(scenario),
      maxSteps: steps + 5,
      createdById: userId,
    },
  });
  return run.id;
}

async function events(db: Db, runId: string): Promise<RunEventRecord[]> {
  const rows = await db.runEvent.findMany({ where: { runId }, orderBy: { seq: "asc" } });
  return rows.map((r) => ({
    runId: r.runId,
    seq: r.seq,
    type: r.type as RunEventRecord["type"],
    actor: r.actor,
    payload: JSON.parse(r.payload),
    createdAt: r.createdAt,
  }));
}

const statusOf = async (db: Db, runId: string) =>
  (await db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } })).status;
const effects = (runId: string) => {
  const file = path.join(dataDir, "workspaces", runId, "effects.log");
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : [];
};

describe("runs across workers (PostgreSQL leases, BullMQ)", () => {
  it("hands each of 12 queued runs to exactly one of three workers; every run succeeds with a gap-free log", async () => {
    prefix = `rein-test-${process.pid}-${Date.now()}`;
    const [a] = [await startNode(), await startNode(), await startNode()];
    const ids = await Promise.all(Array.from({ length: 12 }, () => addRun(a.db, 2)));
    const q = new RunQueue(channelsFor(prefix).queue, a.redis);
    // Each job twice: the lease, not the queue, decides who executes.
    for (const id of ids) (await q.add(id, 0), await q.add(id, 0));
    await waitFor(
      async () => (await Promise.all(ids.map((id) => statusOf(a.db, id)))).every((s) => s === "succeeded"),
      "every run to succeed",
      { limitMs: 60_000 },
    );
    await q.close();
    for (const id of ids) {
      const log = await events(a.db, id);
      expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
      expect(log.filter((e) => e.type === "run.state").map((e) => (e.payload as { to: string }).to)).toEqual(["running", "succeeded"]);
      expect(effects(id)).toEqual(["0", "1"]);
    }
    const taken = nodes.map((n) => n.worker.figures.runsTaken);
    expect(taken.reduce((x, y) => x + y, 0)).toBe(12);
    // Every lease was handed back when its run ended.
    const leases = await a.db.runLease.findMany({ where: { runId: { in: ids } } });
    expect(leases).toHaveLength(12);
    expect(leases.every((l) => l.epoch === 1 && l.expiresAt.getTime() <= Date.now())).toBe(true);
  }, 90_000);

  it("a worker that stops renewing loses its run to another, which resumes it from the checkpoint; the stale worker's writes are refused and nothing runs twice", async () => {
    prefix = `rein-test-${process.pid}-${Date.now()}`;
    // It renews never: its lease (1.5 s) runs out mid-run, as a frozen worker's
    // would; like a frozen worker it takes no other job and sweeps nothing.
    const stale = await startNode({ ttlMs: 1_500, renewMs: 3_600_000, sweepMs: 3_600_000, concurrency: 1, scriptedDelayMs: 250 });
    const runId = await addRun(stale.db, 12);
    const q = new RunQueue(channelsFor(prefix).queue, stale.redis);
    await q.add(runId, 0);
    await waitFor(async () => stale.held.epochOf(runId) === 1, "the stale worker to take the run", { limitMs: 20_000 });
    const fresh = await startNode({ ttlMs: 10_000, scriptedDelayMs: 0 });
    await waitFor(
      async () => (await statusOf(fresh.db, runId)) !== "running" && (await statusOf(fresh.db, runId)) !== "queued",
      "the run to end on the fresh worker",
      { limitMs: 60_000 },
    );
    await q.close();

    const log = await events(fresh.db, runId);
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
    const resumed = log.filter((e) => e.type === "run.resumed").map((e) => e.payload as { fromWorker: string; byWorker: string });
    expect(resumed).toEqual([expect.objectContaining({ fromWorker: stale.registry.id, byWorker: fresh.registry.id })]);
    // The stale worker said why it stopped; its run loop wrote nothing after the takeover.
    await waitFor(
      async () => stale.logs.some((l) => /another worker has taken this run over/.test(l)),
      "the stale worker to say why it stopped",
      { limitMs: 10_000 },
    );
    const takeoverSeq = log.find((e) => e.type === "run.resumed")!.seq;
    expect(log.filter((e) => e.seq > takeoverSeq && e.actor === stale.registry.id)).toEqual([]);
    // Each command ran once; one in flight at the takeover asks a person instead of running again.
    const done = effects(runId);
    expect(new Set(done).size).toBe(done.length);
    // (These kernels have no HumanGate, so such a call fails the run with ReplayUnsafeError; with one, it is a choose request.)
    const run = await fresh.db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true, errorCode: true } });
    if (run.status === "succeeded") expect(done).toEqual(Array.from({ length: 12 }, (_, i) => String(i)));
    else expect(run).toEqual({ status: "failed", errorCode: "ReplayUnsafeError" });
    const lease = await fresh.db.runLease.findUniqueOrThrow({ where: { runId } });
    expect(lease.epoch).toBe(2);
  }, 90_000);

  it("sees a worker die at once through its liveness lock, without waiting for the lease to expire", async () => {
    prefix = `rein-test-${process.pid}-${Date.now()}`;
    const a = await startNode();
    const leases = new RunLeases(a.db, 60_000);
    const runId = await addRun(a.db, 1);
    await a.db.run.update({ where: { id: runId }, data: { status: "running" } });
    // A holder alive on its own connection, with a lease good for a minute.
    const holder = new pg.Client({ connectionString: schema.url.replace(/\?.*$/, "") });
    await holder.connect();
    await holder.query(`SELECT pg_advisory_lock($1::int, 4242)`, [LOCK_NAMESPACE]);
    expect(await leases.acquire(runId, { id: "w-dead", lockKey: 4242 })).toMatchObject({ epoch: 1, previousOwner: null });
    expect(await leases.acquire(runId, { id: "w-other", lockKey: 4343 })).toBeNull();
    expect((await leases.orphans()).map((o) => o.runId)).not.toContain(runId);
    await holder.end(); // its process is gone
    await waitFor(
      async () => (await leases.orphans()).some((o) => o.runId === runId && o.reason === "holder_dead"),
      "the dead holder's run to be an orphan",
      { limitMs: 5_000 },
    );
    expect(await leases.acquire(runId, { id: "w-other", lockKey: 4343 })).toMatchObject({ epoch: 2, previousOwner: "w-dead" });
  });

  it("takes over a run whose row a frozen process's transaction holds longer than Prisma lets a transaction last: the takeover's writes wait and retry, and the run succeeds", async () => {
    prefix = `rein-test-${process.pid}-${Date.now()}-frozen`;
    const setup = await openDb(schema.url, { poolMax: 2 });
    // A run mid-way on a worker that froze: running, its first checkpoint written, its lease expired.
    const runId = await addRun(setup, 2);
    await setup.run.update({ where: { id: runId }, data: { status: "running" } });
    await new PrismaRunStore(setup).commitStep(runId, { events: [], checkpoint: initialState("demo-coder", "count"), seq: 1 });
    await setup.runLease.create({ data: { runId, owner: "w-frozen", ownerKey: 4242, epoch: 1, expiresAt: new Date(Date.now() - 60_000) } });
    await setup.$disconnect();
    // The frozen process's session: inside a transaction that holds the run's row (as the spans' writer
    // does, server/telemetry/pg-sink.ts), idle from then on.
    const frozen = new pg.Client({ connectionString: schema.url.replace(/\?.*$/, "") });
    frozen.on("error", () => {}); // ended from outside, below
    await frozen.connect();
    await frozen.query(`SET search_path TO ${schema.schema}`);
    await frozen.query("BEGIN");
    await frozen.query(`SELECT 1 FROM "Run" WHERE id = $1 FOR UPDATE`, [runId]);
    const frozenPid = Number((await frozen.query("SELECT pg_backend_pid() AS pid")).rows[0].pid);
    try {
      const node = await startNode();
      // The worker takes the run over; its first write (the run.resumed note) waits on the row.
      const blocked = async () =>
        Number(
          (await schema.sql(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, [frozenPid])).rows[0]
            .n,
        ) > 0;
      await waitFor(blocked, "the takeover to wait on the frozen session's lock", { limitMs: 20_000, intervalMs: 20 });
      // Longer than Prisma's 5 s transaction timeout, then what PostgreSQL does at its idle-in-transaction limit.
      await new Promise((r) => setTimeout(r, 6_000));
      await schema.sql("SELECT pg_terminate_backend($1)", [frozenPid]);
      await waitFor(async () => !["running", "queued"].includes(await statusOf(node.db, runId)), "the run to end", { limitMs: 60_000 });
      const run = await node.db.run.findUniqueOrThrow({
        where: { id: runId },
        select: { status: true, errorCode: true, statusReason: true },
      });
      expect(run.status, `${run.status} ${run.errorCode ?? ""} ${run.statusReason ?? ""}`).toBe("succeeded");
      expect(effects(runId)).toEqual(["0", "1"]);
      const log = await events(node.db, runId);
      expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
      expect(log.filter((e) => e.type === "run.resumed").map((e) => e.payload)).toEqual([
        expect.objectContaining({ fromWorker: "w-frozen", byWorker: node.registry.id }),
      ]);
    } finally {
      await frozen.end().catch(() => {});
    }
  }, 90_000);

  it("resumes a run on the worker that has its desktop when the job reaches another worker, and on another once that worker is gone", async () => {
    prefix = `rein-test-${process.pid}-${Date.now()}-home`;
    // Each run's desktop is on `home` (as Redis would say); one job at a time per worker.
    let home: string | null = null;
    const homeOf = async () => home;
    const [a, b] = [await startNode({ concurrency: 1, homeOf }), await startNode({ concurrency: 1, homeOf })];
    // The queue on a connection of its own: one of the workers goes away below.
    const redis = connectRedis(REDIS_URL, { name: "test-enqueue" });
    const q = new RunQueue(channelsFor(prefix).queue, redis);
    // One worker is busy with a slow run; the desktops are that worker's.
    const slow = await addRun(a.db, 1, 4);
    await q.add(slow, 0);
    await waitFor(() => a.held.epochOf(slow) !== undefined || b.held.epochOf(slow) !== undefined, "a worker to take the slow run");
    const [busy, free] = a.held.epochOf(slow) !== undefined ? [a, b] : [b, a];
    home = busy.registry.id;
    // Runs the busy worker executed before (paused for a person, say), handed back: its lease, released.
    const leases = new RunLeases(free.db, 10_000);
    const ids = await Promise.all(Array.from({ length: 3 }, () => addRun(a.db, 1)));
    for (const id of ids) {
      const taken = await leases.acquire(id, busy.registry);
      await leases.release(id, taken!.epoch);
      await q.add(id, taken!.epoch);
    }
    await waitFor(
      async () => (await Promise.all(ids.map((id) => statusOf(free.db, id)))).every((s) => s === "succeeded"),
      "the three runs to succeed",
      { limitMs: 30_000 },
    );
    for (const id of ids) {
      // The free worker got the job (the busy one had no slot) and handed the run to the desktop's worker.
      expect(free.logs).toContain(`run ${id}: handed to ${busy.registry.id}, which has the run's desktop or terminal`);
      expect((await leases.get(id))?.owner).toBe(busy.registry.id);
      expect(effects(id)).toEqual(["0"]);
    }
    expect(await statusOf(free.db, slow)).not.toBe("failed");

    // The desktop's worker is gone: the other executes the run itself.
    const orphan = await addRun(free.db, 1);
    const taken = await leases.acquire(orphan, busy.registry);
    await leases.release(orphan, taken!.epoch);
    nodes.splice(nodes.indexOf(busy), 1);
    await busy.close();
    await q.add(orphan, taken!.epoch);
    await waitFor(async () => (await statusOf(free.db, orphan)) === "succeeded", "the run to succeed on the remaining worker", {
      limitMs: 30_000,
    });
    expect((await leases.get(orphan))?.owner).toBe(free.registry.id);
    await q.close();
    redis.disconnect();
  });

  it("lists each process with its role, and sees a stopped one as not alive", async () => {
    prefix = `rein-test-${process.pid}-${Date.now()}`;
    const a = await startNode();
    const b = await startNode();
    await b.registry.stop();
    const all = await listProcesses(a.db);
    expect(all.find((p) => p.id === a.registry.id)).toMatchObject({ role: "worker", alive: true, pid: process.pid });
    expect(all.find((p) => p.id === b.registry.id)).toMatchObject({ alive: false, stoppedAt: expect.any(Date) });
  });
});
