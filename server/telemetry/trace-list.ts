// The trace list (docs/traces-and-costs.md#traces-the-list-of-runs): one row
// per run (its trace) for the Traces page, with its agent, team, launcher,
// status, duration, span count, tokens and cost, newest first or by duration,
// cost or tokens, a page at a time.
//
// Fast with a million spans: the row's figures are the run's own columns
// (tokens and cost are summed into the run as it works), so the list reads
// runs, not spans. Every list is bounded by a time range on the run's
// createdAt (default the last 7 days, at most 31), walked through the
// (createdAt) index when sorted by time. Pages are keyset-paged on (sort key,
// id), never OFFSET. Span counts are counted for the page's runs only, through
// the (runId, startTime) index of Span.
//
// Duration is endedAt - startedAt; a run still going has none yet, so sorted
// by duration it comes after every finished run (its time so far is shown).
//
// Who sees what: the same rule as runs (server/kernel/runs.ts runsVisibleTo),
// checked in the query.
import { z } from "zod";
import { dbDialect, type Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import { RUN_STATES, type RunState } from "@/server/kernel";
import { placeholders } from "./sql";
import { DateTime, DEFAULT_SEARCH_DAYS, MAX_SEARCH_DAYS, resolveRange } from "./search";

export const TRACE_SORTS = ["time", "duration", "cost", "tokens"] as const;
export type TraceSort = (typeof TRACE_SORTS)[number];
export const DEFAULT_TRACE_LIMIT = 50;
export const MAX_TRACE_LIMIT = 200;
const DAY_MS = 86_400_000;

const Name = z.string().trim().min(1, "must not be empty").max(200, "is longer than 200 characters");

export const TraceList = z.strictObject({
  agent: Name.optional(),
  status: z
    .array(z.enum(RUN_STATES, { error: `must be one of ${RUN_STATES.join(", ")}` }))
    .max(RUN_STATES.length)
    .optional(),
  /** The person who launched the run. */
  userId: Name.optional(),
  teamId: Name.optional(),
  /** Runs created at or after this. Default: 7 days before `to`. */
  from: DateTime.optional(),
  /** Runs created at or before this. Default: now. */
  to: DateTime.optional(),
  /** Part of the run's name (its goal), any case. */
  q: z.string().trim().max(200, "is longer than 200 characters").optional(),
  /** Runs that took at least this long (finished runs only). */
  minDurationMs: z
    .number()
    .min(0, "must not be negative")
    .max(30 * DAY_MS, "is longer than 30 days")
    .optional(),
  sort: z.enum(TRACE_SORTS, { error: `must be one of ${TRACE_SORTS.join(", ")}` }).default("time"),
  order: z.enum(["desc", "asc"], { error: "must be desc or asc" }).default("desc"),
  /** nextCursor of the page before (the same sort and order). */
  cursor: z.string().max(1000).optional(),
  limit: z.number().int().min(1).max(MAX_TRACE_LIMIT, `must be at most ${MAX_TRACE_LIMIT}`).default(DEFAULT_TRACE_LIMIT),
  /** Sent by tRPC's infinite queries; pages only go forward. */
  direction: z.literal("forward", { error: "only forward paging is supported" }).optional(),
});
export type TraceList = z.input<typeof TraceList>;

export interface TraceRow {
  runId: string;
  /** The run's goal. */
  name: string;
  agentName: string;
  teamId: string | null;
  teamName: string | null;
  user: { id: string; name: string; email: string };
  status: RunState;
  createdAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
  /** null until the run has started; a run still going counts its time so far. */
  durationMs: number | null;
  spanCount: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface TraceListResult {
  traces: TraceRow[];
  nextCursor: string | null;
  from: Date;
  to: Date;
}

/** A page's last sort value and id; numbers for duration, cost and tokens, the stored time for time. */
type Cursor = { k: number | string; id: string };

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.k, c.id]), "utf8").toString("base64url");
}

export function decodeTraceCursor(cursor: string, sort: TraceSort): Cursor | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (!Array.isArray(v) || v.length !== 2 || typeof v[1] !== "string" || !v[1]) return null;
    const [k, id] = v as [unknown, string];
    if (sort === "time") return typeof k === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/.test(k) ? { k, id } : null;
    return typeof k === "number" && Number.isFinite(k) ? { k, id } : null;
  } catch {
    return null;
  }
}

/** Validates a list query and fills in its defaults (the last 7 days up to now). */
export function resolveTraceList(raw: TraceList, now: Date = new Date()) {
  return TraceList.transform((q, ctx) => {
    const range = resolveRange(q, now, ctx);
    const cursor = q.cursor ? decodeTraceCursor(q.cursor, q.sort) : null;
    if (q.cursor && !cursor)
      ctx.addIssue({ code: "custom", path: ["cursor"], message: "is not a cursor from an earlier page of this list" });
    const { direction: _direction, ...filter } = q;
    return { ...filter, ...range, q: q.q || undefined, cursor };
  }).parse(raw);
}

const stored = (d: Date) => d.toISOString().replace("Z", "+00:00");
const asDate = (v: string | Date | null) => (v === null ? null : v instanceof Date ? v : new Date(v));

type Row = {
  id: string;
  goal: string;
  agentName: string;
  teamId: string | null;
  teamName: string | null;
  userId: string;
  userName: string;
  userEmail: string;
  status: string;
  createdAt: string | Date;
  startedAt: string | Date | null;
  endedAt: string | Date | null;
  inputTokens: number | bigint;
  outputTokens: number | bigint;
  costUsd: number;
  k: number | bigint | string | Date | null;
};

