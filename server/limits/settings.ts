// Budget settings (docs/runs.md#limits), changed by admins in Settings › Budgets:
// the default cost ceiling of every run and each team's monthly budget. Budgets
// (budgets.ts) reads them before every model call; each change is audited as
// budget.updated.
import { DomainError } from "@/server/errors";
import { z } from "zod";
import { MAX_BUDGET_USD } from "@/lib/limits";
import { recordAudit } from "@/server/audit";
import type { Db } from "@/server/db";
import { SETTING_RUN_BUDGET } from "./budgets";

export { MAX_BUDGET_USD };

// Messages name no field: the path does ("budgetUsd: must be more than 0").
export const BudgetUsd = z
  .number({ error: "must be a finite number" })
  .refine((n) => n > 0, "must be more than 0 (clear it to have no budget)")
  .refine((n) => n <= MAX_BUDGET_USD, `is at most ${MAX_BUDGET_USD.toLocaleString("en-US")} USD`)
  .nullable();

export const RunBudgetInput = z.strictObject({ budgetUsd: BudgetUsd });
export const TeamBudgetInput = z.strictObject({ teamId: z.string().trim().min(1, "is required"), budgetUsd: BudgetUsd });

export interface BudgetActor {
  userId: string;
  name: string;
}

export interface TeamBudgetView {
  id: string;
  name: string;
  budgetUsd: number | null;
  spentThisMonthUsd: number;
}

export interface BudgetSettings {
  /** "YYYY-MM" (UTC): the month team budgets count. */
  month: string;
  runBudgetUsd: number | null;
  teams: TeamBudgetView[];
}

export class TeamNotFoundError extends DomainError {
  constructor(readonly teamId: string) {
    super("NOT_FOUND", `There is no team ${teamId}`);
    this.name = "TeamNotFoundError";
  }
}

const usd = (n: number) => Math.round(n * 1e8) / 1e8;

async function readRunBudget(db: Pick<Db, "setting">): Promise<number | null> {
  const row = await db.setting.findUnique({ where: { key: SETTING_RUN_BUDGET }, select: { value: true } });
  const value = row ? (JSON.parse(row.value) as unknown) : null;
  return typeof value === "number" && value > 0 ? value : null;
}

/** The budgets in force and each team's spend this month; `teamIds` limits the teams listed. */
export async function getBudgetSettings(db: Db, opts: { teamIds?: string[]; now?: Date } = {}): Promise<BudgetSettings> {
  const month = (opts.now ?? new Date()).toISOString().slice(0, 7);
  const [runBudgetUsd, teams, spend] = await Promise.all([
    readRunBudget(db),
    db.team.findMany({
      where: opts.teamIds ? { id: { in: opts.teamIds } } : {},
      select: { id: true, name: true, budgetUsd: true },
      orderBy: { name: "asc" },
    }),
    // The same sum Budgets.beforeModelCall compares with the team's budget.
    db.costRollup.groupBy({
      by: ["teamId"],
      where: { day: { gte: `${month}-01`, lte: `${month}-31` }, ...(opts.teamIds ? { teamId: { in: opts.teamIds } } : {}) },
      _sum: { costUsd: true },
    }),
  ]);
  const spent = new Map(spend.map((s) => [s.teamId, s._sum.costUsd ?? 0]));
  return { month, runBudgetUsd, teams: teams.map((t) => ({ ...t, spentThisMonthUsd: usd(spent.get(t.id) ?? 0) })) };
}

/** Sets (or with null, clears) the default cost ceiling of every run. */
export async function setRunBudget(db: Db, value: number | null, actor: BudgetActor): Promise<number | null> {
  const { budgetUsd } = RunBudgetInput.parse({ budgetUsd: value });
  await db.$transaction(async (tx) => {
    const before = await readRunBudget(tx);
    if (budgetUsd === null) await tx.setting.deleteMany({ where: { key: SETTING_RUN_BUDGET } });
    else {
      const data = { value: JSON.stringify(budgetUsd), updatedById: actor.userId };
      await tx.setting.upsert({ where: { key: SETTING_RUN_BUDGET }, create: { key: SETTING_RUN_BUDGET, ...data }, update: data });
    }
    await recordAudit(tx, {
      kind: "budget.updated",
      actorId: actor.userId,
      actorName: actor.name,
      channel: "admin",
      subject: "default run ceiling",
      detail: { scope: "run", before, after: budgetUsd },
    });
  });
  return budgetUsd;
}

/** Sets (or with null, clears) a team's monthly budget. */
export async function setTeamBudget(db: Db, teamId: string, value: number | null, actor: BudgetActor): Promise<TeamBudgetView> {
  const input = TeamBudgetInput.parse({ teamId, budgetUsd: value });
  const month = new Date().toISOString().slice(0, 7);
  return db.$transaction(async (tx) => {
    const before = await tx.team.findUnique({ where: { id: input.teamId }, select: { id: true, name: true, budgetUsd: true } });
    if (!before) throw new TeamNotFoundError(input.teamId);
    const team = await tx.team.update({
      where: { id: input.teamId },
      data: { budgetUsd: input.budgetUsd },
      select: { id: true, name: true, budgetUsd: true },
    });
    await recordAudit(tx, {
      kind: "budget.updated",
      actorId: actor.userId,
      actorName: actor.name,
      channel: "admin",
      subject: `team ${team.name}`,
      detail: { scope: "team", teamId: team.id, before: before.budgetUsd, after: team.budgetUsd },
    });
    const agg = await tx.costRollup.aggregate({
      where: { teamId: team.id, day: { gte: `${month}-01`, lte: `${month}-31` } },
      _sum: { costUsd: true },
    });
    return { ...team, spentThisMonthUsd: usd(agg._sum.costUsd ?? 0) };
  });
}
