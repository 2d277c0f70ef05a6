// The Costs page's health dashboards (docs/traces-and-costs.md#costs): tool
// success rate, latency percentiles per model and per tool, human requests (how
// many, how many answered, how fast) and the burn-down of each team's monthly
// budget. Reads only the daily rollups (SpanRollup, CostRollup), Team and the
// HumanRequest rows created in the range, never spans.
//
// Who sees what: tool success and latency come from SpanRollup, which has no
// team dimension. They describe the tools and models Rein runs, not anyone's
// spend, so every viewer sees them for all teams (`scope.tools` is "all").
// Human requests and budgets apply per team: admins see all of them; others
// see the requests of their own runs and their teams' runs, and the budgets
// of their teams (`scope.teams` is "teams").
import type { z } from "zod";
import type { Db, Prisma } from "@/server/db";
import type { Actor } from "@/server/identity";
import { CostQuery, resolveCostQuery } from "./dashboards";

export const HealthQuery = CostQuery.omit({ groupBy: true });
export type HealthQuery = z.input<typeof HealthQuery>;

const DAY_MS = 86_400_000;
export const LATENCY_KINDS = ["chat", "execute_tool"] as const;
export type LatencyKind = (typeof LATENCY_KINDS)[number];

export interface ToolSuccess {
  tool: string;
  calls: number;
  errors: number;
  /** Calls that did not end in an error, 0..1. */
  successRate: number;
}

export interface LatencyRow {
  kind: LatencyKind;
  /** The model ("<provider>/<model id>") for chat, the tool's name for execute_tool. */
  name: string;
  count: number;
  /** Upper bounds of the rollup's latency buckets (powers of two): the true percentile is at most this. */
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
}

export interface HumanRequestHealth {
  total: number;
  /** Decided by a person (approved or rejected). */
  answered: number;
  /** Nobody answered in time: expired, or a veto that went ahead at its deadline. */
  expired: number;
  canceled: number;
  open: number;
  /** answered / total, or null with no requests. */
  shareAnswered: number | null;
  /** Over the answered requests: decidedAt - createdAt. */
  medianAnswerMs: number | null;
  p95AnswerMs: number | null;
  /** Per request kind, most used first. */
  kinds: string[];
  /** One point per day of the range (zeros included). */
  byDay: Array<{ day: string; total: number; counts: Record<string, number> }>;
  /** Requests per run started in the range (the same visibility), or null with no runs. */
  perRun: number | null;
}

export interface TeamBurnDown {
  teamId: string;
  name: string;
  budgetUsd: number;
  spentUsd: number;
  /** The month's spend if the rest of it goes as it has so far. */
  projectedUsd: number;
  /** Every day of the month; cumulative spend up to today, null after it. */
  days: Array<{ day: string; cumulativeUsd: number | null }>;
}

export interface HealthSummary {
  from: string;
  to: string;
  scope: { tools: "all"; teams: "all" | "teams" };
  tools: ToolSuccess[];
  latency: LatencyRow[];
  humanRequests: HumanRequestHealth;
  /** This calendar month (UTC), whatever the range: the month team budgets are counted over. */
  burnDown: { month: string; teams: TeamBurnDown[] };
}

const dayOf = (d: Date) => d.toISOString().slice(0, 10);
const addDays = (day: string, n: number) => dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS));
const usd = (n: number) => Math.round(n * 1e8) / 1e8;

/** The largest latency a bucket holds, in ms: bucket 0 is under 1 ms, bucket b covers [2^(b-1), 2^b). */
export function bucketUpperMs(bucket: number): number {
  return 2 ** bucket;
}

/**
 * The q-quantile (0 < q <= 1) of a latency histogram, as the upper bound of the
 * bucket holding it (nearest rank). 0 for an empty histogram.
 */
