// The SpanSink contract: SqliteSpanSink (a direct connection) and PgSpanSink
// (PostgreSQL through the client) run the same cases. A span is stored once;
// a model call counts in the cost rollups once, a tool or request span in the
// span rollups once (when it ends), however often and by however many writers
// it is written; Run.costUsd follows the run span and tracedSeq only moves on.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openDb, openNativeSqlite, type Db, type NativeSqlite } from "@/server/db";
import { createTestDb, makeTempDir, type TestDb } from "@/test/helpers/db";
import { createPgTestDb } from "@/test/helpers/pg";
import { listRunSpans } from "./queries";
import { PgSpanSink } from "./pg-sink";
import { SqliteSpanSink } from "./sqlite-sink";
import type { SpanRecord, SpanSink } from "./types";

interface Backend {
  name: string;
  open(): Promise<{
    t: TestDb;
    sink: SpanSink;
    /** A second writer on connections of its own, as another process has. */ second(): Promise<{ sink: SpanSink; close(): Promise<void> }>;
    close(): void;
  }>;
}

const BACKENDS: Backend[] = [
  {
    name: "SQLite",
    async open() {
      const t = await createTestDb();
      const natives: NativeSqlite[] = [openNativeSqlite(t.url)];
      return {
        t,
        sink: new SqliteSpanSink(natives[0]),
        async second() {
          const native = openNativeSqlite(t.url);
          natives.push(native);
          return { sink: new SqliteSpanSink(native), close: async () => void native.close() };
        },
        close: () => natives.forEach((n) => n.open && n.close()),
      };
    },
  },
  {
    name: "PostgreSQL",
    async open() {
      const t = await createPgTestDb(makeTempDir("rein-test-pg-"));
      return {
        t,
        sink: new PgSpanSink(t.db),
        async second() {
          const db: Db = await openDb(t.url, { poolMax: 4 });
          return { sink: new PgSpanSink(db), close: () => db.$disconnect() };
        },
        close() {},
      };
    },
  },
];

const DAY1 = "2026-03-01";
const at = (day: string, ms: number) => new Date(new Date(`${day}T10:00:00.000Z`).getTime() + ms);

function span(runId: string, spanId: string, kind: SpanRecord["kind"], over: Partial<SpanRecord> = {}): SpanRecord {
  return {
    spanId,
    traceId: `trace-${runId}`,
    parentSpanId: kind === "run" ? null : `${runId}-run`,
    runId,
    kind,
    name: `${kind} ${spanId}`,
    startTime: at(DAY1, 0),
    endTime: null,
    status: "unset",
    teamId: "team-a",
    workflowId: "demo-coder",
    userId: "u1",
    model: null,
    tool: null,
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    costUsd: 0,
    attributes: { "rein.run_id": runId },
    detail: null,
    ...over,
  };
}

const chat = (runId: string, n: number, over: Partial<SpanRecord> = {}) =>
  span(runId, `${runId}-chat-${n}`, "chat", {
    model: "openai/gpt-x",
    startTime: at(DAY1, n * 1000),
    endTime: at(DAY1, n * 1000 + 300),
    status: "ok",
    inputTokens: 1000,
    outputTokens: 100,
    cachedInputTokens: 10,
    costUsd: 0.00125,
    detail: { output: { text: `turn ${n}` } },
    ...over,
  });

const tool = (runId: string, n: number, ended: boolean, over: Partial<SpanRecord> = {}) =>
  span(runId, `${runId}-tool-${n}`, "execute_tool", {
    tool: "shell",
    startTime: at(DAY1, n * 1000 + 400),
    ...(ended ? { endTime: at(DAY1, n * 1000 + 420), status: "ok" as const } : {}),
    ...over,
  });

