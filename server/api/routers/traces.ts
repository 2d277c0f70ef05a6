// A run's trace (docs/traces-and-costs.md#try-it-a-runs-trace): its spans for
// the tree and the waterfall, whole (spans) or a page at a time with what
// changed since (page, changes), and one span's inputs and outputs on demand;
// and spans across runs for the Traces page (search, and the values its filters
// offer); and the runs' traces, one row each, for the Traces page's list
// (list).
import { z } from "zod";
import { getRun } from "@/server/kernel";
import {
  RunSpanChanges,
  RunSpanPage,
  SpanFacetsQuery,
  SpanSearch,
  getSpanDetail,
  listRunSpans,
  listTraces,
  TraceList,
  runSpanChanges,
  runSpanPage,
  searchSpans,
  spanFacets,
} from "@/server/telemetry";
import { router, viewerProcedure } from "../trpc";

const RunSpans = z.object({ runId: z.string().min(1, "runId is required") });
const SpanDetail = z.object({ runId: z.string().min(1), spanId: z.string().min(1) });

export const tracesRouter = router({
  spans: viewerProcedure.input(RunSpans).query(async ({ ctx, input }) => {
    const run = await getRun(ctx.db, input.runId, ctx.actor);
    return { run: { id: run.id, status: run.status }, ...(await listRunSpans(ctx.db, input.runId)) };
  }),
  page: viewerProcedure.input(RunSpanPage).query(async ({ ctx, input }) => {
    const run = await getRun(ctx.db, input.runId, ctx.actor);
    return { run: { id: run.id, status: run.status }, ...(await runSpanPage(ctx.db, input)) };
  }),
  changes: viewerProcedure.input(RunSpanChanges).query(async ({ ctx, input }) => {
    await getRun(ctx.db, input.runId, ctx.actor);
    return runSpanChanges(ctx.db, input);
  }),
  span: viewerProcedure.input(SpanDetail).query(async ({ ctx, input }) => {
    await getRun(ctx.db, input.runId, ctx.actor);
    return { detail: await getSpanDetail(ctx.db, input.runId, input.spanId) };
  }),
  list: viewerProcedure.input(TraceList).query(({ ctx, input }) => listTraces(ctx.db, ctx.actor, input)),
  search: viewerProcedure.input(SpanSearch).query(({ ctx, input }) => searchSpans(ctx.db, ctx.actor, input)),
  facets: viewerProcedure.input(SpanFacetsQuery).query(({ ctx, input }) => spanFacets(ctx.db, ctx.actor, input)),
});
