import { router, viewerProcedure } from "../trpc";

export const systemRouter = router({
  status: viewerProcedure.query(({ ctx }) => ({ pool: ctx.kernel.pool.stats() })),
});
