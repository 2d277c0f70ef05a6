// Class 29: several machines. A worker that lost its run (frozen past its
// lease, cut off, or simply slow) must not write over the worker that took
// it, by any path the run loop writes through; and a web process must never
// execute a run itself, whatever asks it to (a resume, a person's answer, a
// run enqueued while it was stopping), since only a worker that won the
// run's lease may.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HeldRuns, isLeaseLost, type Db } from "@/server/db";
import { createKernel, event, initialState, PrismaRunStore, type Kernel } from "@/server/kernel";
import { PrismaReplayCache } from "@/server/tools";
import { createUser } from "@/server/identity";
import { makeTempDir, type TestDb } from "../helpers/db";
import { createPgTestDb } from "../helpers/pg";

let t: TestDb;
let userId: string;

beforeEach(async () => {
  t = await createPgTestDb(makeTempDir("rein-attack-stale-"));
  userId = await createUser(t.db, { email: "op@test.local", password: "test-password-1", role: "operator" });
});

afterEach(async () => {
  await t.cleanup();
});

async function run(db: Db, status: string) {
  return (
    await db.run.create({
      data: { goal: "g", agentName: "demo-coder", agentVersion: 1, model: "scripted/demo-coder", createdById: userId, status },
    })
  ).id;
}

async function setLease(db: Db, runId: string, epoch: number, owner: string) {
  const row = { owner, ownerKey: 1, epoch, expiresAt: new Date(Date.now() + 60_000) };
  await db.runLease.upsert({ where: { runId }, create: { runId, ...row }, update: row });
}

describe("class 29: a stale worker and a web process", () => {
  it("a worker whose run was taken over writes nothing more: no event, checkpoint, state change, replay intent or result", async () => {
    const runId = await run(t.db, "running");
    const held = new HeldRuns();
    const store = new PrismaRunStore(t.db, () => {}, held);
    const cache = new PrismaReplayCache(t.db, held);
    await setLease(t.db, runId, 1, "worker-a");
    held.hold(runId, 1);
    await store.commitStep(runId, {
      events: [event("tasks.updated", { tasks: [], notes: "a" })],
      checkpoint: initialState("demo-coder", "g"),
      seq: 1,
    });
    // Worker B takes the run over while A is still going.
    await setLease(t.db, runId, 2, "worker-b");
    const key = { runId, nodeId: "1:call_0_0", checkpointId: "cp", toolName: "shell", inputHash: "h" };
    const attempts: Array<[string, () => Promise<unknown>]> = [
      ["appendEvents", () => store.appendEvents(runId, [event("tasks.updated", { tasks: [], notes: "stale" })])],
      ["commitStep", () => store.commitStep(runId, { events: [], checkpoint: initialState("demo-coder", "g"), seq: 2 })],
      ["transition", () => store.transition(runId, ["running"], "succeeded")],
      ["writeIntent", () => cache.writeIntent(key, "unsafe_on_replay")],
      ["writeResult", () => cache.writeResult(key, "unsafe_on_replay", { ok: true, output: "stale" })],
    ];
    for (const [what, attempt] of attempts) {
      const err = await attempt().then(
        () => null,
        (e: unknown) => e,
      );
      expect(isLeaseLost(err), `${what} was not refused`).toBe(true);
    }
    expect(await t.db.runEvent.count({ where: { runId } })).toBe(1);
    expect(await t.db.checkpoint.count({ where: { runId } })).toBe(1);
    expect(await t.db.toolCallResult.count({ where: { runId } })).toBe(0);
    expect((await t.db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("running");
  });

  it("once the worker learns it lost the run, what its loop still writes is refused, not written unfenced", async () => {
    const runId = await run(t.db, "running");
    const held = new HeldRuns();
    const store = new PrismaRunStore(t.db, () => {}, held);
    await setLease(t.db, runId, 1, "worker-a");
    held.hold(runId, 1);
    // A froze inside a command; B took the run; A thaws and its lease renewal says so.
    await setLease(t.db, runId, 2, "worker-b");
    held.lose(runId);
    expect(held.entries()).toEqual([]);
    // The command ends and A's loop reports it: refused against A's old epoch.
    const err = await store.appendEvents(runId, [event("tasks.updated", { tasks: [], notes: "stale" })]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isLeaseLost(err), "a write after the loss was accepted").toBe(true);
    expect(await t.db.runEvent.count({ where: { runId } })).toBe(0);
    // Once A's loop has ended it forgets the run, and may hold it again later at a new epoch.
    held.drop(runId, 1);
    held.hold(runId, 3);
    expect(held.entries()).toEqual([[runId, 3]]);
  });

  it("a web process never executes a run: a resume, an enqueue and a run enqueued again go to the queue", async () => {
    const queued: string[] = [];
    const kernel: Kernel = await createKernel({
      db: t.db,
      databaseUrl: t.url,
      dataDir: t.dir,
      workers: 4,
      scriptedDelayMs: 0,
      fences: new HeldRuns(),
      enqueue: (runId) => queued.push(runId),
      remote: { signal: async () => {} },
      log: { info() {}, error() {} },
    });
    try {
      const paused = await run(t.db, "paused");
      const fresh = await run(t.db, "queued");
      expect(await kernel.pool.resume(paused, { id: userId, name: "op" })).toEqual({ ok: true });
      kernel.enqueue(fresh);
      kernel.pool.enqueue(fresh);
      await new Promise((r) => setTimeout(r, 300));
      expect(queued).toEqual([paused, fresh, fresh]);
      expect(kernel.pool.stats().active).toBe(0);
      // Nothing executed here: no run moved past queued, no checkpoint was written.
      expect((await t.db.run.findMany({ where: { id: { in: [paused, fresh] } }, select: { status: true } })).map((r) => r.status)).toEqual([
        "queued",
        "queued",
      ]);
      expect(await t.db.checkpoint.count()).toBe(0);
    } finally {
      await kernel.pool.stop();
      kernel.close();
    }
  });
});
