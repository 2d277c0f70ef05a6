// SqliteSpanSink writes a batch with a few multi-row statements; it must leave
// the tables exactly as writing the spans one statement at a time did (the
// sink before it, kept here as RowByRowSink): the same span rows, the same
// rollups, the same run totals, for batches with a span twice (opened then
// ended, ended then opened again, a model call twice), re-projected batches, a
// span ended in a later batch, one span id in two runs (a span is known by its
// run and its id: two spans), and random mixes of all of these.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openNativeSqlite, withBusyRetry, type NativeSqlite } from "@/server/db";
import { createSqliteTestDb, type TestDb } from "@/test/helpers/db";
import { planBatch } from "./span-batch";
import { KEEPS_ENDED, SPAN_COLUMNS, spanKey, spanRollupKey, spanRow } from "./span-rows";
import { SqliteSpanSink } from "./sqlite-sink";
import type { SpanRecord, SpanSink } from "./types";

const iso = (d: Date | null) => (d ? d.toISOString().replace("Z", "+00:00") : null);

/** The sink as it was: every span its own statements. */
class RowByRowSink implements SpanSink {
  constructor(private readonly db: NativeSqlite) {}

  async write(spans: SpanRecord[], traced: Array<{ runId: string; seq: number }>): Promise<void> {
    const db = this.db;
    const cols = SPAN_COLUMNS.map((c) => `"${c}"`).join(", ");
    const marks = SPAN_COLUMNS.map(() => "?").join(", ");
    const updates = SPAN_COLUMNS.filter((c) => c !== "spanId" && c !== "runId")
      .map((c) => `"${c}" = excluded."${c}"`)
      .join(", ");
    const insertOnce = db.prepare(`INSERT OR IGNORE INTO "Span" (${cols}) VALUES (${marks})`);
    const upsert = db.prepare(
      `INSERT INTO "Span" (${cols}) VALUES (${marks}) ON CONFLICT("runId", "spanId") DO UPDATE SET ${updates} WHERE ${KEEPS_ENDED}`,
    );
    const rollup = db.prepare(
      `INSERT INTO "CostRollup" (day, teamId, workflowId, model, calls, inputTokens, outputTokens, cachedInputTokens, costUsd) VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?)
       ON CONFLICT(day, teamId, workflowId, model) DO UPDATE SET calls = calls + 1, inputTokens = inputTokens + excluded.inputTokens,
         outputTokens = outputTokens + excluded.outputTokens, cachedInputTokens = cachedInputTokens + excluded.cachedInputTokens, costUsd = costUsd + excluded.costUsd`,
    );
    const spanRollup = db.prepare(
      `INSERT INTO "SpanRollup" (day, kind, name, bucket, count, errors) VALUES (?, ?, ?, ?, 1, ?)
       ON CONFLICT(day, kind, name, bucket) DO UPDATE SET count = count + 1, errors = errors + excluded.errors`,
    );
    const endedBefore = db.prepare(`SELECT endTime FROM "Span" WHERE runId = ? AND spanId = ?`).pluck();
    const countEnded = (s: SpanRecord) => spanRollup.run(...spanRollupKey(s), s.status === "error" ? 1 : 0);
    const tx = db.transaction(() => {
      for (const s of spans) {
        if (s.kind === "chat") {
          if (insertOnce.run(...spanRow(s, iso)).changes === 1) {
            rollup.run(
              s.startTime.toISOString().slice(0, 10),
              s.teamId ?? "",
              s.workflowId,
              s.model ?? "",
              s.inputTokens,
              s.outputTokens,
              s.cachedInputTokens,
              s.costUsd,
            );
            countEnded(s);
          }
        } else {
          const wasEnded = s.kind !== "run" && s.kind !== "invoke_agent" && s.endTime !== null && endedBefore.get(s.runId, s.spanId);
          upsert.run(...spanRow(s, iso));
          if (s.kind === "run") db.prepare(`UPDATE "Run" SET costUsd = ? WHERE id = ?`).run(s.costUsd, s.runId);
          if ((s.kind === "execute_tool" || s.kind === "human_request") && s.endTime && !wasEnded) countEnded(s);
        }
      }
      for (const t of traced) db.prepare(`UPDATE "Run" SET tracedSeq = MAX(tracedSeq, ?) WHERE id = ?`).run(t.seq, t.runId);
    });
    await withBusyRetry(() => tx());
  }
}

const T0 = new Date("2026-03-01T23:59:58.000Z").getTime();

