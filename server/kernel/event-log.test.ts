// The event log and RunStore contract
// (docs/runs.md#the-event-log-and-checkpoints): SqliteRunStore and
// PrismaRunStore on a real SQLite database, PrismaRunStore on PostgreSQL (a
// schema of its own per case) and MemoryRunStore run the same cases.
import { createRequire } from "node:module";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteTestDb, createTestDb, makeTempDir, type TestDb } from "@/test/helpers/db";
import { createPgTestDb } from "@/test/helpers/pg";
import { initialState, type CheckpointState } from "./checkpoint";
import { event, type NewRunEvent, type RunEventRecord } from "./events";
import { MemoryRunStore } from "./memory-store";
import { PrismaRunStore } from "./prisma-store";
import { SqliteRunStore } from "./sqlite-store";
import type { EventListener } from "./store";
import { HeldRuns, isLeaseLost, openNativeSqlite } from "@/server/db";
import { InvalidTransitionError, type RunState } from "./states";
import type { RunStore } from "./store";

// A second, synchronous connection to the same file: what it reads is what is
// committed, at the very moment of the call.
type SyncDb = { prepare(sql: string): { all(...params: unknown[]): unknown[] }; close(): void };
const BetterSqlite = createRequire(import.meta.url)("better-sqlite3") as new (file: string, opts?: { readonly?: boolean }) => SyncDb;

type Listened = { runId: string; events: RunEventRecord[]; readableSeqs: Promise<number[]> };

interface Harness {
  store: RunStore;
  addRun(status: RunState): Promise<string>;
  /** The run's stored seqs, taken synchronously at the moment of the call. */
  seqsNow(runId: string): Promise<number[]>;
  /** What the listener saw, each with the seqs readable at that moment. */
  heard: Listened[];
  /** The database counters of the run (database backends only). */
  counters?(runId: string): Promise<{ lastSeq: number; stepCount: number; inputTokens: number; outputTokens: number }>;
  /** When the run first started (database backends only). */
  startedAt?(runId: string): Promise<Date | null>;
  /** When it ended and why it failed (database backends only). */
  ending?(runId: string): Promise<{ endedAt: Date | null; errorCode: string | null; errorMessage: string | null }>;
  /** The epochs the store's writes carry (database backends only). */
  held?: HeldRuns;
  /** Sets the run's lease epoch, as a worker taking the run does (database backends only). */
  setLease?(runId: string, epoch: number): Promise<void>;
  cleanup(): Promise<void>;
}

interface Backend {
  name: string;
  make(): Promise<Harness>;
}

type DatabaseKind = "sqlite-direct" | "sqlite-prisma" | "postgres";

