// A span as a table row, and the SpanRollup bucket an ended span counts in:
// shared by the SQLite and PostgreSQL sinks so both store the same thing.
import type { SpanRecord } from "./types";

export const SPAN_COLUMNS = [
  "spanId",
  "traceId",
  "parentSpanId",
  "runId",
  "kind",
  "name",
  "startTime",
  "endTime",
  "durationMs",
  "status",
  "teamId",
  "workflowId",
  "userId",
  "model",
  "tool",
  "inputTokens",
  "outputTokens",
  "cachedInputTokens",
  "costUsd",
  "attributes",
  "detail",
] as const;

/**
 * A span's identity: its id within its run. The table's key is (runId, spanId), not the id alone:
 * an id is a hash, so an index on it alone takes a write at a random place per span
 * (docs/performance.md#span-ingest-and-search).
 */
export const spanKey = (s: { runId: string; spanId: string }) => `${s.runId}\u0000${s.spanId}`;

/** Kept in a column so a search by duration can use an index; null while the span is open. */
export const durationMs = (s: SpanRecord) => (s.endTime ? s.endTime.getTime() - s.startTime.getTime() : null);

/** The span's values in SPAN_COLUMNS order; `time` writes a date as the database keeps it. */
export function spanRow(s: SpanRecord, time: (d: Date | null) => string | null): unknown[] {
  return [
    s.spanId,
    s.traceId,
    s.parentSpanId,
    s.runId,
    s.kind,
    s.name,
    time(s.startTime),
    time(s.endTime),
    durationMs(s),
    s.status,
    s.teamId,
    s.workflowId,
    s.userId,
    s.model,
    s.tool,
    s.inputTokens,
    s.outputTokens,
    s.cachedInputTokens,
    s.costUsd,
    JSON.stringify(s.attributes),
    s.detail ? JSON.stringify(s.detail) : null,
  ];
}

/** [day, kind, name, bucket] of an ended span: bucket floor(log2(ms)) + 1, 0 under 1 ms. */
export function spanRollupKey(s: SpanRecord): [string, string, string, number] {
  const ms = s.endTime!.getTime() - s.startTime.getTime();
  const bucket = ms < 1 ? 0 : Math.floor(Math.log2(ms)) + 1;
  const name =
    s.kind === "chat"
      ? (s.model ?? "")
      : s.kind === "execute_tool"
        ? (s.tool ?? "")
        : String(s.attributes["rein.human_request.kind"] ?? "");
  return [s.startTime.toISOString().slice(0, 10), s.kind, name, bucket];
}

/**
 * The condition on an upsert's DO UPDATE (the stored row is "Span", the new one
 * excluded): an ended tool or request span is never reopened by an older, open
 * version of it (a lagging writer, a run projected again), so it ends, and
 * counts, once.
 */
export const KEEPS_ENDED = `NOT ("Span"."kind" IN ('execute_tool', 'human_request') AND "Span"."endTime" IS NOT NULL AND excluded."endTime" IS NULL)`;
