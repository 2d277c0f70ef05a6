// A run's trace (SPEC section 9): its spans for the tree and the waterfall,
// and one span's inputs and outputs on demand; and spans across runs for the
// Traces page (search, and the values its filters offer).
import { z } from "zod";
import { getRun } from "@/server/kernel";
import { SpanFacetsQuery, SpanSearch, getSpanDetail, listRunSpans, searchSpans, spanFacets } from "@/server/telemetry";
import { router, viewerProcedure } from "../trpc";

const RunSpans = z.object({ runId: z.string().min(1, "runId is required") });
const SpanDetail = z.object({ runId: z.string().min(1), spanId: z.string().min(1) });

export const tracesRouter = router({
  spans: viewerProcedure.input(RunSpans).query(async ({ ctx, input }) => {
    const run = await getRun(ctx.db, input.runId, ctx.actor);
    return { run: { id: run.id, status: run.status }, ...(await listRunSpans(ctx.db, input.runId)) };
  }),
  span: viewerProcedure.input(SpanDetail).query(async ({ ctx, input }) => {
    await getRun(ctx.db, input.runId, ctx.actor);
    return { detail: await getSpanDetail(ctx.db, input.runId, input.spanId) };
  }),
  search: viewerProcedure.input(SpanSearch).query(({ ctx, input }) => searchSpans(ctx.db, ctx.actor, input)),
  facets: viewerProcedure.input(SpanFacetsQuery).query(({ ctx, input }) => spanFacets(ctx.db, ctx.actor, input)),
});
