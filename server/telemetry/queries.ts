// Reading spans: a run's trace (without the bulky detail) whole, a page at a
// time, or what changed since the client last looked; and one span's detail.
//
// Paging walks the (runId, startTime) index in start order, so a page holds a
// span's parent whenever the parent started first (it always does in a run).
// Live updates use the run's tracedSeq as the watermark: the sinks write spans
// and move tracedSeq in one transaction, and every span an event creates or
// changes starts or ends at that event's time, or is still open. So the spans
// changed after seq N are those starting or ending from event N's time on, the
// open ones, and the ones the client still holds as open (a span can end at a
// time before its closing event, e.g. an agent at its successor's first call).
import { z } from "zod";
import { dbDialect, type Db } from "@/server/db";
import { placeholders } from "./sql";
import type { AttributeValue, SpanKind } from "./types";

export interface SpanView {
  spanId: string;
  parentSpanId: string | null;
  kind: SpanKind;
  name: string;
  startTime: Date;
  endTime: Date | null;
  status: string;
  model: string | null;
  tool: string | null;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costUsd: number;
  attributes: Record<string, AttributeValue>;
}

export const TRACE_PAGE_SIZE = 500;
export const MAX_TRACE_PAGE_SIZE = 2000;
/** Past this many changed spans a client is better off reading the trace again, a page at a time. */
export const MAX_TRACE_CHANGES = 2000;
/** Open spans a client may ask about by id. */
export const MAX_OPEN_SPANS = 200;
/** Event times come from one clock per run, but allow for it stepping back a little. */
const CLOCK_SLACK_MS = 1000;

type Row = Omit<SpanView, "startTime" | "endTime" | "attributes"> & {
  traceId: string;
  startTime: string | Date;
  endTime: string | Date | null;
  attributes: string;
};

const COLUMNS = `"spanId", "traceId", "parentSpanId", "kind", "name", "startTime", "endTime", "status", "model", "tool",
           "inputTokens", "outputTokens", "cachedInputTokens", "costUsd", "attributes"`;

const asDate = (v: string | Date | number) => (v instanceof Date ? v : new Date(v));
/** DateTime as Span rows hold it on SQLite (ISO text, so text order is time order). */
const stored = (d: Date) => d.toISOString().replace("Z", "+00:00");

function viewOf({ traceId: _t, attributes, startTime, endTime, ...r }: Row): SpanView {
  return {
    ...r,
    inputTokens: Number(r.inputTokens),
    outputTokens: Number(r.outputTokens),
    cachedInputTokens: Number(r.cachedInputTokens),
    costUsd: Number(r.costUsd),
    startTime: asDate(startTime),
    endTime: endTime === null ? null : asDate(endTime),
    attributes: JSON.parse(attributes),
  };
}

/**
 * The run's spans in start order (at most `limit`, default 20,000). A raw query
 * over the (runId, startTime) index: for a 10,000-span trace the ORM's row
 * mapping cost more than the query itself.
 */
export async function listRunSpans(
  db: Db,
  runId: string,
  limit = 20_000,
): Promise<{ traceId: string | null; spans: SpanView[]; truncated: boolean }> {
  const rows = await db.$queryRawUnsafe<Row[]>(
    placeholders(db, `SELECT ${COLUMNS} FROM "Span" WHERE "runId" = ? ORDER BY "startTime" LIMIT ?`),
    runId,
    limit + 1,
  );
  return { traceId: rows[0]?.traceId ?? null, spans: rows.slice(0, limit).map(viewOf), truncated: rows.length > limit };
}

/** Where a page ends: the last span's start and id, opaque to clients. */
function encodeCursor(span: Pick<SpanView, "startTime" | "spanId">): string {
  return Buffer.from(`${stored(span.startTime)}\n${span.spanId}`, "utf8").toString("base64url");
}

function decodeCursor(cursor: string): { startTime: string; spanId: string } | null {
  const [startTime, spanId, ...rest] = Buffer.from(cursor, "base64url").toString("utf8").split("\n");
  if (rest.length || !spanId || spanId.length > 64 || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/.test(startTime ?? ""))
    return null;
  return { startTime, spanId };
}

const RunId = z.string().min(1, "runId is required").max(64, "runId is longer than 64 characters");

export const RunSpanPage = z.strictObject({
  runId: RunId,
  /** From the page before (`next`); none for the first page. */
  cursor: z.string().max(200, "is not a cursor from an earlier page of this trace").optional(),
  limit: z.number().int().min(1).max(MAX_TRACE_PAGE_SIZE, `is at most ${MAX_TRACE_PAGE_SIZE}`).default(TRACE_PAGE_SIZE),
});
export type RunSpanPage = z.input<typeof RunSpanPage>;

const ResolvedPage = RunSpanPage.transform((q, ctx) => {
  const cursor = q.cursor ? decodeCursor(q.cursor) : null;
  if (q.cursor && !cursor)
    ctx.addIssue({ code: "custom", path: ["cursor"], message: "is not a cursor from an earlier page of this trace" });
  return { ...q, cursor };
});