describe.each(BACKENDS)("SpanSink on $name", (backend) => {
  let h: Awaited<ReturnType<Backend["open"]>>;
  let db: Db;
  let userId: string;

  beforeAll(async () => {
    h = await backend.open();
    db = h.t.db;
    userId = (await db.user.create({ data: { email: "sink@test.local", name: "sink", passwordHash: "x", role: "operator" } })).id;
  });
  afterAll(async () => {
    h?.close();
    await h?.t.cleanup();
  });
  beforeEach(async () => {
    await db.span.deleteMany();
    await db.costRollup.deleteMany();
    await db.spanRollup.deleteMany();
    await db.run.deleteMany();
  });

  async function addRun(lastSeq = 10): Promise<string> {
    const run = await db.run.create({
      data: { goal: "g", agentName: "demo-coder", agentVersion: 1, model: "openai/gpt-x", createdById: userId, status: "running", lastSeq },
    });
    return run.id;
  }
  const rollups = () => db.costRollup.findMany({ orderBy: [{ day: "asc" }, { teamId: "asc" }, { workflowId: "asc" }, { model: "asc" }] });
  const spanRollups = () => db.spanRollup.findMany({ orderBy: [{ day: "asc" }, { kind: "asc" }, { name: "asc" }, { bucket: "asc" }] });

  it("stores a span as written: times to the millisecond, attributes and detail", async () => {
    const runId = await addRun();
    const c = chat(runId, 1, {
      startTime: new Date("2026-03-01T10:00:00.123Z"),
      endTime: new Date("2026-03-01T10:00:01.789Z"),
      attributes: { "rein.run_id": runId, "rein.step": 1, "rein.model.scripted": false },
    });
    await h.sink.write([c, tool(runId, 1, false)], []);
    const { traceId, spans } = await listRunSpans(db, runId);
    expect(traceId).toBe(`trace-${runId}`);
    expect(spans.map((s) => s.spanId)).toEqual([c.spanId, `${runId}-tool-1`]);
    expect(spans[0]).toMatchObject({
      kind: "chat",
      model: "openai/gpt-x",
      startTime: c.startTime,
      endTime: c.endTime,
      status: "ok",
      inputTokens: 1000,
      outputTokens: 100,
      cachedInputTokens: 10,
      costUsd: 0.00125,
    });
    expect(spans[0].attributes).toEqual(c.attributes);
    expect(spans[1]).toMatchObject({ kind: "execute_tool", tool: "shell", endTime: null, status: "unset" });
    const stored = await db.span.findUniqueOrThrow({ where: { runId_spanId: { runId, spanId: c.spanId } } });
    expect(JSON.parse(stored.detail!)).toEqual(c.detail);
  });

  it("counts a model call once in the cost and span rollups, written again in the same batch or later", async () => {
    const runId = await addRun();
    const calls = [chat(runId, 1), chat(runId, 2), chat(runId, 3, { model: "anthropic/claude-y", costUsd: 0.5, status: "error" })];
    await h.sink.write([...calls, calls[0]], []);
    await h.sink.write(calls, []);
    await h.sink.write([{ ...calls[1], costUsd: 99 }], []);
    expect(await db.span.count()).toBe(3);
    const rows = await rollups();
    expect(rows.map((r) => [r.day, r.teamId, r.workflowId, r.model, r.calls, r.inputTokens, r.outputTokens, r.cachedInputTokens])).toEqual([
      [DAY1, "team-a", "demo-coder", "anthropic/claude-y", 1, 1000, 100, 10],
      [DAY1, "team-a", "demo-coder", "openai/gpt-x", 2, 2000, 200, 20],
    ]);
    expect(rows[0].costUsd).toBeCloseTo(0.5, 10);
    expect(rows[1].costUsd).toBeCloseTo(0.0025, 10);
    // 300 ms: bucket floor(log2(300)) + 1 = 9.
    expect((await spanRollups()).map((r) => [r.kind, r.name, r.bucket, r.count, r.errors])).toEqual([
      ["chat", "anthropic/claude-y", 9, 1, 1],
      ["chat", "openai/gpt-x", 9, 2, 0],
    ]);
  });

  it("rolls model calls up per UTC day, team (none is empty) and workflow", async () => {
    const runId = await addRun();
    await h.sink.write(
      [
        chat(runId, 1),
        chat(runId, 2, { startTime: new Date("2026-03-01T23:59:59.900Z"), endTime: new Date("2026-03-02T00:00:00.100Z") }),
        chat(runId, 3, { startTime: new Date("2026-03-02T00:00:00.000Z"), endTime: new Date("2026-03-02T00:00:00.000Z") }),
        chat(runId, 4, { teamId: null }),
        chat(runId, 5, { workflowId: "eval:demo" }),
      ],
      [],
    );
    expect((await rollups()).map((r) => [r.day, r.teamId, r.workflowId, r.calls])).toEqual([
      ["2026-03-01", "", "demo-coder", 1],
      ["2026-03-01", "team-a", "demo-coder", 2],
      ["2026-03-01", "team-a", "eval:demo", 1],
      ["2026-03-02", "team-a", "demo-coder", 1],
    ]);
    expect((await spanRollups()).find((r) => r.day === "2026-03-02")).toMatchObject({ bucket: 0, count: 1 });
  });

  it("counts a tool or request span when it ends, once: written open, ended, ended again", async () => {
    const runId = await addRun();
    const open = tool(runId, 1, false);
    const request = span(runId, `${runId}-human-1`, "human_request", { attributes: { "rein.human_request.kind": "approval" } });
    await h.sink.write([open, request], []);
    expect(await spanRollups()).toEqual([]);
    const ended = tool(runId, 1, true, { status: "error" });
    const decided = { ...request, endTime: at(DAY1, 5000), status: "ok" as const };
    await h.sink.write([ended, decided], []);
    await h.sink.write([ended, decided], []);
    // A lagging writer's open version does not reopen them, so ending them again counts nothing.
    await h.sink.write([open, request], []);
    await h.sink.write([ended, decided], []);
    // Open and ended in one batch: the ended version is what is written, counted once.
    await h.sink.write([tool(runId, 2, false), tool(runId, 2, true)], []);
    expect((await spanRollups()).map((r) => [r.kind, r.name, r.bucket, r.count, r.errors])).toEqual([
      ["execute_tool", "shell", 5, 2, 1],
      ["human_request", "approval", 13, 1, 0],
    ]);
    const stored = await db.span.findUniqueOrThrow({ where: { runId_spanId: { runId, spanId: open.spanId } } });
    expect(stored).toMatchObject({ status: "error", endTime: ended.endTime });
    expect(await db.costRollup.count()).toBe(0);
  });

  it("replaces run, agent and other spans with their latest version, without counting them", async () => {
    const runId = await addRun();
    const tier = span(runId, `${runId}-tier-1`, "tier", { endTime: at(DAY1, 50), status: "ok" });
    await h.sink.write([span(runId, `${runId}-run`, "run"), span(runId, `${runId}-agent`, "invoke_agent"), tier], []);
    await h.sink.write(
      [span(runId, `${runId}-run`, "run", { endTime: at(DAY1, 9000), status: "ok", name: "run done" }), { ...tier, name: "tier moved" }],
      [],
    );
    const stored = await db.span.findMany({ orderBy: { spanId: "asc" } });
    expect(stored.map((s) => [s.kind, s.name, s.status])).toEqual([
      ["invoke_agent", `invoke_agent ${runId}-agent`, "unset"],
      ["run", "run done", "ok"],
      ["tier", "tier moved", "ok"],
    ]);
    expect(await spanRollups()).toEqual([]);
  });

  it("sets the run's cost from its run span and moves tracedSeq only forward", async () => {
    const runId = await addRun(12);
    const other = await addRun(3);
    await h.sink.write([span(runId, `${runId}-run`, "run", { costUsd: 0.25 })], [{ runId, seq: 7 }]);
    let run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    expect([run.costUsd, run.tracedSeq]).toEqual([0.25, 7]);
    await h.sink.write(
      [span(runId, `${runId}-run`, "run", { costUsd: 0.75 })],
      [
        { runId, seq: 4 },
        { runId: other, seq: 3 },
      ],
    );
    run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    expect([run.costUsd, run.tracedSeq]).toEqual([0.75, 7]);
    await h.sink.write([], [{ runId, seq: 12 }]);
    expect((await db.run.findUniqueOrThrow({ where: { id: runId } })).tracedSeq).toBe(12);
    expect(await db.run.findUniqueOrThrow({ where: { id: other } })).toMatchObject({ tracedSeq: 3, costUsd: 0 });
  });

  it("writes a batch whole or not at all", async () => {
    const runId = await addRun();
    // Attributes that cannot be stored (JSON has no BigInt): the batch's model call before it is not kept either.
    const bad = span(runId, `${runId}-run`, "run", { attributes: { big: 1n as unknown as number } });
    await expect(h.sink.write([chat(runId, 1), bad], [{ runId, seq: 5 }])).rejects.toThrow(/BigInt/);
    expect(await db.span.count()).toBe(0);
    expect(await db.costRollup.count()).toBe(0);
    expect((await db.run.findUniqueOrThrow({ where: { id: runId } })).tracedSeq).toBe(0);
  });

  it("two writers projecting the same runs at once count every span once", async () => {
    const second = await h.second();
    try {
      const runs = await Promise.all([1, 2, 3, 4].map(() => addRun()));
      const batches = (order: 1 | -1) =>
        runs.flatMap((runId) => {
          const calls = [1, 2, 3, 4, 5].map((n) => chat(runId, n));
          const opened = [1, 2, 3].map((n) => tool(runId, n, false));
          const ended = [1, 2, 3].map((n) => tool(runId, n, true));
          const run = span(runId, `${runId}-run`, "run", { costUsd: 0.00625 });
          const all = [
            [...calls.slice(0, 3), ...opened, run],
            [...calls.slice(3), ...ended, run],
          ];
          return order === 1 ? all : all.map((b) => [...b].reverse());
        });
      const writeAll = async (sink: SpanSink, order: 1 | -1) => {
        const list = order === 1 ? batches(1) : batches(-1).reverse();
        for (const b of list) await sink.write(b, [{ runId: b[0].runId, seq: 10 }]);
      };
      for (let round = 0; round < 3; round++) await Promise.all([writeAll(h.sink, 1), writeAll(second.sink, -1)]);
      expect(await db.span.count()).toBe(runs.length * (5 + 3 + 1));
      const [rollup] = await rollups();
      expect(rollup.calls).toBe(runs.length * 5);
      expect(rollup.inputTokens).toBe(runs.length * 5 * 1000);
      expect(rollup.costUsd).toBeCloseTo(runs.length * 5 * 0.00125, 10);
      const counts = Object.fromEntries((await spanRollups()).map((r) => [r.kind, r.count]));
      expect(counts).toEqual({ chat: runs.length * 5, execute_tool: runs.length * 3 });
      for (const r of await db.run.findMany()) expect([r.costUsd, r.tracedSeq]).toEqual([0.00625, 10]);
    } finally {
      await second.close();
    }
  });
});
