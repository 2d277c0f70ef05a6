// The Costs dashboards (docs/traces-and-costs.md#costs): cost over time by
// team, workflow or model, tokens by model, runs by outcome and totals. Reads
// only the daily CostRollup rows and Run aggregates, never spans, so it stays
// fast however many spans there are.
//
// Who sees what: admins see every row. Everyone else sees the rows of their
// teams only. A rollup row does not say who launched its runs, so the rows of
// runs without a team ("No team") are shown to admins only; runs by outcome
// are counted with the same team filter, so the figures agree. A team gateway
// key's calls are the workflow "gateway-key:<id>", shown by the key's name to
// those who see its team (docs/traces-and-costs.md#costs).
import { z } from "zod";
import type { Db, Prisma } from "@/server/db";
import type { Actor } from "@/server/identity";
import { GATEWAY_KEY_RUN_PREFIX } from "./ids";
import { unpricedModels } from "./prices";

export const COST_GROUP_BYS = ["team", "workflow", "model"] as const;
export type CostGroupBy = (typeof COST_GROUP_BYS)[number];

export const MAX_RANGE_DAYS = 366;
export const DEFAULT_RANGE_DAYS = 30;
/** Series drawn in the cost chart; the rest are summed into "Other". */
export const MAX_SERIES = 8;
export const OTHER_KEY = "__other__";
export const NO_TEAM_LABEL = "No team";
/** A team gateway key's workflow whose key the viewer may not see, or that is gone. */
export const UNKNOWN_KEY_LABEL = "Gateway key (unknown)";

const DAY_MS = 86_400_000;
const ISO_RE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** A date or date-time in ISO 8601 -> its UTC day, "YYYY-MM-DD". */
const IsoDay = z
  .string()
  .trim()
  .transform((s, ctx) => {
    const d = ISO_RE.test(s) ? new Date(s.length === 10 ? `${s}T00:00:00Z` : s) : null;
    // Date-only values must round-trip (2025-02-30 is not a day).
    if (!d || Number.isNaN(d.getTime()) || (s.length === 10 && dayOf(d) !== s)) {
      ctx.addIssue({ code: "custom", message: `must be an ISO date such as 2025-03-01 or 2025-03-01T00:00:00Z (got "${s}")` });
      return z.NEVER;
    }
    return dayOf(d);
  });

export const CostQuery = z.strictObject({
  /** First day, inclusive (UTC). Default: 29 days before `to`. */
  from: IsoDay.optional(),
  /** Last day, inclusive (UTC). Default: today. */
  to: IsoDay.optional(),
  groupBy: z.enum(COST_GROUP_BYS, { error: `must be one of ${COST_GROUP_BYS.join(", ")}` }).default("model"),
});
export type CostQuery = z.input<typeof CostQuery>;

export interface CostTotals {
  costUsd: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

export interface CostGroup extends CostTotals {
  key: string;
  label: string;
}

export interface CostSummary {
  from: string;
  to: string;
  groupBy: CostGroupBy;
  /** "all" for admins, "teams" when only the caller's teams are counted. */
  scope: "all" | "teams";
  totals: CostTotals & { runs: number };
  /** Every group in the range, most expensive first. */
  groups: CostGroup[];
  /** The cost chart: one point per day (zeros included) with a value per series key. */
  series: { keys: Array<{ key: string; label: string }>; days: Array<{ day: string; total: number; values: Record<string, number> }> };
  tokensByModel: Array<CostTotals & { model: string }>;
  /** Runs created in the range, by status. */
  runsByOutcome: Array<{ status: string; count: number }>;
  /** Models in the range with no price: their calls count as $0. */
  unpricedModels: string[];
}

function dayOf(d: Date): string {
  return d.toISOString().slice(0, 10);
}

function addDays(day: string, n: number): string {
  return dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS));
}

/** Sums of floats drift; rollups are exact to a millionth of a cent, so are these. */
const usd = (n: number) => Math.round(n * 1e8) / 1e8;

