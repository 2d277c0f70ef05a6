// Spans into PostgreSQL, one transaction per batch, with SqliteSpanSink's
// semantics: a model call's span counts in the rollups only when this write
// inserted it, and a tool or request span counts in SpanRollup only when this
// write ended it. Several processes may write the same spans at once (each
// projects the runs it sees from the log): the insert (ON CONFLICT DO NOTHING
// RETURNING) and the ending update (WHERE "endTime" IS NULL RETURNING) let
// exactly one of them count a span. A batch first takes a transaction-scoped
// advisory lock per span, in one order, so two writers of the same spans queue
// rather than deadlock on each other's rows; rollups and runs are then written
// in key order. A deadlock with anything else is retried.
import type { Db } from "@/server/db";
import { costSums, endedSums } from "./span-batch";
import { KEEPS_ENDED, SPAN_COLUMNS, spanKey, spanRow } from "./span-rows";
import type { SpanRecord, SpanSink } from "./types";

type Tx = Pick<Db, "$executeRawUnsafe" | "$queryRawUnsafe">;

const QUOTED = SPAN_COLUMNS.map((c) => `"${c}"`).join(", ");
const TIMESTAMPS = new Set<string>(["startTime", "endTime"]);
/** Rows per INSERT: 21 parameters each, far below PostgreSQL's 65,535. */
const CHUNK = 500;
/** The advisory-lock class of spans (pg_advisory_xact_lock(class, hash of the span id)). */
const SPAN_LOCK_CLASS = 0x5350414e; // "SPAN"
/** Deadlock and serialization failures: the whole batch is written again. */
const RETRYABLE = /40P01|40001|P2034|deadlock detected|could not serialize|write conflict/;
const ATTEMPTS = 5;

const ts = (d: Date | null) => (d ? d.toISOString() : null);

function values(spans: SpanRecord[]): { sql: string; args: unknown[] } {
  const args: unknown[] = [];
  const rows = spans.map((s) => {
    const row = spanRow(s, ts);
    const cells = row.map((v, i) => {
      args.push(v);
      return TIMESTAMPS.has(SPAN_COLUMNS[i]) ? `$${args.length}::timestamp(3)` : `$${args.length}`;
    });
    return `(${cells.join(", ")})`;
  });
  return { sql: rows.join(", "), args };
}

/** The columns a write sets over a stored span: all but its key, (runId, spanId). */
const VALUE_COLUMNS = SPAN_COLUMNS.filter((c) => c !== "spanId" && c !== "runId");
const SET_ALL = VALUE_COLUMNS.map((c) => `"${c}" = excluded."${c}"`).join(", ");

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/** Inserts the spans that are not stored yet; returns the spanKeys of those it inserted. */
async function insertNew(tx: Tx, spans: SpanRecord[]): Promise<Set<string>> {
  const inserted = new Set<string>();
  for (const part of chunks(spans)) {
    const { sql, args } = values(part);
    const rows = await tx.$queryRawUnsafe<Array<{ runId: string; spanId: string }>>(
      `INSERT INTO "Span" (${QUOTED}) VALUES ${sql} ON CONFLICT ("runId", "spanId") DO NOTHING RETURNING "runId", "spanId"`,
      ...args,
    );
    for (const r of rows) inserted.add(spanKey(r));
  }
  return inserted;
}

async function upsert(tx: Tx, spans: SpanRecord[]): Promise<void> {
  for (const part of chunks(spans)) {
    const { sql, args } = values(part);
    await tx.$executeRawUnsafe(
      `INSERT INTO "Span" (${QUOTED}) VALUES ${sql} ON CONFLICT ("runId", "spanId") DO UPDATE SET ${SET_ALL} WHERE ${KEEPS_ENDED}`,
      ...args,
    );
  }
}

