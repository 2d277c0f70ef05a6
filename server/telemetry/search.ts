// Spans across runs for the Traces page
// (docs/traces-and-costs.md#traces--spans-searching-spans-across-runs): search
// and filter by kind, model, tool, team, workflow, status, duration, cost and
// name, newest first, a page at a time.
//
// Fast at a million spans: every search is bounded by a time range (default
// the last 7 days, at most 31), so the database walks the (startTime) index, or
// (kind, startTime) when the kind is known (a model implies a model call, a
// tool a tool call), newest first, and stops once the page is full. The other
// filters are checked on the rows it walks.
//
// A filter the walk checks row by row makes a search that matches little or
// nothing read the whole range, so duration and name have indexes of their own,
// (durationMs, startTime) and (name): the search first counts, from each such
// index alone, up to SPARSE of that filter's matches (in the range for
// duration, at any time for name). None: the page is empty, nothing else is
// read. Fewer than SPARSE: SQLite reads them through that index and sorts them.
// Otherwise it walks the range as above (PostgreSQL's planner picks its own way
// from its statistics).
//
// Duration is the durationMs column the sinks write (endTime - startTime, to the
// millisecond); a span still open counts its time so far, from its startTime.
// The name search lists the distinct span names first (few: "chat <model>",
// "execute_tool <tool>", ...; one index step each) and keeps those containing
// the text, ignoring case on both (LIKE on SQLite, ILIKE on PostgreSQL); past
// MAX_NAMES distinct names it matches the text row by row. SQLite keeps times
// as ISO text, compared as text; PostgreSQL as timestamps, compared as such.
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
/** Up to this many matches of an indexed filter are read through its index and sorted; more fill a page soon on the walk. */
const SPARSE = 1000;
/** Distinct span names listed for a name search; past this many the text is matched row by row. */
const MAX_NAMES = 2000;
/** Distinct values per facet; more than this in one range is not a dropdown any more. */
const MAX_FACET_VALUES = 500;
const ISO_RE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

export const DateTime = z.union([z.date(), z.string().trim()]).transform((v, ctx) => {
  const d = v instanceof Date ? v : ISO_RE.test(v) ? new Date(v.length === 10 ? `${v}T00:00:00Z` : v) : null;
  if (!d || Number.isNaN(d.getTime())) {
    ctx.addIssue({ code: "custom", message: `must be an ISO date-time such as 2025-03-01T12:00:00Z (got "${String(v)}")` });
    return z.NEVER;
  }
  return d;
});

const Name = z.string().trim().min(1, "must not be empty").max(200, "is longer than 200 characters");
const Milliseconds = z
  .number()
  .min(0, "must not be negative")
  .max(30 * DAY_MS, "is longer than 30 days");

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
export function resolveRange(q: Range, now: Date, ctx: z.RefinementCtx): { from: Date; to: Date } {
  const to = q.to ?? now;
  const from = q.from ?? new Date(to.getTime() - DEFAULT_SEARCH_DAYS * DAY_MS);
  if (from > to)
    ctx.addIssue({ code: "custom", path: ["from"], message: `must not be after to (${from.toISOString()} is after ${to.toISOString()})` });
  else if (to.getTime() - from.getTime() > MAX_SEARCH_DAYS * DAY_MS) {
    ctx.addIssue({
      code: "custom",
      path: ["from"],
      message: `the range is at most ${MAX_SEARCH_DAYS} days (${from.toISOString()} to ${to.toISOString()})`,
    });
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
      ctx.addIssue({
        code: "custom",
        path: ["minDurationMs"],
        message: `must not be more than maxDurationMs (${q.minDurationMs} > ${q.maxDurationMs})`,
      });
    }
    const cursor = q.cursor ? decodeCursor(q.cursor) : null;
    if (q.cursor && !cursor)
      ctx.addIssue({ code: "custom", path: ["cursor"], message: "is not a cursor from an earlier page of this search" });
    const { direction: _direction, ...filter } = q;
    return { ...filter, ...range, q: q.q || undefined, cursor };
  }).parse(raw);
}