/** Validates the query and fills in the default range (the last 30 days, today included). */
export function resolveCostQuery(raw: CostQuery, now: Date = new Date()): { from: string; to: string; groupBy: CostGroupBy } {
  // The range checks are part of the parse, so every bad input is one ZodError (BAD_REQUEST / 400).
  const resolved = CostQuery.transform((q, ctx) => {
    const to = q.to ?? dayOf(now);
    const from = q.from ?? addDays(to, -(DEFAULT_RANGE_DAYS - 1));
    const days = Math.round((Date.parse(to) - Date.parse(from)) / DAY_MS) + 1;
    if (from > to) ctx.addIssue({ code: "custom", path: ["from"], message: `must not be after to (${from} is after ${to})` });
    else if (days > MAX_RANGE_DAYS)
      ctx.addIssue({
        code: "custom",
        path: ["from"],
        message: `the range is at most ${MAX_RANGE_DAYS} days (${from} to ${to} is ${days})`,
      });
    return { from, to, groupBy: q.groupBy };
  });
  return resolved.parse(raw);
}

const COLUMN: Record<CostGroupBy, "teamId" | "workflowId" | "model"> = { team: "teamId", workflow: "workflowId", model: "model" };

const SUMS = { calls: true, inputTokens: true, outputTokens: true, cachedInputTokens: true, costUsd: true } as const;

type Sums = {
  calls: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cachedInputTokens: number | null;
  costUsd: number | null;
};

function totalsOf(s: Sums): CostTotals {
  return {
    costUsd: s.costUsd ?? 0,
    calls: s.calls ?? 0,
    inputTokens: s.inputTokens ?? 0,
    outputTokens: s.outputTokens ?? 0,
    cachedInputTokens: s.cachedInputTokens ?? 0,
  };
}

function add(into: CostTotals, t: CostTotals) {
  into.costUsd += t.costUsd;
  into.calls += t.calls;
  into.inputTokens += t.inputTokens;
  into.outputTokens += t.outputTokens;
  into.cachedInputTokens += t.cachedInputTokens;
}

const zero = (): CostTotals => ({ costUsd: 0, calls: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 });
const rounded = <T extends CostTotals>(t: T): T => ({ ...t, costUsd: usd(t.costUsd) });

/** The dashboards' figures for a range, as the actor may see them. */
export async function costSummary(db: Db, raw: CostQuery, actor: Pick<Actor, "role" | "teamIds">, now?: Date): Promise<CostSummary> {
  const { from, to, groupBy } = resolveCostQuery(raw, now);
  const all = actor.role === "admin";
  const rollupWhere: Prisma.CostRollupWhereInput = { day: { gte: from, lte: to }, ...(all ? {} : { teamId: { in: actor.teamIds } }) };
  const runWhere: Prisma.RunWhereInput = {
    createdAt: { gte: new Date(`${from}T00:00:00Z`), lt: new Date(`${addDays(to, 1)}T00:00:00Z`) },
    ...(all ? {} : { teamId: { in: actor.teamIds } }),
  };
  const column = COLUMN[groupBy];

  const [byDay, byModel, byStatus, unpriced] = await Promise.all([
    db.costRollup.groupBy({ by: ["day", column], where: rollupWhere, _sum: SUMS, orderBy: { day: "asc" } }),
    db.costRollup.groupBy({ by: ["model"], where: rollupWhere, _sum: SUMS }),
    db.run.groupBy({ by: ["status"], where: runWhere, _count: { _all: true } }),
    unpricedModels(db, rollupWhere),
  ]);

  const groupTotals = new Map<string, CostTotals>();
  for (const row of byDay) {
    const key = (row as Record<string, unknown>)[column] as string;
    const t = groupTotals.get(key) ?? zero();
    add(t, totalsOf(row._sum));
    groupTotals.set(key, t);
  }
  const labels = await labelsFor(db, groupBy, [...groupTotals.keys()], rollupWhere, all ? null : actor.teamIds);
  const groups: CostGroup[] = [...groupTotals]
    .map(([key, t]) => rounded({ key, label: labels.get(key) ?? key, ...t }))
    .sort((a, b) => b.costUsd - a.costUsd || b.calls - a.calls || a.label.localeCompare(b.label));

  const totals = zero();
  for (const g of groupTotals.values()) add(totals, g);

  const runsByOutcome = byStatus
    .map((r) => ({ status: r.status, count: r._count._all }))
    .sort((a, b) => b.count - a.count || a.status.localeCompare(b.status));

  return {
    from,
    to,
    groupBy,
    scope: all ? "all" : "teams",
    totals: { ...rounded(totals), runs: runsByOutcome.reduce((n, r) => n + r.count, 0) },
    groups,
    series: seriesOf(from, to, column, byDay, groups),
    tokensByModel: byModel
      .map((r) => rounded({ model: r.model, ...totalsOf(r._sum) }))
      .sort((a, b) => b.inputTokens + b.outputTokens - (a.inputTokens + a.outputTokens) || a.model.localeCompare(b.model)),
    runsByOutcome,
    unpricedModels: unpriced,
  };
}

