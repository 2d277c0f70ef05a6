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

/** What a budget check reads: the limits that apply to a run, and what has been spent. */
interface BudgetReads {
  limitsOf(runId: string): Promise<{
    budgetUsd: number | null;
    teamId: string | null;
    team: { name: string; budgetUsd: number | null } | null;
    defaultRunBudget: number | null;
  } | null>;
  defaultRunBudget(): Promise<number | null>;
  /** The run's model calls so far: their total cost, and the cost of the latest. */
  runSpend(runId: string): Promise<{ spent: number; last: number }>;
  /** The team's spend from `fromDay` (YYYY-MM-DD) on, from the rollups. */
  teamSpend(teamId: string, fromDay: string): Promise<number>;
}

function settingNumber(value: string | null | undefined): number | null {
  const parsed: unknown = value ? JSON.parse(value) : null;
  return typeof parsed === "number" && parsed >= 0 ? parsed : null;
}

function prismaReads(db: Db): BudgetReads {
  const defaultRunBudget = async () => settingNumber((await db.setting.findUnique({ where: { key: SETTING_RUN_BUDGET } }))?.value);
  return {
    defaultRunBudget,
    async limitsOf(runId) {
      const run = await db.run.findUnique({
        where: { id: runId },
        select: { budgetUsd: true, teamId: true, team: { select: { name: true, budgetUsd: true } } },
      });
      return run ? { ...run, defaultRunBudget: await defaultRunBudget() } : null;
    },
    async runSpend(runId) {
      const calls = await db.span.findMany({ where: { runId, kind: "chat" }, select: { costUsd: true }, orderBy: { startTime: "desc" } });
      return { spent: calls.reduce((n, c) => n + c.costUsd, 0), last: calls[0]?.costUsd ?? 0 };
    },
    async teamSpend(teamId, fromDay) {
      const agg = await db.costRollup.aggregate({ where: { teamId, day: { gte: fromDay } }, _sum: { costUsd: true } });
      return agg._sum.costUsd ?? 0;
    },
  };
}

function sqliteReads(native: NativeSqlite): BudgetReads {
  const setting = native.prepare(`SELECT value FROM "Setting" WHERE key = ?`).pluck();
  const limits = native.prepare(
    `SELECT r.budgetUsd, r.teamId, t.name AS teamName, t.budgetUsd AS teamBudgetUsd FROM "Run" r LEFT JOIN "Team" t ON t.id = r.teamId WHERE r.id = ?`,
  );
  // "+kind": look the run's spans up by run (a few hundred), never every chat span of every run by kind.
  const spent = native.prepare(`SELECT COALESCE(SUM(costUsd), 0) FROM "Span" WHERE runId = ? AND +kind = 'chat'`).pluck();
  const last = native.prepare(`SELECT costUsd FROM "Span" WHERE runId = ? AND +kind = 'chat' ORDER BY startTime DESC LIMIT 1`).pluck();
  const team = native.prepare(`SELECT COALESCE(SUM(costUsd), 0) FROM "CostRollup" WHERE teamId = ? AND day >= ?`).pluck();
  const defaultRunBudget = async () => settingNumber(setting.get(SETTING_RUN_BUDGET) as string | undefined);
  return {
    defaultRunBudget,
    async limitsOf(runId) {
      const row = limits.get(runId) as
        { budgetUsd: number | null; teamId: string | null; teamName: string | null; teamBudgetUsd: number | null } | undefined;
      if (!row) return null;
      const team = row.teamId !== null && row.teamName !== null ? { name: row.teamName, budgetUsd: row.teamBudgetUsd } : null;
      return { budgetUsd: row.budgetUsd, teamId: row.teamId, team, defaultRunBudget: await defaultRunBudget() };
    },
    async runSpend(runId) {
      return { spent: spent.get(runId) as number, last: (last.get(runId) as number | undefined) ?? 0 };
    },
    async teamSpend(teamId, fromDay) {
      return team.get(teamId, fromDay) as number;
    },
  };
}

export class Budgets {
  private readonly reads: BudgetReads;

  constructor(private readonly deps: BudgetDeps) {
    this.reads = deps.native ? sqliteReads(deps.native) : prismaReads(deps.db);
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

  private async check(runId: string, next: (lastCallUsd: number) => { usd: number; what: string }): Promise<BudgetVerdict> {
    const run = await this.reads.limitsOf(runId);
    if (!run) return { ok: true };
    const runLimits = [run.budgetUsd, run.defaultRunBudget].filter((x): x is number => typeof x === "number");
    const teamLimit = run.team?.budgetUsd ?? null;
    if (runLimits.length === 0 && teamLimit === null) return { ok: true };

    const { spent, last } = await this.spendOf(runId);
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
    if (teamLimit !== null && run.teamId) {
      const month = (this.deps.now?.() ?? new Date()).toISOString().slice(0, 7);
      const fromDay = `${month}-01`;
      const teamSpent =
        (await this.reads.teamSpend(run.teamId, fromDay)) + (this.deps.unwritten?.({ teamId: run.teamId, fromDay }).costUsd ?? 0);
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

  private async spendOf(runId: string): Promise<{ spent: number; last: number }> {
    const { unwritten } = this.deps;
    if (!unwritten) {
      await this.deps.flush();
      return this.reads.runSpend(runId);
    }
    // The queue first, then the database: a batch written in between counts twice (the budget stops
    // early), never not at all.
    const queued = unwritten({ runId });
    const stored = await this.reads.runSpend(runId);
    return { spent: stored.spent + queued.costUsd, last: queued.latest?.costUsd ?? stored.last };
  }

  /**
   * A budget passed 80%: one outbox message per run, or per team and month
   * (its id is derived from that, so a second look writes nothing), which
   * the channels send as a budget.warning webhook.
   */
  private async warn(key: string, runId: string, data: Record<string, unknown>): Promise<void> {
    const id = `msg_budget_${createHash("sha256").update(key).digest("base64url").slice(0, 22)}`;
    await this.deps.db.outboxMessage
      .upsert({
        where: { id },
        create: { id, type: "budget.warning", runId, data: JSON.stringify({ runId, ...data, share: BUDGET_WARNING_SHARE }) },
        update: {},
      })
      .catch((err: unknown) => this.deps.log?.error("could not record a budget warning", err));
  }
}