type Row = Omit<SpanHit, "startTime" | "endTime" | "durationMs"> & { startTime: string | Date; endTime: string | Date | null };

const asDate = (v: string | Date) => (v instanceof Date ? v : new Date(v));

/** A filter with an index of its own; `ranged` when startTime is in that index too. */
interface Indexed {
  index: string;
  ranged: boolean;
  sql: string;
  args: unknown[];
}

/** How many spans match an indexed filter (in [from, to] when the index has startTime), counted from its index alone, up to SPARSE. */
async function countUpTo(db: Db, filter: Indexed, [from, to]: string[]): Promise<number> {
  const pg = dbDialect(db) === "postgres";
  const t = pg ? "?::timestamp(3)" : "?";
  const range = filter.ranged ? `s."startTime" >= ${t} AND s."startTime" <= ${t} AND ` : "";
  const [row] = await db.$queryRawUnsafe<Array<{ n: number | bigint }>>(
    placeholders(
      db,
      `SELECT COUNT(*) AS n FROM (SELECT 1 FROM "Span" s ${pg ? "" : `INDEXED BY "${filter.index}"`} WHERE ${range}${filter.sql} LIMIT ${SPARSE}) AS p`,
    ),
    ...(filter.ranged ? [from, to] : []),
    ...filter.args,
  );
  return Number(row.n);
}

/** The distinct span names matching a LIKE pattern (any case), one (name) index step per name; null when there are more than MAX_NAMES names. */
async function namesLike(db: Db, pattern: string): Promise<string[] | null> {
  const rows = await db.$queryRawUnsafe<Array<{ name: string; hit: boolean | number }>>(
    placeholders(
      db,
      `WITH RECURSIVE names ("name", "n") AS (
         SELECT MIN("name"), 1 FROM "Span"
         UNION ALL
         SELECT (SELECT MIN(s."name") FROM "Span" s WHERE s."name" > names."name"), names."n" + 1 FROM names WHERE names."name" IS NOT NULL AND names."n" <= ${MAX_NAMES}
       )
       SELECT "name", "name" ${dbDialect(db) === "postgres" ? "ILIKE" : "LIKE"} ? ESCAPE '\\' AS hit FROM names WHERE "name" IS NOT NULL`,
    ),
    pattern,
  );
  if (rows.length > MAX_NAMES) return null;
  return rows.filter((r) => r.hit === true || Number(r.hit) === 1).map((r) => r.name);
}