/** The column types, for rows passed as one array per column (unnest). */
const TYPES: Record<string, string> = {
  startTime: "timestamp(3)",
  endTime: "timestamp(3)",
  durationMs: "integer",
  inputTokens: "integer",
  outputTokens: "integer",
  cachedInputTokens: "integer",
  costUsd: "double precision",
};
const UNNEST = `unnest(${SPAN_COLUMNS.map((c, i) => `$${i + 1}::${TYPES[c] ?? "text"}[]`).join(", ")}) AS v(${QUOTED})`;
const SET_FROM_V = VALUE_COLUMNS.map((c) => `"${c}" = v."${c}"`).join(", ");
const SAME_SPAN = `s."runId" = v."runId" AND s."spanId" = v."spanId"`;

/** The spans as one array per column, in SPAN_COLUMNS order. */
function columns(spans: SpanRecord[]): unknown[][] {
  const cols: unknown[][] = SPAN_COLUMNS.map(() => []);
  for (const s of spans) spanRow(s, ts).forEach((v, i) => cols[i].push(v));
  return cols;
}

/** Writes ended spans over the stored ones; returns the spanKeys of those still open until now (this write ended them). */
async function endSpans(tx: Tx, spans: SpanRecord[]): Promise<Set<string>> {
  if (!spans.length) return new Set();
  // Under READ COMMITTED a writer that waited on another's lock re-checks "endTime" IS NULL on the committed row.
  const rows = await tx.$queryRawUnsafe<Array<{ runId: string; spanId: string }>>(
    `UPDATE "Span" AS s SET ${SET_FROM_V} FROM ${UNNEST} WHERE ${SAME_SPAN} AND s."endTime" IS NULL RETURNING s."runId", s."spanId"`,
    ...columns(spans),
  );
  const ended = new Set(rows.map(spanKey));
  const rest = spans.filter((s) => !ended.has(spanKey(s)));
  if (rest.length) await tx.$executeRawUnsafe(`UPDATE "Span" AS s SET ${SET_FROM_V} FROM ${UNNEST} WHERE ${SAME_SPAN}`, ...columns(rest));
  return ended;
}

/** Writes the spans; returns those this write counts (model calls it inserted, tool and request spans it ended). */
async function writeSpans(tx: Tx, spans: SpanRecord[]): Promise<SpanRecord[]> {
  const chats = spans.filter((s) => s.kind === "chat");
  // A tool or request span is written open, then ended: it counts when it ends, once.
  const ending = spans.filter((s) => (s.kind === "execute_tool" || s.kind === "human_request") && s.endTime);
  const counts = new Set([...chats, ...ending]);
  const others = spans.filter((s) => !counts.has(s));

  const counted: SpanRecord[] = [];
  const newChats = await insertNew(tx, chats);
  counted.push(...chats.filter((s) => newChats.has(spanKey(s))));
  const newEnded = await insertNew(tx, ending);
  const ended = await endSpans(
    tx,
    ending.filter((s) => !newEnded.has(spanKey(s))),
  );
  counted.push(...ending.filter((s) => newEnded.has(spanKey(s)) || ended.has(spanKey(s))));
  await upsert(tx, others);
  return counted;
}

async function addCosts(tx: Tx, calls: SpanRecord[]): Promise<void> {
  for (const [key, sum] of costSums(calls)) {
    await tx.$executeRawUnsafe(
      `INSERT INTO "CostRollup" ("day", "teamId", "workflowId", "model", "calls", "inputTokens", "outputTokens", "cachedInputTokens", "costUsd")
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT ("day", "teamId", "workflowId", "model") DO UPDATE SET "calls" = "CostRollup"."calls" + excluded."calls",
         "inputTokens" = "CostRollup"."inputTokens" + excluded."inputTokens", "outputTokens" = "CostRollup"."outputTokens" + excluded."outputTokens",
         "cachedInputTokens" = "CostRollup"."cachedInputTokens" + excluded."cachedInputTokens", "costUsd" = "CostRollup"."costUsd" + excluded."costUsd"`,
      ...key,
      sum.calls,
      sum.inputTokens,
      sum.outputTokens,
      sum.cachedInputTokens,
      sum.costUsd,
    );
  }
}

