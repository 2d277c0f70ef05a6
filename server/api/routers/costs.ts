// costs.*: the Costs dashboards (docs/traces-and-costs.md#costs), from the
// daily rollups and run counts only. Admins see every team; others see their
// teams' rows. health: tool success and latency are global (SpanRollup has no
// team); human requests and budget burn-down are per team, as summary is.
import { CostQuery, HealthQuery, costSummary, healthSummary } from "@/server/telemetry";
import { router, viewerProcedure } from "../trpc";

export const costsRouter = router({
  summary: viewerProcedure.input(CostQuery).query(({ ctx, input }) => costSummary(ctx.db, input, ctx.actor)),
  health: viewerProcedure.input(HealthQuery).query(({ ctx, input }) => healthSummary(ctx.db, input, ctx.actor)),
});