/** Spans matching the filter that the actor may see, newest first, `limit` at a time. */
export async function searchSpans(
  db: Db,
  actor: Pick<Actor, "role" | "teamIds" | "userId">,
  raw: SpanSearch,
  now: Date = new Date(),
): Promise<SpanSearchResult> {
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
  const indexed: Indexed[] = [];
  const narrow = (index: string, ranged: boolean, sql: string, ...values: unknown[]) => {
    add(sql, ...values);
    indexed.push({ index, ranged, sql, args: values });
  };
  if (f.minDurationMs !== undefined || f.maxDurationMs !== undefined) {
    // Ended spans by their duration; open ones (no duration yet) by when they started.
    const ended: string[] = [];
    const open = [`s."durationMs" IS NULL`, `s."endTime" IS NULL`];
    const endedArgs: unknown[] = [];
    const openArgs: unknown[] = [];
    if (f.minDurationMs !== undefined) {
      ended.push(`s."durationMs" >= ?`);
      endedArgs.push(f.minDurationMs);
      open.push(`s."startTime" <= ${t}`);
      openArgs.push(stored(new Date(Math.floor(now.getTime() - f.minDurationMs))));
    }
    if (f.maxDurationMs !== undefined) {
      ended.push(`s."durationMs" <= ?`);
      endedArgs.push(f.maxDurationMs);
      open.push(`s."startTime" >= ${t}`);
      openArgs.push(stored(new Date(Math.ceil(now.getTime() - f.maxDurationMs))));
    }
    narrow("Span_durationMs_startTime_idx", true, `((${ended.join(" AND ")}) OR (${open.join(" AND ")}))`, ...endedArgs, ...openArgs);
  }
  if (f.minCostUsd !== undefined) add(`s."costUsd" >= ?`, f.minCostUsd);
  if (f.q) {
    const pattern = `%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const names = await namesLike(db, pattern);
    if (!names) add(`s."name" ${pg ? "ILIKE" : "LIKE"} ? ESCAPE '\\'`, pattern);
    else if (names.length === 0) return { spans: [], nextCursor: null, from: f.from, to: f.to };
    else narrow("Span_name_idx", false, `s."name" IN (${names.map(() => "?").join(", ")})`, ...names);
  }
  if (actor.role !== "admin") {
    const teams = actor.teamIds.map(() => "?").join(", ");
    add(teams ? `(r."teamId" IN (${teams}) OR r."createdById" = ?)` : `r."createdById" = ?`, ...actor.teamIds, actor.userId);
  }
  if (f.cursor)
    add(`(s."startTime" < ${t} OR (s."startTime" = ${t} AND s."spanId" < ?))`, f.cursor.startTime, f.cursor.startTime, f.cursor.spanId);

  let via = "";
  if (indexed.length) {
    const range = [stored(f.from), f.cursor?.startTime ?? stored(f.to)];
    const counts = await Promise.all(indexed.map((i) => countUpTo(db, i, range)));
    const fewest = counts.indexOf(Math.min(...counts));
    if (counts[fewest] === 0) return { spans: [], nextCursor: null, from: f.from, to: f.to };
    // SQLite's planner has no statistics to choose by; it is told.
    if (!pg)
      via = `INDEXED BY "${counts[fewest] < SPARSE ? indexed[fewest].index : kind ? "Span_kind_startTime_idx" : "Span_startTime_idx"}"`;
  }

  const rows = await db.$queryRawUnsafe<Row[]>(
    placeholders(
      db,
      `SELECT s."spanId", s."traceId", s."runId", r."goal" AS "runGoal", s."kind", s."name", s."startTime", s."endTime", s."status",
            s."teamId", s."workflowId", s."model", s."tool", s."inputTokens", s."outputTokens", s."cachedInputTokens", s."costUsd"
       FROM "Span" s ${via} JOIN "Run" r ON r."id" = s."runId"
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
export async function spanFacets(
  db: Db,
  actor: Pick<Actor, "role" | "teamIds">,
  raw: SpanFacetsQuery = {},
  now: Date = new Date(),
): Promise<SpanFacets> {
  const { from, to } = SpanFacetsQuery.transform((q, ctx) => resolveRange(q, now, ctx)).parse(raw);
  const days = [from.toISOString().slice(0, 10), to.toISOString().slice(0, 10)];
  const teams = actor.role === "admin" ? null : actor.teamIds;
  const scope = teams ? ` AND c."teamId" IN (${teams.map(() => "?").join(", ") || "NULL"})` : "";
  const scoped = [...days, ...(teams ?? [])];
  const distinct = (column: "model" | "workflowId") =>
    db.$queryRawUnsafe<Array<{ v: string }>>(
      placeholders(
        db,
        `SELECT DISTINCT c."${column}" AS v FROM "CostRollup" c WHERE c."day" BETWEEN ? AND ?${scope} ORDER BY v LIMIT ${MAX_FACET_VALUES}`,
      ),
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
      placeholders(
        db,
        `SELECT DISTINCT "name" AS v FROM "SpanRollup" WHERE "kind" = 'execute_tool' AND "day" BETWEEN ? AND ? AND "name" <> '' ORDER BY v LIMIT ${MAX_FACET_VALUES}`,
      ),
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