function span(runId: string, id: string, kind: SpanRecord["kind"], version: number, over: Partial<SpanRecord> = {}): SpanRecord {
  const ended = over.endTime !== undefined ? over.endTime : kind === "chat" || version > 0 ? new Date(T0 + 700 * (version + 1)) : null;
  return {
    spanId: `${runId}-${id}`,
    traceId: `trace-${runId}`,
    parentSpanId: kind === "run" ? null : `${runId}-run`,
    runId,
    kind,
    name: `${kind} v${version}`,
    startTime: new Date(T0 + (id.length % 3) * 1000),
    endTime: ended,
    status: ended ? (version % 3 === 2 ? "error" : "ok") : "unset",
    teamId: version % 2 ? "team-a" : null,
    workflowId: "wf",
    userId: "u1",
    model: kind === "chat" ? `m-${version % 2}` : null,
    tool: kind === "execute_tool" ? "shell" : null,
    inputTokens: 100 + version,
    outputTokens: 10 + version,
    cachedInputTokens: version,
    costUsd: 0.001 * (version + 1),
    attributes: { "rein.human_request.kind": "approval", v: version },
    detail: version % 2 ? { output: `v${version}` } : null,
    ...over,
  };
}

/** Every table the sinks write, as comparable rows. */
function tables(db: NativeSqlite) {
  const costs = db.prepare(`SELECT * FROM "CostRollup" ORDER BY day, teamId, workflowId, model`).all() as Array<Record<string, unknown>>;
  return {
    spans: db.prepare(`SELECT * FROM "Span" ORDER BY runId, spanId`).all(),
    costs: costs.map(({ costUsd, ...rest }) => ({ ...rest, costUsd: Math.round(Number(costUsd) * 1e9) })),
    spanRollups: db.prepare(`SELECT * FROM "SpanRollup" ORDER BY day, kind, name, bucket`).all(),
    runs: db.prepare(`SELECT id, costUsd, tracedSeq FROM "Run" ORDER BY id`).all(),
  };
}

