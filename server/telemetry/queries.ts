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

const SELECT = {
  spanId: true, parentSpanId: true, kind: true, name: true, startTime: true, endTime: true, status: true, model: true, tool: true,
  inputTokens: true, outputTokens: true, cachedInputTokens: true, costUsd: true, attributes: true,
} as const;

/** The run's spans in start order (at most `limit`, default 20,000). */
export async function listRunSpans(db: Db, runId: string, limit = 20_000): Promise<{ traceId: string | null; spans: SpanView[]; truncated: boolean }> {
  const rows = await db.span.findMany({ where: { runId }, select: { ...SELECT, traceId: true }, orderBy: [{ startTime: "asc" }, { spanId: "asc" }], take: limit + 1 });
  const spans = rows.slice(0, limit).map(({ traceId: _t, attributes, ...r }) => ({ ...r, kind: r.kind as SpanKind, attributes: JSON.parse(attributes) }));
  return { traceId: rows[0]?.traceId ?? null, spans, truncated: rows.length > limit };
}

/** One span with its inputs and outputs, if retention has not dropped them. */
export async function getSpanDetail(db: Db, runId: string, spanId: string): Promise<{ input?: unknown; output?: unknown } | null> {
  const row = await db.span.findFirst({ where: { runId, spanId }, select: { detail: true } });
  return row?.detail ? JSON.parse(row.detail) : null;
}
