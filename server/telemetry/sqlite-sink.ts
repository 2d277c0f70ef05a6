// Spans into SQLite over a direct connection, one transaction per batch.
// A model call's span is written once; only then does it count in the rollups,
// so projecting an event twice never counts its cost twice. Tool and request
// spans count in SpanRollup when they end, once; an ended one is never reopened.
//
// A batch costs a handful of statements, not several per span: the stored
// state of its spans is read with one query, planBatch works out what writing
// them one by one would do, and the outcome is written as multi-row inserts,
// one upsert per rollup key and one update per run. The transaction takes the
// write lock first (BEGIN IMMEDIATE), so nothing changes between the read and
// the writes. A span is found by (runId, spanId), the table's key.
import { withBusyRetry, type NativeSqlite } from "@/server/db";
import { costSums, endedSums, planBatch, type StoredSpan } from "./span-batch";
import { SPAN_COLUMNS, spanKey, spanRow } from "./span-rows";
import type { SpanRecord, SpanSink } from "./types";

type Statement = ReturnType<NativeSqlite["prepare"]>;

const iso = (d: Date | null) => (d ? d.toISOString().replace("Z", "+00:00") : null);
/** Rows per INSERT: far below SQLite's 32,766 parameters. */
const CHUNK = 100;

const COLUMNS = SPAN_COLUMNS.map((c) => `"${c}"`).join(", ");
const ROW = `(${SPAN_COLUMNS.map(() => "?").join(", ")})`;
const UPDATES = SPAN_COLUMNS.map((c) => `"${c}" = ?`).join(", ");

export class SqliteSpanSink implements SpanSink {
  /** INSERT statements by row count. */
  private readonly inserts = new Map<number, Statement>();
  private readonly stored;
  private readonly update;
  private readonly rollup;
  private readonly spanRollup;
  private readonly runTotals;
  private readonly traced;

  constructor(private readonly db: NativeSqlite) {
    this.stored = db.prepare(
      `SELECT "runId", "spanId", "kind", "endTime" IS NOT NULL AS ended FROM "Span"
       WHERE ("runId", "spanId") IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))`,
    );
    this.update = db.prepare(`UPDATE "Span" SET ${UPDATES} WHERE "runId" = ? AND "spanId" = ?`);
    this.rollup = db.prepare(
      `INSERT INTO "CostRollup" (day, teamId, workflowId, model, calls, inputTokens, outputTokens, cachedInputTokens, costUsd)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(day, teamId, workflowId, model) DO UPDATE SET calls = calls + excluded.calls, inputTokens = inputTokens + excluded.inputTokens,
         outputTokens = outputTokens + excluded.outputTokens, cachedInputTokens = cachedInputTokens + excluded.cachedInputTokens,
         costUsd = costUsd + excluded.costUsd`,
    );
    this.spanRollup = db.prepare(
      `INSERT INTO "SpanRollup" (day, kind, name, bucket, count, errors) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(day, kind, name, bucket) DO UPDATE SET count = count + excluded.count, errors = errors + excluded.errors`,
    );
    this.runTotals = db.prepare(`UPDATE "Run" SET costUsd = ? WHERE id = ?`);
    this.traced = db.prepare(`UPDATE "Run" SET tracedSeq = MAX(tracedSeq, ?) WHERE id = ?`);
  }

  private insert(rows: number): Statement {
    let statement = this.inserts.get(rows);
    if (!statement) {
      // OR IGNORE: a statement that cannot fail half-way needs no statement journal (a copy of every page it changes).
      // Nothing is ignored (the rows are new, checked by the count written), so a bad row still fails the batch.
      statement = this.db.prepare(`INSERT OR IGNORE INTO "Span" (${COLUMNS}) VALUES ${Array(rows).fill(ROW).join(", ")}`);
      this.inserts.set(rows, statement);
    }
    return statement;
  }

  private storedOf(spans: SpanRecord[]): Map<string, StoredSpan> {
    const keys = new Map(spans.map((s) => [spanKey(s), [s.runId, s.spanId]]));
    const rows = this.stored.all(JSON.stringify([...keys.values()])) as Array<{
      runId: string;
      spanId: string;
      kind: string;
      ended: number;
    }>;
    return new Map(rows.map((r) => [spanKey(r), { kind: r.kind, ended: r.ended === 1 }]));
  }

  /** Inserts the new spans, many to a statement, and writes the others over their stored rows. */
  private writeRows(spans: SpanRecord[], stored: ReadonlyMap<string, StoredSpan>) {
    const fresh = spans.filter((s) => !stored.has(spanKey(s)));
    for (let i = 0; i < fresh.length; i += CHUNK) {
      const part = fresh.slice(i, i + CHUNK);
      const args: unknown[] = [];
      for (const s of part) args.push(...spanRow(s, iso));
      const { changes } = this.insert(part.length).run(args);
      if (changes !== part.length)
        throw new Error(`${part.length - changes} of ${part.length} spans could not be stored (a required value is missing)`);
    }
    // planBatch has applied KEEPS_ENDED: these rows replace the stored ones as they are.
    for (const s of spans) if (stored.has(spanKey(s))) this.update.run(...spanRow(s, iso), s.runId, s.spanId);
  }

  async write(spans: SpanRecord[], traced: Array<{ runId: string; seq: number }>): Promise<void> {
    const tx = this.db.transaction(() => {
      const stored = spans.length ? this.storedOf(spans) : new Map<string, StoredSpan>();
      const plan = planBatch(spans, stored);
      this.writeRows(plan.rows, stored);
      for (const [key, sum] of costSums(plan.calls))
        this.rollup.run(...key, sum.calls, sum.inputTokens, sum.outputTokens, sum.cachedInputTokens, sum.costUsd);
      for (const [key, sum] of endedSums(plan.ended)) this.spanRollup.run(...key, sum.count, sum.errors);
      for (const [runId, costUsd] of plan.runCosts) this.runTotals.run(costUsd, runId);
      for (const t of traced) this.traced.run(t.seq, t.runId);
    });
    await withBusyRetry(() => tx.immediate());
  }
}