/** Milliseconds between two run times, in SQL; null while either is. */
function durationSql(pg: boolean): string {
  return pg
    ? `ROUND(EXTRACT(EPOCH FROM (r."endedAt" - r."startedAt")) * 1000)`
    : `CAST(ROUND((julianday(r."endedAt") - julianday(r."startedAt")) * 86400000) AS INTEGER)`;
}

/** The sort key: unfinished runs count -1 for duration, so they come last (first ascending) and keyset paging stays exact. */
function sortSql(sort: TraceSort, pg: boolean): string {
  if (sort === "time") return `r."createdAt"`;
  if (sort === "cost") return `r."costUsd"`;
  if (sort === "tokens") return `(r."inputTokens" + r."outputTokens")`;
  return `COALESCE(${durationSql(pg)}, -1)`;
}

/** Runs (traces) matching the filter that the actor may see, `limit` at a time. */
export async function listTraces(
  db: Db,
  actor: Pick<Actor, "role" | "teamIds" | "userId">,
  raw: TraceList,
  now: Date = new Date(),
): Promise<TraceListResult> {
  const f = resolveTraceList(raw, now);
  const pg = dbDialect(db) === "postgres";
  const t = pg ? "?::timestamp(3)" : "?";
  const where: string[] = [`r."createdAt" >= ${t}`, `r."createdAt" <= ${t}`];
  const args: unknown[] = [stored(f.from), stored(f.to)];
  const add = (sql: string, ...values: unknown[]) => {
    where.push(sql);
    args.push(...values);
  };
  if (f.agent) add(`r."agentName" = ?`, f.agent);
  if (f.status?.length) add(`r."status" IN (${f.status.map(() => "?").join(", ")})`, ...f.status);
  if (f.userId) add(`r."createdById" = ?`, f.userId);
  if (f.teamId) add(`r."teamId" = ?`, f.teamId);
  if (f.q) add(`r."goal" ${pg ? "ILIKE" : "LIKE"} ? ESCAPE '\\'`, `%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  if (f.minDurationMs !== undefined) add(`${durationSql(pg)} >= ?`, f.minDurationMs);
  if (actor.role !== "admin") {
    const teams = actor.teamIds.map(() => "?").join(", ");
    add(teams ? `(r."teamId" IN (${teams}) OR r."createdById" = ?)` : `r."createdById" = ?`, ...actor.teamIds, actor.userId);
  }
  const key = sortSql(f.sort, pg);
  const dir = f.order === "asc" ? "ASC" : "DESC";
  const cmp = f.order === "asc" ? ">" : "<";
  if (f.cursor) {
    const k = f.sort === "time" ? t : "?";
    add(`(${key} ${cmp} ${k} OR (${key} = ${k} AND r."id" ${cmp} ?))`, f.cursor.k, f.cursor.k, f.cursor.id);
  }

  const rows = await db.$queryRawUnsafe<Row[]>(
    placeholders(
      db,
      `SELECT r."id", r."goal", r."agentName", r."teamId", tm."name" AS "teamName", r."createdById" AS "userId", u."name" AS "userName", u."email" AS "userEmail",
              r."status", r."createdAt", r."startedAt", r."endedAt", r."inputTokens", r."outputTokens", r."costUsd", ${key} AS "k"
         FROM "Run" r JOIN "User" u ON u."id" = r."createdById" LEFT JOIN "Team" tm ON tm."id" = r."teamId"
        WHERE ${where.join(" AND ")}
        ORDER BY ${key} ${dir}, r."id" ${dir}
        LIMIT ?`,
    ),
    ...args,
    f.limit + 1,
  );
  const page = rows.slice(0, f.limit);
  const counts = await spanCounts(
    db,
    page.map((r) => r.id),
  );
  const traces = page.map((r): TraceRow => {
    const startedAt = asDate(r.startedAt);
    const endedAt = asDate(r.endedAt);
    const end = endedAt ?? (startedAt && r.status === "running" ? now : null);
    return {
      runId: r.id,
      name: r.goal,
      agentName: r.agentName,
      teamId: r.teamId,
      teamName: r.teamName,
      user: { id: r.userId, name: r.userName, email: r.userEmail },
      status: r.status as RunState,
      createdAt: asDate(r.createdAt)!,
      startedAt,
      endedAt,
      durationMs: startedAt && end ? Math.max(0, end.getTime() - startedAt.getTime()) : null,
      spanCount: counts.get(r.id) ?? 0,
      inputTokens: Number(r.inputTokens),
      outputTokens: Number(r.outputTokens),
      costUsd: r.costUsd,
    };
  });
  const last = rows.length > f.limit ? page[page.length - 1] : null;
  const nextCursor = last
    ? encodeCursor({ k: f.sort === "time" ? stored(asDate(last.createdAt as string | Date)!) : Number(last.k), id: last.id })
    : null;
  return { traces, nextCursor, from: f.from, to: f.to };
}

/** Spans per run for one page of runs, from the (runId, startTime) index. */
async function spanCounts(db: Db, runIds: string[]): Promise<Map<string, number>> {
  if (!runIds.length) return new Map();
  const rows = await db.$queryRawUnsafe<Array<{ runId: string; n: number | bigint }>>(
    placeholders(db, `SELECT "runId", COUNT(*) AS n FROM "Span" WHERE "runId" IN (${runIds.map(() => "?").join(", ")}) GROUP BY "runId"`),
    ...runIds,
  );
  return new Map(rows.map((r) => [r.runId, Number(r.n)]));
}

export { DEFAULT_SEARCH_DAYS as DEFAULT_TRACE_DAYS, MAX_SEARCH_DAYS as MAX_TRACE_DAYS };
