// Budgets (docs/runs.md#limits): checked before every model call. Every limit that
// applies is checked on its own — the run's ceiling, the default ceiling for
// runs, and the team's monthly budget — so no combination of team, user or run
// settings can lift one of them.
import { createHash } from "node:crypto";
import type { Db, NativeSqlite } from "@/server/db";
import { formatCost } from "@/lib/format";

export const SETTING_RUN_BUDGET = "limits.runBudgetUsd";

export interface BudgetVerdict {
  ok: boolean;
  code?: "RUN_BUDGET_EXCEEDED" | "TEAM_BUDGET_EXCEEDED";
  reason?: string;
}

export interface BudgetDeps {
  db: Db;
  /** The direct SQLite connection: the reads before every model call cost ~0.05 ms instead of ~2 ms through Prisma. */
  native?: NativeSqlite | null;
  /** Writes queued spans so the spend read next is current (telemetry's TraceSink.flush). */
  flush: () => Promise<void>;
  /**
   * The spend queued and not yet written (telemetry's TraceSink.unwrittenCalls):
   * given, it is added to what is stored and nothing is flushed before a model
   * call, so spans keep being written in batches.
   */
  unwritten?: (scope: { runId: string } | { teamId: string; fromDay: string }) => { costUsd: number; latest: { costUsd: number } | null };
  now?: () => Date;
  log?: { error(msg: string, err?: unknown): void };
}

/** Past this share of a budget, the channels are told once (a budget.warning webhook). */
export const BUDGET_WARNING_SHARE = 0.8;

/** What a budget check compares: the limits that apply to a run, and what has been spent against them. */
interface Standing {
  budgetUsd: number | null;
  teamId: string | null;
  team: { name: string; budgetUsd: number | null } | null;
  defaultRunBudget: number | null;
  /** The run's model calls so far, stored and queued: their total cost, and the cost of the latest; null when no limit applies. */
  run: { spent: number; last: number } | null;
  /** The team's spend since `fromDay`, stored and queued; null when the team has no budget. */
  teamSpent: number | null;
}

interface BudgetReads {
  defaultRunBudget(): Promise<number | null>;
  /** The standing of a run for a check (`fromDay`: the first day of the team's month); null for an unknown run. */
  standing(runId: string, fromDay: string): Promise<Standing | null>;
}

function settingNumber(value: string | null | undefined): number | null {
  const parsed: unknown = value ? JSON.parse(value) : null;
  return typeof parsed === "number" && parsed >= 0 ? parsed : null;
}

function prismaReads(db: Db, deps: BudgetDeps): BudgetReads {
  const defaultRunBudget = async () => settingNumber((await db.setting.findUnique({ where: { key: SETTING_RUN_BUDGET } }))?.value);
  const runSpend = async (runId: string) => {
    const calls = await db.span.findMany({ where: { runId, kind: "chat" }, select: { costUsd: true }, orderBy: { startTime: "desc" } });
    return { spent: calls.reduce((n, c) => n + c.costUsd, 0), last: calls[0]?.costUsd ?? 0 };
  };
  return {
    defaultRunBudget,
    async standing(runId, fromDay) {
      const run = await db.run.findUnique({
        where: { id: runId },
        select: { budgetUsd: true, teamId: true, team: { select: { name: true, budgetUsd: true } } },
      });
      if (!run) return null;
      const defaults = await defaultRunBudget();
      const teamBudget = run.teamId ? (run.team?.budgetUsd ?? null) : null;
      if (run.budgetUsd === null && defaults === null && teamBudget === null)
        return { ...run, defaultRunBudget: defaults, run: null, teamSpent: null };
      // The queue first, then the database: a batch written in between counts twice (the budget
      // stops early), never not at all.
      let spend: Standing["run"];
      if (deps.unwritten) {
        const queued = deps.unwritten({ runId });
        const stored = await runSpend(runId);
        spend = { spent: stored.spent + queued.costUsd, last: queued.latest?.costUsd ?? stored.last };
      } else {
        await deps.flush();
        spend = await runSpend(runId);
      }
      let teamSpent: number | null = null;
      if (teamBudget !== null && run.teamId) {
        const queued = deps.unwritten?.({ teamId: run.teamId, fromDay }).costUsd ?? 0;
        const agg = await db.costRollup.aggregate({ where: { teamId: run.teamId, day: { gte: fromDay } }, _sum: { costUsd: true } });
        teamSpent = (agg._sum.costUsd ?? 0) + queued;
      }
      return { ...run, defaultRunBudget: defaults, run: spend, teamSpent };
    },
  };
}