export function percentileMs(histogram: Array<{ bucket: number; count: number }>, q: number): number {
  const sorted = histogram.filter((h) => h.count > 0).sort((a, b) => a.bucket - b.bucket);
  const total = sorted.reduce((n, h) => n + h.count, 0);
  if (total === 0) return 0;
  const rank = Math.max(1, Math.ceil(q * total - 1e-9)); // float products such as 0.07 * 100 land just above the integer
  let seen = 0;
  for (const h of sorted) {
    seen += h.count;
    if (seen >= rank) return bucketUpperMs(h.bucket);
  }
  return bucketUpperMs(sorted[sorted.length - 1].bucket);
}

/** The q-quantile of exact values (nearest rank), or null for none. */
export function quantile(values: number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length - 1e-9) - 1))];
}

type Viewer = Pick<Actor, "role" | "teamIds" | "userId">;

/** The health dashboards for a range, as the actor may see them. */
export async function healthSummary(db: Db, raw: HealthQuery, actor: Viewer, now: Date = new Date()): Promise<HealthSummary> {
  const { from, to } = resolveCostQuery(HealthQuery.parse(raw), now);
  const all = actor.role === "admin";
  const [tools, latency, humanRequests, burnDown] = await Promise.all([
    toolSuccess(db, from, to),
    latencyPercentiles(db, from, to),
    humanRequestHealth(db, from, to, all ? null : actor),
    budgetBurnDown(db, all ? null : actor.teamIds, now),
  ]);
  return { from, to, scope: { tools: "all", teams: all ? "all" : "teams" }, tools, latency, humanRequests, burnDown };
}

async function toolSuccess(db: Db, from: string, to: string): Promise<ToolSuccess[]> {
  const rows = await db.spanRollup.groupBy({
    by: ["name"],
    where: { kind: "execute_tool", day: { gte: from, lte: to } },
    _sum: { count: true, errors: true },
  });
  return rows
    .map((r) => {
      const calls = r._sum.count ?? 0;
      const errors = r._sum.errors ?? 0;
      return { tool: r.name, calls, errors, successRate: calls ? (calls - errors) / calls : 1 };
    })
    .filter((t) => t.calls > 0)
    .sort((a, b) => b.calls - a.calls || a.tool.localeCompare(b.tool));
}

async function latencyPercentiles(db: Db, from: string, to: string): Promise<LatencyRow[]> {
  const rows = await db.spanRollup.groupBy({
    by: ["kind", "name", "bucket"],
    where: { kind: { in: [...LATENCY_KINDS] }, day: { gte: from, lte: to } },
    _sum: { count: true },
  });
  const histograms = new Map<string, { kind: LatencyKind; name: string; buckets: Array<{ bucket: number; count: number }> }>();
  for (const r of rows) {
    const key = `${r.kind}\u0000${r.name}`;
    const h = histograms.get(key) ?? { kind: r.kind as LatencyKind, name: r.name, buckets: [] };
    h.buckets.push({ bucket: r.bucket, count: r._sum.count ?? 0 });
    histograms.set(key, h);
  }
  return [...histograms.values()]
    .map(({ kind, name, buckets }) => ({
      kind,
      name,
      count: buckets.reduce((n, b) => n + b.count, 0),
      p50Ms: percentileMs(buckets, 0.5),
      p95Ms: percentileMs(buckets, 0.95),
      p99Ms: percentileMs(buckets, 0.99),
    }))
    .filter((r) => r.count > 0)
    .sort((a, b) => a.kind.localeCompare(b.kind) || b.count - a.count || a.name.localeCompare(b.name));
}

/** Not answered by a person: the scheduler closed it at its deadline. */
function expiredRow(r: { state: string; decidedById: string | null }): boolean {
  return r.state === "EXPIRED" || r.decidedById === "system";
}