/** A database-backed harness: SqliteRunStore (the default on SQLite), or PrismaRunStore on SQLite or PostgreSQL. */
function databaseBackend(name: string, kind: DatabaseKind): Backend {
  return {
    name,
    async make() {
      const pg = kind === "postgres" ? await createPgTestDb(makeTempDir("rein-test-pg-")) : null;
      const t: TestDb = pg ?? (await createSqliteTestDb());
      const native = kind === "sqlite-direct" ? openNativeSqlite(t.url) : null;
      const sync = pg ? null : new BetterSqlite(t.url.slice("file:".length), { readonly: true });
      const seqsNow = pg
        ? async (runId: string) =>
            (await pg.pg.sql(`SELECT seq FROM "RunEvent" WHERE "runId" = $1 ORDER BY seq`, [runId])).rows.map((r) => Number(r.seq))
        : (runId: string) =>
            Promise.resolve(
              (sync!.prepare("SELECT seq FROM RunEvent WHERE runId = ? ORDER BY seq").all(runId) as Array<{ seq: number }>).map(
                (r) => r.seq,
              ),
            );
      const heard: Listened[] = [];
      const listener: EventListener = (runId, events) => heard.push({ runId, events, readableSeqs: seqsNow(runId) });
      const held = new HeldRuns();
      const store = native ? new SqliteRunStore(native, listener, held) : new PrismaRunStore(t.db, listener, held);
      const user = await t.db.user.create({ data: { email: "owner@test.local", name: "owner", passwordHash: "x", role: "operator" } });
      let n = 0;
      return {
        store,
        heard,
        seqsNow,
        held,
        async setLease(runId, epoch) {
          const row = { owner: "worker-test", ownerKey: 1, epoch, expiresAt: new Date(Date.now() + 10_000) };
          await t.db.runLease.upsert({ where: { runId }, create: { runId, ...row }, update: row });
        },
        async addRun(status) {
          const run = await t.db.run.create({
            data: {
              goal: "g",
              agentName: "demo-coder",
              agentVersion: 1,
              model: "scripted/demo-coder",
              createdById: user.id,
              status,
              createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, n++)),
            },
          });
          return run.id;
        },
        async counters(runId) {
          return t.db.run.findUniqueOrThrow({
            where: { id: runId },
            select: { lastSeq: true, stepCount: true, inputTokens: true, outputTokens: true },
          });
        },
        async startedAt(runId) {
          return (await t.db.run.findUniqueOrThrow({ where: { id: runId }, select: { startedAt: true } })).startedAt;
        },
        async ending(runId) {
          return t.db.run.findUniqueOrThrow({ where: { id: runId }, select: { endedAt: true, errorCode: true, errorMessage: true } });
        },
        async cleanup() {
          sync?.close();
          native?.close();
          await t.cleanup();
        },
      };
    },
  };
}

const BACKENDS: Backend[] = [
  databaseBackend("SqliteRunStore (direct, default on SQLite)", "sqlite-direct"),
  databaseBackend("PrismaRunStore", "sqlite-prisma"),
  databaseBackend("PrismaRunStore on PostgreSQL", "postgres"),
  {
    name: "MemoryRunStore",
    async make() {
      const heard: Listened[] = [];
      // listEvents of the memory store reads synchronously when called.
      const seqsNow = (runId: string) => store.listEvents(runId, 0, 1_000_000).then((es) => es.map((e) => e.seq));
      const store: MemoryRunStore = new MemoryRunStore((runId, events) => heard.push({ runId, events, readableSeqs: seqsNow(runId) }));
      let n = 0;
      return {
        store,
        heard,
        seqsNow,
        async addRun(status) {
          const id = `run-${++n}`;
          store.addRun({
            id,
            goal: "g",
            agentName: "demo-coder",
            agentVersion: 1,
            status,
            model: "scripted/demo-coder",
            scenario: null,
            maxSteps: 50,
            createdById: "u",
            teamId: null,
          });
          return id;
        },
        async cleanup() {},
      };
    },
  },
];

function note(i: number, key?: string): NewRunEvent {
  return event("tasks.updated", { tasks: [], notes: `note ${i}` }, key ? { key } : {});
}

function stateAt(step: number): CheckpointState {
  return { ...initialState("demo-coder", "g"), step, usage: { inputTokens: 10 * step, outputTokens: step, cachedInputTokens: 0 } };
}

async function allEvents(store: RunStore, runId: string) {
  return store.listEvents(runId, 0, 100_000);
}

/** A refused transition either throws InvalidTransitionError or returns false. */
async function refusedTransition(p: Promise<boolean>): Promise<boolean> {
  try {
    return !(await p);
  } catch (err) {
    return err instanceof InvalidTransitionError;
  }
}

