// costs.*: the Costs dashboards (SPEC section 9), from the daily rollups and
// run counts only. Admins see every team; others see their teams' rows.
import { CostQuery, costSummary } from "@/server/telemetry";
import { router, viewerProcedure } from "../trpc";

export const costsRouter = router({
  summary: viewerProcedure.input(CostQuery).query(({ ctx, input }) => costSummary(ctx.db, input, ctx.actor)),
});