/**
 * One statement for the whole check (each read on its own costs a lock of
 * the database; docs/performance.md#the-durable-step). The spend is summed only
 * when a limit applies; CASE leaves the other subqueries unrun.
 */
function sqliteReads(native: NativeSqlite, deps: BudgetDeps): BudgetReads {
  const { unwritten } = deps;
  const setting = native.prepare(`SELECT value FROM "Setting" WHERE key = ?`).pluck();
  // "+kind": look the run's spans up by run (a few hundred), never every chat span of every run by kind.
  const standing = native.prepare(
    `SELECT r.budgetUsd, r.teamId, t.name AS teamName, t.budgetUsd AS teamBudgetUsd, s.value AS defaultRunBudget,
       CASE WHEN r.budgetUsd IS NOT NULL OR s.value IS NOT NULL OR t.budgetUsd IS NOT NULL THEN
         (SELECT COALESCE(SUM(costUsd), 0) FROM "Span" WHERE runId = r.id AND +kind = 'chat') END AS spent,
       CASE WHEN r.budgetUsd IS NOT NULL OR s.value IS NOT NULL OR t.budgetUsd IS NOT NULL THEN
         (SELECT costUsd FROM "Span" WHERE runId = r.id AND +kind = 'chat' ORDER BY startTime DESC LIMIT 1) END AS last,
       CASE WHEN t.budgetUsd IS NOT NULL THEN
         (SELECT COALESCE(SUM(costUsd), 0) FROM "CostRollup" WHERE teamId = r.teamId AND day >= @fromDay) END AS teamSpent
     FROM "Run" r LEFT JOIN "Team" t ON t.id = r.teamId LEFT JOIN "Setting" s ON s.key = @setting
     WHERE r.id = @runId`,
  );
  type Row = {
    budgetUsd: number | null;
    teamId: string | null;
    teamName: string | null;
    teamBudgetUsd: number | null;
    defaultRunBudget: string | null;
    spent: number | null;
    last: number | null;
    teamSpent: number | null;
  };
  return {
    defaultRunBudget: async () => settingNumber(setting.get(SETTING_RUN_BUDGET) as string | undefined),
    async standing(runId, fromDay) {
      if (!unwritten) await deps.flush();
      // The statement and the queue in one synchronous stretch: no batch of spans can be written
      // between the two (the sink writes on this thread), so nothing counts twice or not at all.
      const row = standing.get({ runId, fromDay, setting: SETTING_RUN_BUDGET }) as Row | undefined;
      if (!row) return null;
      const team = row.teamId !== null && row.teamName !== null ? { name: row.teamName, budgetUsd: row.teamBudgetUsd } : null;
      const defaults = settingNumber(row.defaultRunBudget);
      const limited = row.budgetUsd !== null || defaults !== null || team?.budgetUsd != null;
      let spend: Standing["run"] = null;
      if (limited) {
        const queued = unwritten?.({ runId });
        spend = { spent: (row.spent ?? 0) + (queued?.costUsd ?? 0), last: queued?.latest?.costUsd ?? row.last ?? 0 };
      }
      const teamSpent =
        team?.budgetUsd != null && row.teamId ? (row.teamSpent ?? 0) + (unwritten?.({ teamId: row.teamId, fromDay }).costUsd ?? 0) : null;
      return { budgetUsd: row.budgetUsd, teamId: row.teamId, team, defaultRunBudget: defaults, run: spend, teamSpent };
    },
  };
}

export class Budgets {
  private readonly reads: BudgetReads;

  constructor(private readonly deps: BudgetDeps) {
    this.reads = deps.native ? sqliteReads(deps.native, deps) : prismaReads(deps.db, deps);
  }

  /** The default cost ceiling of every run (admin setting), or null. */
  defaultRunBudget(): Promise<number | null> {
    return this.reads.defaultRunBudget();
  }

  /** Before a model call: would it go over a budget that applies to this run? */
  beforeModelCall(runId: string): Promise<BudgetVerdict> {
    // The next call is assumed to cost what the last one did.
    return this.check(runId, (lastCall) => ({ usd: lastCall, what: "the next model call" }));
  }

  /**
   * Would spending `usd` more (`what`: "T2 (desktop) for 10 min") go over a
   * budget that applies to this run? The same limits as before a model call.
   */
  covers(runId: string, usd: number, what: string): Promise<BudgetVerdict> {
    return this.check(runId, () => ({ usd, what }));
  }

