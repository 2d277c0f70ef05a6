// REST v1 span search
// (docs/traces-and-costs.md#traces--spans-searching-spans-across-runs,
// docs/api.md): the Traces page's search for programs, with the same filters,
// paging and visibility (admins every span, others the spans of their teams'
// runs and of runs they launched).
import { z } from "zod";
import { SPAN_KINDS, SpanSearch, searchSpans } from "@/server/telemetry";
import { defineRoute, type Route } from "./contract";
import { Instant } from "./schemas";

/**
 * An empty parameter means no filter. A number is taken from its text; text
 * that is not a number stays text, so the error says what was sent.
 */
const param = <T extends z.ZodType>(schema: T, number = false) =>
  z.preprocess((v) => {
    if (typeof v !== "string") return v;
    if (v.trim() === "") return undefined;
    return number && Number.isFinite(Number(v)) ? Number(v) : v;
  }, schema);

// A misspelt parameter is an error, as SpanSearch is strict.
const SpansQuery = z.strictObject({
  kind: param(SpanSearch.shape.kind),
  model: param(SpanSearch.shape.model),
  tool: param(SpanSearch.shape.tool),
  teamId: param(SpanSearch.shape.teamId),
  workflowId: param(SpanSearch.shape.workflowId),
  status: param(SpanSearch.shape.status).describe("open: not ended yet"),
  minDurationMs: param(SpanSearch.shape.minDurationMs, true),
  maxDurationMs: param(SpanSearch.shape.maxDurationMs, true),
  minCostUsd: param(SpanSearch.shape.minCostUsd, true),
  from: param(SpanSearch.shape.from).describe(
    "Started at or after (ISO date-time); default 7 days before to; the range is at most 31 days",
  ),
  to: param(SpanSearch.shape.to).describe("Started at or before (ISO date-time); default now"),
  q: param(SpanSearch.shape.q).describe("Part of the span's name, any case"),
  limit: param(SpanSearch.shape.limit, true),
  cursor: param(SpanSearch.shape.cursor).describe("nextCursor of the page before"),
});

const SpanHit = z.object({
  spanId: z.string(),
  traceId: z.string(),
  runId: z.string(),
  runGoal: z.string().describe("The goal of the span's run"),
  kind: z.enum(SPAN_KINDS),
  name: z.string(),
  startTime: Instant,
  endTime: Instant.nullable(),
  durationMs: z.number().nullable().describe("null while the span is open"),
  status: z.string(),
  teamId: z.string().nullable(),
  workflowId: z.string(),
  model: z.string().nullable(),
  tool: z.string().nullable(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  cachedInputTokens: z.number(),
  costUsd: z.number(),
});

export const SPAN_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/spans",
    minRole: "viewer",
    summary: "Spans across runs, newest first",
    description: "Admins see every span, others the spans of their teams' runs and of runs they launched.",
    query: SpansQuery,
    response: z.object({
      spans: z.array(SpanHit),
      nextCursor: z.string().nullable().describe("Pass as cursor for the next page; null on the last page"),
      from: Instant.describe("The range searched, the defaults filled in"),
      to: Instant,
    }),
    handle: ({ query, actor, db }) => searchSpans(db, actor, query),
  }),
];