/** Daily cost per series: the MAX_SERIES most expensive groups, the rest as "Other". */
function seriesOf(
  from: string,
  to: string,
  column: string,
  byDay: Array<{ day: string; _sum: Sums }>,
  groups: CostGroup[],
): CostSummary["series"] {
  const shown = groups.length > MAX_SERIES ? groups.slice(0, MAX_SERIES - 1) : groups;
  const keys = shown.map((g) => ({ key: g.key, label: g.label }));
  const shownKeys = new Set(keys.map((k) => k.key));
  if (groups.length > shown.length) keys.push({ key: OTHER_KEY, label: `Other (${groups.length - shown.length})` });

  const days = new Map<string, { day: string; total: number; values: Record<string, number> }>();
  for (let day = from; day <= to; day = addDays(day, 1)) {
    days.set(day, { day, total: 0, values: Object.fromEntries(keys.map((k) => [k.key, 0])) });
  }
  for (const row of byDay) {
    const point = days.get(row.day);
    if (!point) continue;
    const group = (row as Record<string, unknown>)[column] as string;
    const key = shownKeys.has(group) ? group : OTHER_KEY;
    const cost = row._sum.costUsd ?? 0;
    point.values[key] = usd(point.values[key] + cost);
    point.total = usd(point.total + cost);
  }
  return { keys, days: [...days.values()] };
}

async function labelsFor(
  db: Db,
  groupBy: CostGroupBy,
  keys: string[],
  rollupWhere: Prisma.CostRollupWhereInput,
  teamIds: string[] | null,
): Promise<Map<string, string>> {
  const labels = new Map(keys.map((k) => [k, k]));
  if (groupBy === "workflow") {
    const keyWorkflows = keys.filter((k) => k.startsWith(GATEWAY_KEY_RUN_PREFIX));
    if (keyWorkflows.length) for (const [k, label] of await keyLabels(db, keyWorkflows, rollupWhere, teamIds)) labels.set(k, label);
    return labels;
  }
  if (groupBy !== "team") return labels;
  if (labels.has("")) labels.set("", NO_TEAM_LABEL);
  const ids = keys.filter(Boolean);
  if (ids.length === 0) return labels;
  const teams = await db.team.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } });
  for (const t of teams) labels.set(t.id, t.name);
  return labels;
}

/**
 * A team gateway key's calls are the workflow `gateway-key:<key id>`, shown as
 * "Gateway key <name>" (docs/gateway.md#what-is-recorded); the id stays the
 * group's key. The name is looked up only among the keys of the teams the
 * viewer sees (`teamIds`; null: every team), and shown only when the key's
 * own team is among the teams whose rows carry that id, so a workflow id that
 * names another team's key never reveals its name.
 */
async function keyLabels(
  db: Db,
  workflowIds: string[],
  rollupWhere: Prisma.CostRollupWhereInput,
  teamIds: string[] | null,
): Promise<Map<string, string>> {
  const [rows, keys] = await Promise.all([
    db.costRollup.groupBy({ by: ["workflowId", "teamId"], where: { AND: [rollupWhere, { workflowId: { in: workflowIds } }] } }),
    db.gatewayKey.findMany({
      where: {
        id: { in: workflowIds.map((w) => w.slice(GATEWAY_KEY_RUN_PREFIX.length)) },
        ...(teamIds ? { teamId: { in: teamIds } } : {}),
      },
      select: { id: true, teamId: true, name: true, revokedAt: true },
    }),
  ]);
  const rowTeams = new Set(rows.map((r) => `${r.workflowId}\u0000${r.teamId}`));
  const byId = new Map(keys.map((k) => [k.id, k]));
  return new Map(
    workflowIds.map((w) => {
      const key = byId.get(w.slice(GATEWAY_KEY_RUN_PREFIX.length));
      if (!key || !rowTeams.has(`${w}\u0000${key.teamId}`)) return [w, UNKNOWN_KEY_LABEL];
      return [w, `Gateway key ${key.name}${key.revokedAt ? " (revoked)" : ""}`];
    }),
  );
}