  /**
   * Before a model call that belongs to no run (a team gateway key,
   * docs/gateway.md#team-keys): the team's monthly budget, counted, worded
   * and warned of at 80% as for a run of the team (the same one warning a
   * month, whichever crosses it). `usd`: what the next call is assumed to cost.
   */
  async beforeTeamCall(teamId: string, usd: number, from?: { gatewayKeyId: string }): Promise<BudgetVerdict> {
    const month = (this.deps.now?.() ?? new Date()).toISOString().slice(0, 7);
    const fromDay = `${month}-01`;
    const team = await this.deps.db.team.findUnique({ where: { id: teamId }, select: { name: true, budgetUsd: true } });
    if (!team || team.budgetUsd === null) return { ok: true };
    if (!this.deps.unwritten) await this.deps.flush();
    const queued = this.deps.unwritten?.({ teamId, fromDay }).costUsd ?? 0;
    const agg = await this.deps.db.costRollup.aggregate({ where: { teamId, day: { gte: fromDay } }, _sum: { costUsd: true } });
    const spent = (agg._sum.costUsd ?? 0) + queued;
    if (spent >= team.budgetUsd * BUDGET_WARNING_SHARE && spent < team.budgetUsd) {
      await this.warn(`team:${teamId}:${month}`, null, {
        ...(from ? { gatewayKeyId: from.gatewayKeyId } : {}),
        scope: "team",
        teamId,
        team: team.name,
        month,
        spentUsd: spent,
        budgetUsd: team.budgetUsd,
      });
    }
    if (spent < team.budgetUsd && spent + usd <= team.budgetUsd) return { ok: true };
    return {
      ok: false,
      code: "TEAM_BUDGET_EXCEEDED",
      reason: `Team ${team.name} has spent ${formatCost(spent)} of its ${formatCost(team.budgetUsd)} budget for ${month}; the next model call (about ${formatCost(usd)}) would exceed it`,
    };
  }

  private async check(runId: string, next: (lastCallUsd: number) => { usd: number; what: string }): Promise<BudgetVerdict> {
    const month = (this.deps.now?.() ?? new Date()).toISOString().slice(0, 7);
    const run = await this.reads.standing(runId, `${month}-01`);
    if (!run?.run) return { ok: true };
    const runLimits = [run.budgetUsd, run.defaultRunBudget].filter((x): x is number => typeof x === "number");
    const teamLimit = run.team?.budgetUsd ?? null;

    const { spent, last } = run.run;
    const { usd: cost, what } = next(last);
    const runLimit = runLimits.length ? Math.min(...runLimits) : null;
    if (runLimit !== null && spent >= runLimit * BUDGET_WARNING_SHARE && spent < runLimit) {
      await this.warn(`run:${runId}`, runId, { scope: "run", spentUsd: spent, budgetUsd: runLimit });
    }
    for (const limit of runLimits) {
      if (spent >= limit || spent + cost > limit) {
        return {
          ok: false,
          code: "RUN_BUDGET_EXCEEDED",
          reason: `The run has spent ${formatCost(spent)} of its ${formatCost(limit)} budget; ${what} (about ${formatCost(cost)}) would exceed it`,
        };
      }
    }
    if (teamLimit !== null && run.teamId && run.teamSpent !== null) {
      const teamSpent = run.teamSpent;
      if (teamSpent >= teamLimit * BUDGET_WARNING_SHARE && teamSpent < teamLimit) {
        await this.warn(`team:${run.teamId}:${month}`, runId, {
          scope: "team",
          teamId: run.teamId,
          team: run.team!.name,
          month,
          spentUsd: teamSpent,
          budgetUsd: teamLimit,
        });
      }
      if (teamSpent >= teamLimit || teamSpent + cost > teamLimit) {
        return {
          ok: false,
          code: "TEAM_BUDGET_EXCEEDED",
          reason: `Team ${run.team!.name} has spent ${formatCost(teamSpent)} of its ${formatCost(teamLimit)} budget for ${month}; ${what} (about ${formatCost(cost)}) would exceed it`,
        };
      }
    }
    return { ok: true };
  }

  /**
   * A budget passed 80%: one outbox message per run, or per team and month
   * (its id is derived from that, so a second look writes nothing), which
   * the channels send as a budget.warning webhook. `runId`: the run whose
   * check found it; null for a call of no run, whose message names its team
   * (docs/channels.md#webhooks).
   */
  private async warn(key: string, runId: string | null, data: Record<string, unknown>): Promise<void> {
    const id = `msg_budget_${createHash("sha256").update(key).digest("base64url").slice(0, 22)}`;
    await this.deps.db.outboxMessage
      .upsert({
        where: { id },
        create: {
          id,
          type: "budget.warning",
          runId,
          data: JSON.stringify({ ...(runId ? { runId } : {}), ...data, share: BUDGET_WARNING_SHARE }),
        },
        update: {},
      })
      .catch((err: unknown) => this.deps.log?.error("could not record a budget warning", err));
  }
}
