// budgets.*: the default cost ceiling of runs and each team's monthly budget
// (docs/runs.md#limits). Everyone may read them (the New run dialog shows the
// ceiling); non-admins see only their teams. Only admins change them; each
// change is audited by the service.
import { RunBudgetInput, TeamBudgetInput, getBudgetSettings, setRunBudget, setTeamBudget } from "@/server/limits";
import { adminProcedure, router, viewerProcedure } from "../trpc";

export const budgetsRouter = router({
  get: viewerProcedure.query(({ ctx }) =>
    getBudgetSettings(ctx.db, { teamIds: ctx.actor.role === "admin" ? undefined : ctx.actor.teamIds }),
  ),
  setRun: adminProcedure
    .input(RunBudgetInput)
    .mutation(async ({ ctx, input }) => ({ budgetUsd: await setRunBudget(ctx.db, input.budgetUsd, ctx.actor) })),
  setTeam: adminProcedure
    .input(TeamBudgetInput)
    .mutation(({ ctx, input }) => setTeamBudget(ctx.db, input.teamId, input.budgetUsd, ctx.actor)),
});
