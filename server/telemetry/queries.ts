// Reading spans: a run's trace (without the bulky detail) and one span's detail.
import type { Db } from "@/server/db";
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

type Row = Omit<SpanView, "startTime" | "endTime" | "attributes"> & { traceId: string; startTime: string | Date; endTime: string | Date | null; attributes: string };

const asDate = (v: string | Date) => (v instanceof Date ? v : new Date(v));

/**
 * The run's spans in start order (at most `limit`, default 20,000). A raw query
 * over the (runId, startTime) index: for a 10,000-span trace the ORM's row
 * mapping cost more than the query itself.
 */
export async function listRunSpans(db: Db, runId: string, limit = 20_000): Promise<{ traceId: string | null; spans: SpanView[]; truncated: boolean }> {
  const rows = await db.$queryRaw<Row[]>`
    SELECT "spanId", "traceId", "parentSpanId", "kind", "name", "startTime", "endTime", "status", "model", "tool",
           "inputTokens", "outputTokens", "cachedInputTokens", "costUsd", "attributes"
      FROM "Span" WHERE "runId" = ${runId} ORDER BY "startTime" LIMIT ${limit + 1}`;
  const spans = rows.slice(0, limit).map(({ traceId: _t, attributes, startTime, endTime, ...r }) => ({
    ...r,
    inputTokens: Number(r.inputTokens),
    outputTokens: Number(r.outputTokens),
    cachedInputTokens: Number(r.cachedInputTokens),
    costUsd: Number(r.costUsd),
    startTime: asDate(startTime),
    endTime: endTime === null ? null : asDate(endTime),
    attributes: JSON.parse(attributes),
  }));
  return { traceId: rows[0]?.traceId ?? null, spans, truncated: rows.length > limit };
}

/** One span with its inputs and outputs, if retention has not dropped them. */
export async function getSpanDetail(db: Db, runId: string, spanId: string): Promise<{ input?: unknown; output?: unknown } | null> {
  const row = await db.span.findFirst({ where: { runId, spanId }, select: { detail: true } });
  return row?.detail ? JSON.parse(row.detail) : null;
}