describe.each(BACKENDS)("event log contract: $name", (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.make();
  });
  afterEach(async () => {
    await h.cleanup();
  });

  it("numbers 50 concurrent appends 1..50 with no gaps or duplicates", async () => {
    const runId = await h.addRun("running");
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => h.store.appendEvents(runId, [note(i)])));
    const returned = results.map((r) => {
      expect(r).toHaveLength(1);
      return r[0].seq;
    });
    const expected = Array.from({ length: 50 }, (_, i) => i + 1);
    expect([...returned].sort((a, b) => a - b)).toEqual(expected);
    const stored = await allEvents(h.store, runId);
    expect(stored.map((e) => e.seq)).toEqual(expected);
    // Each call got the seq its own event was stored under.
    results.forEach((r, i) => {
      const row = stored.find((e) => e.seq === r[0].seq)!;
      expect(row.payload).toEqual({ tasks: [], notes: `note ${i}` });
    });
    if (h.counters) expect((await h.counters(runId)).lastSeq).toBe(50);
  });

  it("numbers the events of one batch consecutively", async () => {
    const runId = await h.addRun("running");
    await h.store.appendEvents(runId, [note(0)]);
    const batch = await h.store.appendEvents(runId, [note(1), note(2), note(3)]);
    expect(batch.map((e) => e.seq)).toEqual([2, 3, 4]);
    expect(batch.map((e) => e.type)).toEqual(["tasks.updated", "tasks.updated", "tasks.updated"]);
    expect(await h.store.appendEvents(runId, [])).toEqual([]);
  });

  it("listEvents(after, limit) returns strictly increasing seqs after the cursor, at most limit of them", async () => {
    const runId = await h.addRun("running");
    const other = await h.addRun("running");
    for (let i = 0; i < 20; i++) await h.store.appendEvents(runId, [note(i)]);
    await h.store.appendEvents(other, [note(99)]);

    const seqs = async (after: number, limit: number) => (await h.store.listEvents(runId, after, limit)).map((e) => e.seq);
    expect(await seqs(5, 7)).toEqual([6, 7, 8, 9, 10, 11, 12]);
    expect(await seqs(0, 100)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(await seqs(18, 10)).toEqual([19, 20]);
    expect(await seqs(20, 10)).toEqual([]);
    expect(await seqs(0, 1)).toEqual([1]);
    const page = await h.store.listEvents(runId, 3, 2);
    expect(page.every((e) => e.runId === runId)).toBe(true);
    expect(page[0]).toMatchObject({ seq: 4, type: "tasks.updated", payload: { tasks: [], notes: "note 3" }, actor: null });
    expect(page[0].createdAt).toBeInstanceOf(Date);
    // Paging with the cursor visits every event once.
    const visited: number[] = [];
    for (let after = 0; ;) {
      const p = await seqs(after, 6);
      if (p.length === 0) break;
      visited.push(...p);
      after = p[p.length - 1];
    }
    expect(visited).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it("stores an event key appended twice once, and keeps the first", async () => {
    const runId = await h.addRun("running");
    const first = await h.store.appendEvents(runId, [event("tasks.updated", { tasks: [], notes: "first" }, { key: "k1" })]);
    const again = await h.store.appendEvents(runId, [event("tasks.updated", { tasks: [], notes: "second" }, { key: "k1" }), note(2)]);
    expect(first.map((e) => e.seq)).toEqual([1]);
    expect(again.map((e) => e.seq)).toEqual([2]); // only the unkeyed event is new
    const stored = await allEvents(h.store, runId);
    expect(stored.map((e) => e.payload)).toEqual([
      { tasks: [], notes: "first" },
      { tasks: [], notes: "note 2" },
    ]);
    // Twice at the same moment: still once.
    await Promise.all([h.store.appendEvents(runId, [note(3, "k2")]), h.store.appendEvents(runId, [note(4, "k2")])]);
    const after = await allEvents(h.store, runId);
    expect(after.map((e) => e.seq)).toEqual([1, 2, 3]);
    if (h.counters) expect((await h.counters(runId)).lastSeq).toBe(3);
  });

  it("stores a key repeated within one batch once, and the rest of the batch", async () => {
    const runId = await h.addRun("running");
    const written = await h.store.appendEvents(runId, [note(1, "dup"), note(2), note(3, "dup")]);
    expect(written.map((e) => e.seq)).toEqual([1, 2]);
    expect((await allEvents(h.store, runId)).map((e) => (e.payload as { notes: string }).notes)).toEqual(["note 1", "note 2"]);
  });

  it("refuses events for a run that does not exist", async () => {
    await expect(h.store.appendEvents("no-such-run", [note(1)])).rejects.toThrow();
    expect(await h.store.listEvents("no-such-run", 0, 10)).toEqual([]);
  });

  it("commitStep writes events, checkpoint and counters together", async () => {
    const runId = await h.addRun("running");
    expect(await h.store.latestCheckpoint(runId)).toBeNull();
    const cp1 = await h.store.commitStep(runId, { events: [], checkpoint: stateAt(0), seq: 1 });
    const cp2 = await h.store.commitStep(runId, { events: [note(1, "a"), note(2, "b")], checkpoint: stateAt(1), seq: 2 });
    expect(cp1.seq).toBe(1);
    expect(cp2.seq).toBe(2);
    expect(cp2.id).not.toBe(cp1.id);
    const latest = await h.store.latestCheckpoint(runId);
    expect(latest).toEqual({ id: cp2.id, seq: 2, state: stateAt(1) });
    expect((await allEvents(h.store, runId)).map((e) => e.seq)).toEqual([1, 2]);
    if (h.counters) expect(await h.counters(runId)).toEqual({ lastSeq: 2, stepCount: 1, inputTokens: 10, outputTokens: 1 });
  });

  it("commitStep is atomic: when the checkpoint cannot be written, none of its events are and lastSeq stays", async () => {
    const runId = await h.addRun("running");
    await h.store.commitStep(runId, { events: [note(1, "a")], checkpoint: stateAt(1), seq: 1 });
    const heardBefore = h.heard.length;
    // Checkpoint 1 exists already: this commit must fail as a whole.
    await expect(h.store.commitStep(runId, { events: [note(2, "b"), note(3)], checkpoint: stateAt(2), seq: 1 })).rejects.toThrow();

    expect((await allEvents(h.store, runId)).map((e) => (e.payload as { notes: string }).notes)).toEqual(["note 1"]);
    const latest = await h.store.latestCheckpoint(runId);
    expect(latest?.seq).toBe(1);
    expect(latest?.state).toEqual(stateAt(1));
    expect(h.heard.length).toBe(heardBefore); // nobody was told about events that do not exist
    if (h.counters) expect(await h.counters(runId)).toEqual({ lastSeq: 1, stepCount: 1, inputTokens: 10, outputTokens: 1 });

    // The log goes on with the next seq: no gap was burnt.
    const next = await h.store.appendEvents(runId, [note(4, "b")]);
    expect(next.map((e) => e.seq)).toEqual([2]);
  });

  it("stores a key appended by many writers at once exactly once, and every other event of theirs", async () => {
    const runId = await h.addRun("running");
    const writes = Array.from({ length: 12 }, (_, i) => h.store.appendEvents(runId, [note(100 + i, "same"), note(i)]));
    const written = (await Promise.all(writes)).flat();
    const stored = await allEvents(h.store, runId);
    expect(stored.filter((e) => (e.payload as { notes: string }).notes.startsWith("note 1")).length).toBeGreaterThanOrEqual(1);
    expect(stored.length).toBe(13);
    expect(stored.map((e) => e.seq)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
    expect(written.length).toBe(13);
  });

  it("tells the listener about events only once they are readable", async () => {
    const runId = await h.addRun("queued");
    await h.store.appendEvents(runId, [note(1)]);
    await h.store.transition(runId, ["queued"], "running");
    await h.store.commitStep(runId, { events: [note(2, "x"), note(3, "y")], checkpoint: stateAt(1), seq: 1 });
    await h.store.commitStep(runId, { events: [], checkpoint: stateAt(1), seq: 2 });
    await h.store.appendEvents(runId, [note(2, "x")]); // already logged: nothing to tell

    expect(h.heard.map((l) => l.events.map((e) => e.seq))).toEqual([[1], [2], [3, 4]]);
    for (const l of h.heard) {
      expect(l.runId).toBe(runId);
      const readable = await l.readableSeqs;
      for (const e of l.events) expect(readable).toContain(e.seq);
    }
    const stored = await allEvents(h.store, runId);
    expect(h.heard.flatMap((l) => l.events).map((e) => ({ seq: e.seq, type: e.type, payload: e.payload }))).toEqual(
      stored.map((e) => ({ seq: e.seq, type: e.type, payload: e.payload })),
    );
  });

  it("transition is compare-and-set: of two concurrent transitions from running, one wins with one run.state event", async () => {
    const runId = await h.addRun("running");
    const results = await Promise.all([
      h.store.transition(runId, ["running"], "paused", { reason: "pause" }),
      h.store.transition(runId, ["running"], "canceled", { reason: "cancel" }),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results[0] ? "paused" : "canceled";
    expect((await h.store.getRun(runId))?.status).toBe(winner);
    const states = (await allEvents(h.store, runId)).filter((e) => e.type === "run.state");
    expect(states).toHaveLength(1);
    expect(states[0].payload).toMatchObject({ from: "running", to: winner });
  });

  it("lets exactly one of many concurrent transitions win", async () => {
    const runId = await h.addRun("running");
    const targets: RunState[] = ["succeeded", "failed", "canceled", "paused", "waiting_human", "succeeded", "failed", "canceled"];
    const results = await Promise.all(targets.map((to) => h.store.transition(runId, ["running"], to)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await allEvents(h.store, runId)).filter((e) => e.type === "run.state")).toHaveLength(1);
  });

  it("records a transition with its reason, error and actor, and refuses one from another state", async () => {
    const runId = await h.addRun("running");
    const error = { code: "STEP_LIMIT", message: "too many steps" };
    expect(await h.store.transition(runId, ["running"], "failed", { reason: "limit", error }, "user-1")).toBe(true);
    expect(await h.store.transition(runId, ["running"], "succeeded")).toBe(false);
    expect((await h.store.getRun(runId))?.status).toBe("failed");
    const states = (await allEvents(h.store, runId)).filter((e) => e.type === "run.state");
    expect(states).toHaveLength(1);
    expect(states[0]).toMatchObject({ actor: "user-1", payload: { from: "running", to: "failed", reason: "limit", error } });
    expect(await h.store.transition("no-such-run", ["running"], "paused")).toBe(false);
  });

  it.each([
    ["succeeded", "running"],
    ["canceled", "running"],
    ["failed", "succeeded"],
  ] as Array<[RunState, RunState]>)("refuses %s -> %s (an ended run only goes back to the queue) and changes nothing", async (from, to) => {
    const runId = await h.addRun(from);
    expect(await refusedTransition(h.store.transition(runId, [from], to))).toBe(true);
    expect((await h.store.getRun(runId))?.status).toBe(from);
    expect(await allEvents(h.store, runId)).toEqual([]);
  });

  it("lists run ids by state, oldest first", async () => {
    const a = await h.addRun("running");
    const b = await h.addRun("queued");
    const c = await h.addRun("running");
    await h.addRun("succeeded");
    expect(await h.store.runIdsIn(["running"])).toEqual([a, c]);
    expect(await h.store.runIdsIn(["queued", "running"])).toEqual([a, b, c]);
    expect(await h.store.runIdsIn(["paused"])).toEqual([]);
    expect(await h.store.getRun("no-such-run")).toBeNull();
  });
});

describe("PrismaRunStore on the database", () => {
  let t: TestDb;
  beforeEach(async () => {
    t = await createTestDb();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("stamps startedAt, endedAt and the error columns on transitions", async () => {
    const store = new PrismaRunStore(t.db);
    const user = await t.db.user.create({ data: { email: "u@test.local", name: "u", passwordHash: "x" } });
    const run = await t.db.run.create({ data: { goal: "g", agentName: "a", agentVersion: 1, model: "m", createdById: user.id } });
    const cols = () =>
      t.db.run.findUniqueOrThrow({
        where: { id: run.id },
        select: { status: true, statusReason: true, errorCode: true, errorMessage: true, startedAt: true, endedAt: true },
      });
    expect(await store.transition(run.id, ["queued"], "running")).toBe(true);
    expect(await cols()).toMatchObject({ status: "running", startedAt: expect.any(Date), endedAt: null, errorCode: null });
    expect(await store.transition(run.id, ["running"], "failed", { reason: "r", error: { code: "E", message: "m" } })).toBe(true);
    expect(await cols()).toMatchObject({
      status: "failed",
      statusReason: "r",
      errorCode: "E",
      errorMessage: "m",
      endedAt: expect.any(Date),
    });
    // A person retries it: it has not ended any more, and its error is history (the run.state event keeps it).
    expect(await store.transition(run.id, ["failed"], "queued", { reason: "Retried" })).toBe(true);
    expect(await cols()).toMatchObject({
      status: "queued",
      statusReason: "Retried",
      errorCode: null,
      errorMessage: null,
      endedAt: null,
      startedAt: expect.any(Date),
    });
  });

  it("keeps a stored scenario on the run record", async () => {
    const store = new PrismaRunStore(t.db);
    const user = await t.db.user.create({ data: { email: "u@test.local", name: "u", passwordHash: "x" } });
    const run = await t.db.run.create({
      data: {
        goal: "g",
        agentName: "a",
        agentVersion: 3,
        model: "m",
        createdById: user.id,
        scenario: JSON.stringify([{ text: "hi" }]),
        maxSteps: 7,
      },
    });
    expect(await store.getRun(run.id)).toMatchObject({
      id: run.id,
      agentVersion: 3,
      status: "queued",
      maxSteps: 7,
      scenario: { turns: [{ text: "hi" }] },
      createdById: user.id,
    });
  });
});

describe.each(BACKENDS.filter((b) => b.name !== "MemoryRunStore"))("run timing on the database: $name", (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.make();
  });
  afterEach(async () => {
    await h.cleanup();
  });

  it("keeps the first start of a run that pauses and runs again, so its duration counts from there", async () => {
    const runId = await h.addRun("queued");
    expect(await h.store.transition(runId, ["queued"], "running")).toBe(true);
    const first = await h.startedAt!(runId);
    expect(first).toBeInstanceOf(Date);
    await new Promise((r) => setTimeout(r, 20));
    expect(await h.store.transition(runId, ["running"], "paused")).toBe(true);
    expect(await h.store.transition(runId, ["paused"], "queued")).toBe(true);
    expect(await h.store.transition(runId, ["queued"], "running")).toBe(true);
    expect((await h.startedAt!(runId))?.getTime()).toBe(first!.getTime());
  });

  it("a failed run a person retries has not ended any more: its end and error are cleared, its start kept", async () => {
    const runId = await h.addRun("queued");
    expect(await h.store.transition(runId, ["queued"], "running")).toBe(true);
    const first = await h.startedAt!(runId);
    expect(await h.store.transition(runId, ["running"], "failed", { reason: "limit", error: { code: "STEP_LIMIT", message: "m" } })).toBe(
      true,
    );
    expect(await h.ending!(runId)).toMatchObject({ endedAt: expect.any(Date), errorCode: "STEP_LIMIT" });
    expect(await h.store.transition(runId, ["failed"], "queued", { reason: "Retried" })).toBe(true);
    expect(await h.ending!(runId)).toEqual({ endedAt: null, errorCode: null, errorMessage: null });
    expect(await h.store.transition(runId, ["queued"], "running")).toBe(true);
    expect((await h.startedAt!(runId))?.getTime()).toBe(first!.getTime());
  });
});

describe.each(BACKENDS.filter((b) => b.name !== "MemoryRunStore"))("fencing: $name", (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.make();
  });
  afterEach(async () => {
    await h.cleanup();
  });

  it("writes while this process holds the run's epoch", async () => {
    const runId = await h.addRun("queued");
    await h.setLease!(runId, 1);
    h.held!.hold(runId, 1);
    expect(await h.store.transition(runId, ["queued"], "running")).toBe(true);
    await h.store.appendEvents(runId, [note(1)]);
    await h.store.commitStep(runId, { events: [note(2)], checkpoint: stateAt(1), seq: 1 });
    expect(await h.seqsNow(runId)).toEqual([1, 2, 3]);
  });

  it("refuses every write once another worker took the run, and writes none of it", async () => {
    const runId = await h.addRun("queued");
    await h.setLease!(runId, 1);
    h.held!.hold(runId, 1);
    expect(await h.store.transition(runId, ["queued"], "running")).toBe(true);
    await h.setLease!(runId, 2); // taken over
    const heardBefore = h.heard.length;
    const lost = async (p: Promise<unknown>) => {
      const err = await p.then(
        () => null,
        (e: unknown) => e,
      );
      expect(isLeaseLost(err), String(err)).toBe(true);
    };
    await lost(h.store.appendEvents(runId, [note(1)]));
    await lost(h.store.commitStep(runId, { events: [note(2)], checkpoint: stateAt(1), seq: 1 }));
    await lost(h.store.transition(runId, ["running"], "failed", { reason: "stale" }));
    expect(await h.seqsNow(runId)).toEqual([1]);
    expect(await h.store.latestCheckpoint(runId)).toBeNull();
    expect((await h.store.getRun(runId))?.status).toBe("running");
    expect(h.heard.length).toBe(heardBefore);
    if (h.counters) expect((await h.counters(runId)).lastSeq).toBe(1);
  });

  it("refuses a write for a held run whose lease row is gone", async () => {
    const runId = await h.addRun("running");
    h.held!.hold(runId, 3);
    const err = await h.store.appendEvents(runId, [note(1)]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isLeaseLost(err)).toBe(true);
    expect(await h.seqsNow(runId)).toEqual([]);
  });

  it("writes unfenced for a run this process does not hold (an operator's click on a web process)", async () => {
    const runId = await h.addRun("running");
    await h.setLease!(runId, 5);
    await h.store.appendEvents(runId, [note(1)]);
    expect(await h.seqsNow(runId)).toEqual([1]);
  });

  it("of a takeover racing 20 writes of the old holder, every write after the takeover is refused", async () => {
    const runId = await h.addRun("running");
    await h.setLease!(runId, 1);
    h.held!.hold(runId, 1);
    let takenAt = -1;
    const writes = Array.from({ length: 20 }, (_, i) =>
      h.store.appendEvents(runId, [note(i)]).then(
        (w) => ({ ok: true as const, seq: w[0]!.seq }),
        (e: unknown) => ({ ok: false as const, lost: isLeaseLost(e) }),
      ),
    );
    const takeover = new Promise((r) => setTimeout(r, 5)).then(async () => {
      await h.setLease!(runId, 2);
      takenAt = (await h.seqsNow(runId)).length;
    });
    const results = await Promise.all(writes);
    await takeover;
    const ok = results.filter((r) => r.ok);
    expect(results.filter((r) => !r.ok).every((r) => !r.ok && r.lost)).toBe(true);
    // Nothing lands after the takeover: what is stored now is what was stored when it committed.
    expect((await h.seqsNow(runId)).length).toBe(ok.length);
    expect(ok.length).toBe(takenAt);
    const after = await h.store.appendEvents(runId, [note(99)]).then(
      () => "written",
      (e: unknown) => (isLeaseLost(e) ? "lost" : String(e)),
    );
    expect(after).toBe("lost");
  });
});