describe("SqliteSpanSink writes a batch as span-by-span writes did", () => {
  let dbs: TestDb[];
  let natives: NativeSqlite[];
  let batched: SpanSink;
  let rowByRow: SpanSink;
  const RUNS = ["r1", "r2"];

  beforeEach(async () => {
    dbs = [await createSqliteTestDb(), await createSqliteTestDb()];
    natives = dbs.map((t) => openNativeSqlite(t.url));
    for (const native of natives) {
      native
        .prepare(`INSERT INTO "User" (id, email, name, passwordHash, role) VALUES ('u1', 'u1@test.local', 'u1', 'x', 'operator')`)
        .run();
      for (const id of RUNS)
        native
          .prepare(
            `INSERT INTO "Run" (id, goal, agentName, agentVersion, createdById, model, updatedAt) VALUES (?, 'g', 'a', 1, 'u1', 'm', '2026-03-01T00:00:00.000+00:00')`,
          )
          .run(id);
    }
    batched = new SqliteSpanSink(natives[0]);
    rowByRow = new RowByRowSink(natives[1]);
  });
  afterEach(async () => {
    for (const n of natives) n.close();
    for (const t of dbs) await t.cleanup();
  });

  async function both(batches: Array<[SpanRecord[], Array<{ runId: string; seq: number }>]>) {
    for (const [spans, traced] of batches) {
      await batched.write(spans, traced);
      await rowByRow.write(spans, traced);
    }
    const [got, want] = natives.map(tables);
    expect(got).toEqual(want);
    return got;
  }

  it("a span twice in one batch: opened then ended, ended then opened, a model call twice, a run span twice", async () => {
    const got = await both([
      [
        [
          span("r1", "tool", "execute_tool", 0),
          span("r1", "tool", "execute_tool", 1),
          span("r1", "req", "human_request", 1),
          span("r1", "req", "human_request", 0),
          span("r1", "chat", "chat", 0),
          span("r1", "chat", "chat", 1),
          span("r1", "run", "run", 0),
          span("r1", "run", "run", 1, { costUsd: 0.5 }),
          span("r1", "agent", "invoke_agent", 1),
          span("r1", "agent", "invoke_agent", 0),
        ],
        [
          { runId: "r1", seq: 4 },
          { runId: "r1", seq: 2 },
        ],
      ],
    ]);
    expect(got.spanRollups.map((r) => (r as { count: number }).count).reduce((a, b) => a + b, 0)).toBe(3);
    expect(got.runs[0]).toEqual({ id: "r1", costUsd: 0.5, tracedSeq: 4 });
  });

  it("re-projected batches, spans ended in a later batch, a model call written again with other values", async () => {
    const first: SpanRecord[] = [
      span("r1", "run", "run", 0),
      span("r1", "tool", "execute_tool", 0),
      span("r1", "chat", "chat", 0),
      span("r2", "req", "human_request", 0),
    ];
    const second: SpanRecord[] = [
      span("r1", "tool", "execute_tool", 2),
      span("r2", "req", "human_request", 1),
      span("r1", "chat", "chat", 3),
      span("r1", "run", "run", 1),
    ];
    await both([
      [first, [{ runId: "r1", seq: 3 }]],
      [first, [{ runId: "r1", seq: 3 }]],
      [
        second,
        [
          { runId: "r1", seq: 6 },
          { runId: "r2", seq: 1 },
        ],
      ],
      [[...first, ...second], []],
      [second, [{ runId: "r1", seq: 5 }]],
      [[], [{ runId: "r2", seq: 9 }]],
    ]);
  });

  it("random mixes of versions, duplicates and re-writes", async () => {
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const kinds: SpanRecord["kind"][] = ["run", "invoke_agent", "chat", "execute_tool", "human_request", "tier"];
    const pool = RUNS.flatMap((runId) =>
      kinds.flatMap((kind) =>
        ["a", "bb", "ccc"].flatMap((id) => [0, 1, 2, 3].map((v) => span(runId, `${kind}-${id}`, kind === "run" ? "run" : kind, v))),
      ),
    );
    const batches: Array<[SpanRecord[], Array<{ runId: string; seq: number }>]> = [];
    for (let b = 0; b < 40; b++) {
      const size = Math.floor(random() * 30);
      batches.push([
        Array.from({ length: size }, () => pool[Math.floor(random() * pool.length)]),
        random() < 0.5 ? [{ runId: RUNS[b % 2], seq: Math.floor(random() * 20) }] : [],
      ]);
    }
    const got = await both(batches);
    expect(got.spans.length).toBeGreaterThan(20);
    expect(got.costs.length).toBeGreaterThan(0);
  });

  it("one span id in two runs: two spans, each counted, neither written over the other", async () => {
    const twin = (runId: string, kind: SpanRecord["kind"], version: number) => span(runId, "same", kind, version, { spanId: "same-id" });
    const got = await both([
      [[twin("r1", "chat", 0), twin("r2", "chat", 1), twin("r1", "chat", 2)], []],
      [[twin("r2", "chat", 3), twin("r1", "chat", 1)], []],
    ]);
    expect(got.spans.map((s) => [(s as SpanRecord).runId, (s as SpanRecord).spanId, (s as SpanRecord).kind])).toEqual([
      ["r1", "same-id", "chat"],
      ["r2", "same-id", "chat"],
    ]);
    expect(got.costs.reduce((n, c) => n + Number((c as Record<string, unknown>).calls), 0)).toBe(2);
  });

  it("reads and writes stored spans through the table's key, not a scan", () => {
    const plans = [
      `SELECT "runId", "spanId", "kind", "endTime" IS NOT NULL AS ended FROM "Span"
       WHERE ("runId", "spanId") IN (SELECT value ->> 0, value ->> 1 FROM json_each('[["r1","x"]]'))`,
      `UPDATE "Span" SET "name" = 'n' WHERE "runId" = 'r1' AND "spanId" = 'x'`,
    ].map((sql) => (natives[0].prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>).map((r) => r.detail).join("; "));
    for (const plan of plans) {
      expect(plan).toMatch(/SEARCH Span USING INDEX sqlite_autoindex_Span_1 \(runId=\? AND spanId=\?\)/);
      expect(plan).not.toMatch(/SCAN Span/);
    }
  });

  it("fails a batch with a span that cannot be stored, writing none of it", async () => {
    const bad = span("r1", "tool", "execute_tool", 1, { name: null as unknown as string });
    await expect(batched.write([span("r1", "chat", "chat", 0), bad], [{ runId: "r1", seq: 3 }])).rejects.toThrow(/could not be stored/);
    expect(tables(natives[0])).toMatchObject({
      spans: [],
      costs: [],
      spanRollups: [],
      runs: [
        { id: "r1", tracedSeq: 0 },
        { id: "r2", tracedSeq: 0 },
      ],
    });
  });
});

describe("planBatch", () => {
  it("keeps an ended tool span ended and counts it once; a stored model call is left alone", () => {
    const ended = span("r", "t", "execute_tool", 1);
    const open = span("r", "t", "execute_tool", 0);
    const call = span("r", "c", "chat", 0);
    const plan = planBatch([open, ended, open, ended, call], new Map([[spanKey(call), { kind: "chat", ended: true }]]));
    expect(plan.rows).toEqual([ended]);
    expect(plan.ended).toEqual([ended]);
    expect(plan.calls).toEqual([]);
  });
});