async function humanRequestHealth(db: Db, from: string, to: string, viewer: Viewer | null): Promise<HumanRequestHealth> {
  const range = { gte: new Date(`${from}T00:00:00Z`), lt: new Date(`${addDays(to, 1)}T00:00:00Z`) };
  const where: Prisma.HumanRequestWhereInput = {
    createdAt: range,
    ...(viewer ? { OR: [{ requestedById: viewer.userId }, { teamId: { in: viewer.teamIds } }] } : {}),
  };
  const runWhere: Prisma.RunWhereInput = {
    createdAt: range,
    ...(viewer ? { OR: [{ createdById: viewer.userId }, { teamId: { in: viewer.teamIds } }] } : {}),
  };
  // Requests are few (a person answers each one), so the rows are read, not rolled up.
  const [rows, runs] = await Promise.all([
    db.humanRequest.findMany({ where, select: { kind: true, state: true, createdAt: true, decidedAt: true, decidedById: true } }),
    db.run.count({ where: runWhere }),
  ]);

  const byKind = new Map<string, number>();
  const days = new Map<string, { day: string; total: number; counts: Record<string, number> }>();
  for (let day = from; day <= to; day = addDays(day, 1)) days.set(day, { day, total: 0, counts: {} });
  const answerMs: number[] = [];
  let expired = 0;
  let canceled = 0;
  let open = 0;
  for (const r of rows) {
    byKind.set(r.kind, (byKind.get(r.kind) ?? 0) + 1);
    const point = days.get(dayOf(r.createdAt));
    if (point) {
      point.total += 1;
      point.counts[r.kind] = (point.counts[r.kind] ?? 0) + 1;
    }
    if (r.state === "PENDING" || r.state === "ESCALATED") open++;
    else if (r.state === "CANCELED") canceled++;
    else if (expiredRow(r)) expired++;
    else if (r.decidedAt) answerMs.push(Math.max(0, r.decidedAt.getTime() - r.createdAt.getTime()));
  }
  const kinds = [...byKind].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k]) => k);
  for (const point of days.values()) for (const k of kinds) point.counts[k] ??= 0;
  return {
    total: rows.length,
    answered: answerMs.length,
    expired,
    canceled,
    open,
    shareAnswered: rows.length ? answerMs.length / rows.length : null,
    medianAnswerMs: quantile(answerMs, 0.5),
    p95AnswerMs: quantile(answerMs, 0.95),
    kinds,
    byDay: [...days.values()],
    perRun: runs ? rows.length / runs : null,
  };
}

/** Days of the UTC month of `now`: "YYYY-MM-01" .. the last day. */
function monthDays(now: Date): string[] {
  const first = `${dayOf(now).slice(0, 7)}-01`;
  const days: string[] = [];
  for (let day = first; day.slice(0, 7) === first.slice(0, 7); day = addDays(day, 1)) days.push(day);
  return days;
}

/** Each budgeted team's spend this month, day by day, from CostRollup (as Budgets counts it). */
export async function budgetBurnDown(db: Db, teamIds: string[] | null, now: Date = new Date()): Promise<HealthSummary["burnDown"]> {
  const days = monthDays(now);
  const month = days[0].slice(0, 7);
  const today = dayOf(now);
  const teams = await db.team.findMany({
    where: { budgetUsd: { not: null }, ...(teamIds ? { id: { in: teamIds } } : {}) },
    select: { id: true, name: true, budgetUsd: true },
    orderBy: { name: "asc" },
  });
  if (teams.length === 0) return { month, teams: [] };
  const rows = await db.costRollup.groupBy({
    by: ["teamId", "day"],
    where: { teamId: { in: teams.map((t) => t.id) }, day: { gte: days[0], lte: days[days.length - 1] } },
    _sum: { costUsd: true },
  });
  const spend = new Map(rows.map((r) => [`${r.teamId} ${r.day}`, r._sum.costUsd ?? 0]));
  const elapsed = Math.max(1, days.filter((d) => d <= today).length);
  return {
    month,
    teams: teams.map((t) => {
      let cumulative = 0;
      const points = days.map((day) => {
        cumulative += spend.get(`${t.id} ${day}`) ?? 0;
        return { day, cumulativeUsd: day <= today ? usd(cumulative) : null };
      });
      // Spend is counted on every day of the month, even one after today (a clock ahead elsewhere).
      const spentUsd = usd(cumulative);
      return {
        teamId: t.id,
        name: t.name,
        budgetUsd: t.budgetUsd!,
        spentUsd,
        projectedUsd: usd((spentUsd / elapsed) * days.length),
        days: points,
      };
    }),
  };
}
