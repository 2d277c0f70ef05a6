// Spans across runs for the Traces page (SPEC section 9): search and filter by
// kind, model, tool, team, workflow, status, duration, cost and name, newest
// first, a page at a time.
//
// Fast at a million spans: every search is bounded by a time range (default
// the last 7 days, at most 31), so the database walks the (startTime) index, or
// (kind, startTime) when the kind is known (a model implies a model call, a
// tool a tool call), newest first, and stops once the page is full. The other
// filters are checked on the rows it walks.
//
// Duration is not a column: it is computed in SQL from endTime - startTime,
// rounded to the millisecond (SQLite's julianday(), PostgreSQL's EXTRACT(EPOCH
// FROM ...)); a span still open counts its time so far. SQLite keeps times as
// ISO text, compared as text; PostgreSQL as timestamps, compared as such. The
// name search ignores case on both (LIKE on SQLite, ILIKE on PostgreSQL).
//
// Who sees what: the same rule as runs (server/kernel/runs.ts visibleTo).
// Admins see every span; others the spans of runs of their teams and of runs
// they launched, checked in the query on the span's run.
import { z } from "zod";
import { dbDialect, type Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import { placeholders } from "./sql";
import { SPAN_KINDS, type SpanKind } from "./types";

export const DEFAULT_SEARCH_DAYS = 7;
export const MAX_SEARCH_DAYS = 31;
export const DEFAULT_SEARCH_LIMIT = 50;
export const MAX_SEARCH_LIMIT = 200;
/** "open" is a span that has not ended; the others are the span's status. */
export const SPAN_SEARCH_STATUSES = ["ok", "error", "unset", "open"] as const;
export type SpanSearchStatus = (typeof SPAN_SEARCH_STATUSES)[number];

const DAY_MS = 86_400_000;
/** Distinct values per facet; more than this in one range is not a dropdown any more. */
const MAX_FACET_VALUES = 500;
const ISO_RE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

const DateTime = z.union([z.date(), z.string().trim()]).transform((v, ctx) => {
  const d = v instanceof Date ? v : ISO_RE.test(v) ? new Date(v.length === 10 ? `${v}T00:00:00Z` : v) : null;
  if (!d || Number.isNaN(d.getTime())) {
    ctx.addIssue({ code: "custom", message: `must be an ISO date-time such as 2025-03-01T12:00:00Z (got "${String(v)}")` });
    return z.NEVER;
  }
  return d;
});

const Name = z.string().trim().min(1, "must not be empty").max(200, "is longer than 200 characters");
const Milliseconds = z.number().min(0, "must not be negative").max(30 * DAY_MS, "is longer than 30 days");

export const SpanSearch = z.strictObject({
  kind: z.enum(SPAN_KINDS, { error: `must be one of ${SPAN_KINDS.join(", ")}` }).optional(),
  model: Name.optional(),
  tool: Name.optional(),
  teamId: Name.optional(),
  workflowId: Name.optional(),
  status: z.enum(SPAN_SEARCH_STATUSES, { error: `must be one of ${SPAN_SEARCH_STATUSES.join(", ")}` }).optional(),
  minDurationMs: Milliseconds.optional(),
  maxDurationMs: Milliseconds.optional(),
  minCostUsd: z.number().min(0, "must not be negative").optional(),
  /** Spans that started at or after this. Default: 7 days before `to`. */
  from: DateTime.optional(),
  /** Spans that started at or before this. Default: now. */
  to: DateTime.optional(),
  /** Part of the span's name ("chat <model>", "execute_tool <tool>", ...), any case. */
  q: z.string().trim().max(200, "is longer than 200 characters").optional(),
  /** nextCursor of the page before. */
  cursor: z.string().max(1000).optional(),
  limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT, `must be at most ${MAX_SEARCH_LIMIT}`).default(DEFAULT_SEARCH_LIMIT),
  /** Sent by tRPC's infinite queries; pages only go forward (older). Any other unknown key is refused, so a misspelt filter is not ignored. */
  direction: z.literal("forward", { error: "only forward paging is supported" }).optional(),
});
export type SpanSearch = z.input<typeof SpanSearch>;

export const SpanFacetsQuery = z.strictObject({ from: DateTime.optional(), to: DateTime.optional() });
export type SpanFacetsQuery = z.input<typeof SpanFacetsQuery>;

export interface SpanHit {
  spanId: string;
  traceId: string;
  runId: string;
  /** The goal of the span's run, for display. */
  runGoal: string;
  kind: SpanKind;
  name: string;
  startTime: Date;
  endTime: Date | null;
  /** null while the span is open. */
  durationMs: number | null;
  status: string;
  teamId: string | null;
  workflowId: string;
  model: string | null;
  tool: string | null;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costUsd: number;
}