export interface RunSpanPageResult {
  traceId: string | null;
  spans: SpanView[];
  /** The cursor of the next page, or null when this was the last. */
  next: string | null;
  /** Spans in the whole trace. */
  total: number;
  /** The run's tracedSeq before the page was read: ask runSpanChanges for what changed after it. */
  watermark: number;
}

async function tracedSeq(db: Db, runId: string): Promise<number | null> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { tracedSeq: true } });
  return run?.tracedSeq ?? null;
}

async function countSpans(db: Db, runId: string): Promise<number> {
  const [row] = await db.$queryRawUnsafe<Array<{ n: number | bigint }>>(
    placeholders(db, `SELECT COUNT(*) AS n FROM "Span" WHERE "runId" = ?`),
    runId,
  );
  return Number(row?.n ?? 0);
}

/** One page of the run's spans in start order (ties by id). The caller has checked the run may be seen. */
export async function runSpanPage(db: Db, raw: RunSpanPage): Promise<RunSpanPageResult> {
  const { runId, cursor, limit } = ResolvedPage.parse(raw);
  // Read first, so nothing written while the page is read is missed by the next runSpanChanges.
  const watermark = (await tracedSeq(db, runId)) ?? 0;
  const t = dbDialect(db) === "postgres" ? "?::timestamp(3)" : "?";
  // The first term alone is a range on the index; the second breaks ties.
  const after = cursor ? ` AND "startTime" >= ${t} AND ("startTime" > ${t} OR "spanId" > ?)` : "";
  const [rows, total] = await Promise.all([
    db.$queryRawUnsafe<Row[]>(
      placeholders(db, `SELECT ${COLUMNS} FROM "Span" WHERE "runId" = ?${after} ORDER BY "startTime", "spanId" LIMIT ?`),
      runId,
      ...(cursor ? [cursor.startTime, cursor.startTime, cursor.spanId] : []),
      limit + 1,
    ),
    countSpans(db, runId),
  ]);
  const spans = rows.slice(0, limit).map(viewOf);
  const last = spans.at(-1);
  return { traceId: rows[0]?.traceId ?? null, spans, next: rows.length > limit && last ? encodeCursor(last) : null, total, watermark };
}

export const RunSpanChanges = z.strictObject({
  runId: RunId,
  /** The watermark of the last page or change set the client read. */
  since: z.number().int().min(0),
  /** Spans the client holds as still open: they are sent again once they end. */
  open: z.array(z.string().min(1).max(64)).max(MAX_OPEN_SPANS, `at most ${MAX_OPEN_SPANS} open spans`).default([]),
});
export type RunSpanChanges = z.input<typeof RunSpanChanges>;

export type RunSpanChangesResult =
  | { reset: false; spans: SpanView[]; total: number; watermark: number }
  /** Read the trace again from its first page: too much changed, or the watermark is not this run's. */
  | { reset: true };

/**
 * The run's spans created or changed after the watermark `since` (a superset:
 * a span may come again unchanged), in start order. The caller has checked
 * the run may be seen.
 */
export async function runSpanChanges(db: Db, raw: RunSpanChanges): Promise<RunSpanChangesResult> {
  const { runId, since, open } = RunSpanChanges.parse(raw);
  const watermark = await tracedSeq(db, runId);
  if (watermark === null || since > watermark) return { reset: true };
  if (since === watermark) return { reset: false, spans: [], total: await countSpans(db, runId), watermark };

  let from: Date | null = null;
  if (since > 0) {
    const [event] = await db.$queryRawUnsafe<Array<{ createdAt: string | Date | number }>>(
      placeholders(db, `SELECT "createdAt" FROM "RunEvent" WHERE "runId" = ? AND "seq" = ?`),
      runId,
      since,
    );
    if (!event) return { reset: true };
    from = new Date(asDate(event.createdAt).getTime() - CLOCK_SLACK_MS);
  }
  const t = dbDialect(db) === "postgres" ? "?::timestamp(3)" : "?";
  const changed = from ? `"startTime" >= ${t} OR "endTime" >= ${t} OR "endTime" IS NULL` : "1 = 1";
  const ids = open.length ? ` OR "spanId" IN (${open.map(() => "?").join(", ")})` : "";
  const [rows, total] = await Promise.all([
    db.$queryRawUnsafe<Row[]>(
      placeholders(db, `SELECT ${COLUMNS} FROM "Span" WHERE "runId" = ? AND (${changed}${ids}) ORDER BY "startTime", "spanId" LIMIT ?`),
      runId,
      ...(from ? [stored(from), stored(from)] : []),
      ...open,
      MAX_TRACE_CHANGES + 1,
    ),
    countSpans(db, runId),
  ]);
  if (rows.length > MAX_TRACE_CHANGES) return { reset: true };
  return { reset: false, spans: rows.map(viewOf), total, watermark };
}

/** One span with its inputs and outputs, if retention has not dropped them. */
export async function getSpanDetail(db: Db, runId: string, spanId: string): Promise<{ input?: unknown; output?: unknown } | null> {
  const row = await db.span.findFirst({ where: { runId, spanId }, select: { detail: true } });
  return row?.detail ? JSON.parse(row.detail) : null;
}
