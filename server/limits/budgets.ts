// Budgets (SPEC section 5): checked before every model call. Every limit that
// applies is checked on its own — the run's ceiling, the default ceiling for
// runs, and the team's monthly budget — so no combination of team, user or run
// settings can lift one of them.
import { createHash } from "node:crypto";
import type { Db } from "@/server/db";

export const SETTING_RUN_BUDGET = "limits.runBudgetUsd";

export interface BudgetVerdict {
  ok: boolean;
  code?: "RUN_BUDGET_EXCEEDED" | "TEAM_BUDGET_EXCEEDED";
  reason?: string;
}

export interface BudgetDeps {
  db: Db;
  /** Writes queued spans so the spend read next is current (telemetry's TraceSink.flush). */
  flush: () => Promise<void>;
  now?: () => Date;
  log?: { error(msg: string, err?: unknown): void };
}

const usd = (n: number) => `$${n < 1 ? n.toFixed(4) : n.toFixed(2)}`;

/** Past this share of a budget, the channels are told once (a budget.warning webhook). */
export const BUDGET_WARNING_SHARE = 0.8;

export class Budgets {
  constructor(private readonly deps: BudgetDeps) {}

  /** The default cost ceiling of every run (admin setting), or null. */
  async defaultRunBudget(): Promise<number | null> {
    const row = await this.deps.db.setting.findUnique({ where: { key: SETTING_RUN_BUDGET } });
    const value = row ? JSON.parse(row.value) : null;
    return typeof value === "number" && value >= 0 ? value : null;
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
    const { db } = this.deps;
    const run = await db.run.findUnique({ where: { id: runId }, select: { budgetUsd: true, teamId: true, team: { select: { name: true, budgetUsd: true } } } });
    if (!run) return { ok: true };
    const runLimits = [run.budgetUsd, await this.defaultRunBudget()].filter((x): x is number => typeof x === "number");
    const teamLimit = run.team?.budgetUsd ?? null;
    if (runLimits.length === 0 && teamLimit === null) return { ok: true };

    await this.deps.flush();
    const calls = await db.span.findMany({ where: { runId, kind: "chat" }, select: { costUsd: true }, orderBy: { startTime: "desc" } });
    const spent = calls.reduce((n, c) => n + c.costUsd, 0);
    const { usd: cost, what } = next(calls[0]?.costUsd ?? 0);
    const runLimit = runLimits.length ? Math.min(...runLimits) : null;
    if (runLimit !== null && spent >= runLimit * BUDGET_WARNING_SHARE && spent < runLimit) {
      await this.warn(`run:${runId}`, runId, { scope: "run", spentUsd: spent, budgetUsd: runLimit });
    }
    for (const limit of runLimits) {
      if (spent >= limit || spent + cost > limit) {
        return {
          ok: false,
          code: "RUN_BUDGET_EXCEEDED",
          reason: `The run has spent ${usd(spent)} of its ${usd(limit)} budget; ${what} (about ${usd(cost)}) would exceed it`,
        };
      }
    }
    if (teamLimit !== null && run.teamId) {
      const month = (this.deps.now?.() ?? new Date()).toISOString().slice(0, 7);
      const agg = await db.costRollup.aggregate({ where: { teamId: run.teamId, day: { gte: `${month}-01` } }, _sum: { costUsd: true } });
      const teamSpent = agg._sum.costUsd ?? 0;
      if (teamSpent >= teamLimit * BUDGET_WARNING_SHARE && teamSpent < teamLimit) {
        await this.warn(`team:${run.teamId}:${month}`, runId, { scope: "team", teamId: run.teamId, team: run.team!.name, month, spentUsd: teamSpent, budgetUsd: teamLimit });
      }
      if (teamSpent >= teamLimit || teamSpent + cost > teamLimit) {
        return {
          ok: false,
          code: "TEAM_BUDGET_EXCEEDED",
          reason: `Team ${run.team!.name} has spent ${usd(teamSpent)} of its ${usd(teamLimit)} budget for ${month}; ${what} (about ${usd(cost)}) would exceed it`,
        };
      }
    }
    return { ok: true };
  }

  /**
   * A budget passed 80%: one outbox message per run, or per team and month
   * (its id is derived from that, so a second look writes nothing), which
   * the channels send as a budget.warning webhook.
   */
  private async warn(key: string, runId: string, data: Record<string, unknown>): Promise<void> {
    const id = `msg_budget_${createHash("sha256").update(key).digest("base64url").slice(0, 22)}`;
    await this.deps.db.outboxMessage
      .upsert({ where: { id }, create: { id, type: "budget.warning", runId, data: JSON.stringify({ runId, ...data, share: BUDGET_WARNING_SHARE }) }, update: {} })
      .catch((err: unknown) => this.deps.log?.error("could not record a budget warning", err));
  }
}