export interface SpanSearchResult {
  spans: SpanHit[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
  /** The range searched (the defaults filled in). */
  from: Date;
  to: Date;
}

export interface SpanFacets {
  from: Date;
  to: Date;
  models: string[];
  tools: string[];
  workflows: string[];
  teams: Array<{ id: string; name: string }>;
}

type Range = { from?: Date; to?: Date };

/** Fills in the default range and checks it; issues go to `ctx` so every bad input is one ZodError. */
function resolveRange(q: Range, now: Date, ctx: z.RefinementCtx): { from: Date; to: Date } {
  const to = q.to ?? now;
  const from = q.from ?? new Date(to.getTime() - DEFAULT_SEARCH_DAYS * DAY_MS);
  if (from > to) ctx.addIssue({ code: "custom", path: ["from"], message: `must not be after to (${from.toISOString()} is after ${to.toISOString()})` });
  else if (to.getTime() - from.getTime() > MAX_SEARCH_DAYS * DAY_MS) {
    ctx.addIssue({ code: "custom", path: ["from"], message: `the range is at most ${MAX_SEARCH_DAYS} days (${from.toISOString()} to ${to.toISOString()})` });
  }
  return { from, to };
}

/** DateTime as Span rows hold it (Prisma's SQLite adapter and the span sink write the same text), so text order is time order. */
const stored = (d: Date) => d.toISOString().replace("Z", "+00:00");

function encodeCursor(startTime: Date, spanId: string): string {
  return Buffer.from(`${stored(startTime)}\n${spanId}`, "utf8").toString("base64url");
}

function decodeCursor(cursor: string): { startTime: string; spanId: string } | null {
  const [startTime, spanId, ...rest] = Buffer.from(cursor, "base64url").toString("utf8").split("\n");
  if (rest.length || !spanId || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/.test(startTime ?? "")) return null;
  return { startTime, spanId };
}

/** Validates a search and fills in its defaults (the last 7 days up to now). */
export function resolveSpanSearch(raw: SpanSearch, now: Date = new Date()) {
  return SpanSearch.transform((q, ctx) => {
    const range = resolveRange(q, now, ctx);
    if (q.minDurationMs !== undefined && q.maxDurationMs !== undefined && q.minDurationMs > q.maxDurationMs) {
      ctx.addIssue({ code: "custom", path: ["minDurationMs"], message: `must not be more than maxDurationMs (${q.minDurationMs} > ${q.maxDurationMs})` });
    }
    const cursor = q.cursor ? decodeCursor(q.cursor) : null;
    if (q.cursor && !cursor) ctx.addIssue({ code: "custom", path: ["cursor"], message: "is not a cursor from an earlier page of this search" });
    const { direction: _direction, ...filter } = q;
    return { ...filter, ...range, q: q.q || undefined, cursor };
  }).parse(raw);
}

type Row = Omit<SpanHit, "startTime" | "endTime" | "durationMs"> & { startTime: string | Date; endTime: string | Date | null };

const asDate = (v: string | Date) => (v instanceof Date ? v : new Date(v));

/** Spans matching the filter that the actor may see, newest first, `limit` at a time. */
export async function searchSpans(db: Db, actor: Pick<Actor, "role" | "teamIds" | "userId">, raw: SpanSearch, now: Date = new Date()): Promise<SpanSearchResult> {
  const f = resolveSpanSearch(raw, now);
  const pg = dbDialect(db) === "postgres";
  // A time parameter: ISO text on SQLite, a timestamp (UTC, no zone) on PostgreSQL.
  const t = pg ? "?::timestamp(3)" : "?";
  const where: string[] = [`s."startTime" >= ${t}`, `s."startTime" <= ${t}`];
  const args: unknown[] = [stored(f.from), stored(f.to)];
  const add = (sql: string, ...values: unknown[]) => {
    where.push(sql);
    args.push(...values);
  };
  // Only model calls carry a model and only tool calls a tool: saying so lets SQLite use (kind, startTime).
  const kind = f.kind ?? (f.tool ? "execute_tool" : f.model ? "chat" : undefined);
  if (kind) add(`s."kind" = ?`, kind);
  if (f.model) add(`s."model" = ?`, f.model);
  if (f.tool) add(`s."tool" = ?`, f.tool);
  if (f.teamId) add(`s."teamId" = ?`, f.teamId);
  if (f.workflowId) add(`s."workflowId" = ?`, f.workflowId);
  if (f.status === "open") add(`s."endTime" IS NULL`);
  else if (f.status) add(`s."status" = ? AND s."endTime" IS NOT NULL`, f.status);
  const duration = pg
    ? `ROUND(EXTRACT(EPOCH FROM (COALESCE(s."endTime", ${t}) - s."startTime")) * 1000)`
    : `ROUND((julianday(COALESCE(s."endTime", ?)) - julianday(s."startTime")) * 86400000)`;
  if (f.minDurationMs !== undefined) add(`${duration} >= ?`, stored(now), f.minDurationMs);
  if (f.maxDurationMs !== undefined) add(`${duration} <= ?`, stored(now), f.maxDurationMs);
  if (f.minCostUsd !== undefined) add(`s."costUsd" >= ?`, f.minCostUsd);
  if (f.q) add(`s."name" ${pg ? "ILIKE" : "LIKE"} ? ESCAPE '\\'`, `%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  if (actor.role !== "admin") {
    const teams = actor.teamIds.map(() => "?").join(", ");
    add(teams ? `(r."teamId" IN (${teams}) OR r."createdById" = ?)` : `r."createdById" = ?`, ...actor.teamIds, actor.userId);
  }
  if (f.cursor) add(`(s."startTime" < ${t} OR (s."startTime" = ${t} AND s."spanId" < ?))`, f.cursor.startTime, f.cursor.startTime, f.cursor.spanId);

  const rows = await db.$queryRawUnsafe<Row[]>(
    placeholders(
      db,
      `SELECT s."spanId", s."traceId", s."runId", r."goal" AS "runGoal", s."kind", s."name", s."startTime", s."endTime", s."status",
            s."teamId", s."workflowId", s."model", s."tool", s."inputTokens", s."outputTokens", s."cachedInputTokens", s."costUsd"
       FROM "Span" s JOIN "Run" r ON r."id" = s."runId"
      WHERE ${where.join(" AND ")}
      ORDER BY s."startTime" DESC, s."spanId" DESC
      LIMIT ?`,
    ),
    ...args,
    f.limit + 1,
  );
  const spans = rows.slice(0, f.limit).map((r): SpanHit => {
    const startTime = asDate(r.startTime);
    const endTime = r.endTime === null ? null : asDate(r.endTime);
    return {
      ...r,
      startTime,
      endTime,
      durationMs: endTime ? endTime.getTime() - startTime.getTime() : null,
      inputTokens: Number(r.inputTokens),
      outputTokens: Number(r.outputTokens),
      cachedInputTokens: Number(r.cachedInputTokens),
      costUsd: Number(r.costUsd),
    };
  });
  const last = spans.at(-1);
  return { spans, nextCursor: rows.length > f.limit && last ? encodeCursor(last.startTime, last.spanId) : null, from: f.from, to: f.to };
}

/**
 * The values the Traces filters offer for a range: models, workflows and teams
 * from the daily cost rollups, tools from the span rollups. Never a span scan.
 * Non-admins get the rows of their teams (as on Costs); tool names are not
 * kept per team, so everyone sees the tools used in the range.
 */
export async function spanFacets(db: Db, actor: Pick<Actor, "role" | "teamIds">, raw: SpanFacetsQuery = {}, now: Date = new Date()): Promise<SpanFacets> {
  const { from, to } = SpanFacetsQuery.transform((q, ctx) => resolveRange(q, now, ctx)).parse(raw);
  const days = [from.toISOString().slice(0, 10), to.toISOString().slice(0, 10)];
  const teams = actor.role === "admin" ? null : actor.teamIds;
  const scope = teams ? ` AND c."teamId" IN (${teams.map(() => "?").join(", ") || "NULL"})` : "";
  const scoped = [...days, ...(teams ?? [])];
  const distinct = (column: "model" | "workflowId") =>
    db.$queryRawUnsafe<Array<{ v: string }>>(
      placeholders(db, `SELECT DISTINCT c."${column}" AS v FROM "CostRollup" c WHERE c."day" BETWEEN ? AND ?${scope} ORDER BY v LIMIT ${MAX_FACET_VALUES}`),
      ...scoped,
    );
  const [models, workflows, teamRows, tools] = await Promise.all([
    distinct("model"),
    distinct("workflowId"),
    db.$queryRawUnsafe<Array<{ id: string; name: string | null }>>(
      placeholders(
        db,
        `SELECT t."id" AS id, t."name" AS name FROM "Team" t
          WHERE t."id" IN (SELECT DISTINCT c."teamId" FROM "CostRollup" c WHERE c."day" BETWEEN ? AND ?${scope})
          ORDER BY t."name" LIMIT ${MAX_FACET_VALUES}`,
      ),
      ...scoped,
    ),
    db.$queryRawUnsafe<Array<{ v: string }>>(
      placeholders(db, `SELECT DISTINCT "name" AS v FROM "SpanRollup" WHERE "kind" = 'execute_tool' AND "day" BETWEEN ? AND ? AND "name" <> '' ORDER BY v LIMIT ${MAX_FACET_VALUES}`),
      ...days,
    ),
  ]);
  return {
    from,
    to,
    models: models.map((r) => r.v).filter(Boolean),
    workflows: workflows.map((r) => r.v).filter(Boolean),
    teams: teamRows.map((r) => ({ id: r.id, name: r.name ?? r.id })),
    tools: tools.map((r) => r.v),
  };
}