async function addEnded(tx: Tx, ended: SpanRecord[]): Promise<void> {
  for (const [key, sum] of endedSums(ended)) {
    await tx.$executeRawUnsafe(
      `INSERT INTO "SpanRollup" ("day", "kind", "name", "bucket", "count", "errors") VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT ("day", "kind", "name", "bucket") DO UPDATE SET "count" = "SpanRollup"."count" + excluded."count", "errors" = "SpanRollup"."errors" + excluded."errors"`,
      ...key,
      sum.count,
      sum.errors,
    );
  }
}

/** The run's cost is its run span's (the last version written wins); tracedSeq only moves forward. */
async function updateRuns(tx: Tx, spans: SpanRecord[], traced: Array<{ runId: string; seq: number }>): Promise<void> {
  const runs = new Map<string, { costUsd: number | null; seq: number | null }>();
  const of = (runId: string) => runs.get(runId) ?? runs.set(runId, { costUsd: null, seq: null }).get(runId)!;
  for (const s of spans) if (s.kind === "run") of(s.runId).costUsd = s.costUsd;
  for (const t of traced) of(t.runId).seq = Math.max(t.seq, of(t.runId).seq ?? 0);
  if (!runs.size) return;
  const sorted = [...runs].sort(([a], [b]) => (a < b ? -1 : 1));
  const ids = sorted.map(([runId]) => runId);
  // One statement for all the runs, their rows locked first in key order.
  await tx.$queryRawUnsafe(
    `SELECT count(*) FROM (SELECT 1 FROM "Run" WHERE "id" = ANY($1::text[]) ORDER BY "id" FOR UPDATE) AS locked`,
    ids,
  );
  await tx.$executeRawUnsafe(
    `UPDATE "Run" AS r SET "costUsd" = COALESCE(v.cost, r."costUsd"), "tracedSeq" = GREATEST(r."tracedSeq", COALESCE(v.seq, r."tracedSeq"))
       FROM unnest($1::text[], $2::double precision[], $3::integer[]) AS v(id, cost, seq) WHERE r."id" = v.id`,
    ids,
    sorted.map(([, r]) => r.costUsd),
    sorted.map(([, r]) => r.seq),
  );
}

export class PgSpanSink implements SpanSink {
  constructor(private readonly db: Db) {}

  async write(spans: SpanRecord[], traced: Array<{ runId: string; seq: number }>): Promise<void> {
    // The last version of each span.
    const latest = [...new Map(spans.map((s) => [spanKey(s), s])).values()];
    for (let attempt = 1; ; attempt++) {
      try {
        await this.db.$transaction((tx) => this.writeIn(tx, latest, traced), { timeout: 60_000, maxWait: 30_000 });
        return;
      } catch (err) {
        if (attempt >= ATTEMPTS || !RETRYABLE.test(String((err as Error)?.message ?? err))) throw err;
        await new Promise((r) => setTimeout(r, 10 * attempt + Math.random() * 20));
      }
    }
  }

  private async writeIn(tx: Tx, spans: SpanRecord[], traced: Array<{ runId: string; seq: number }>): Promise<void> {
    if (spans.length) {
      // In hash order, one statement: the subquery's order is the order the locks are taken in.
      await tx.$queryRawUnsafe(
        `SELECT count(pg_advisory_xact_lock(${SPAN_LOCK_CLASS}, k)) FROM (SELECT DISTINCT hashtext(id) AS k FROM unnest($1::text[]) AS id ORDER BY k) AS locks`,
        spans.map((s) => s.spanId),
      );
    }
    const counted = await writeSpans(tx, spans);
    await addCosts(
      tx,
      counted.filter((s) => s.kind === "chat"),
    );
    await addEnded(tx, counted);
    await updateRuns(tx, spans, traced);
  }
}
