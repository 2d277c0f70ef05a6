import { router, viewerProcedure } from "../trpc";

export const systemRouter = router({
  status: viewerProcedure.query(({ ctx }) => ({
    pool: ctx.kernel.pool.stats(),
    terminals: ctx.compute
      ? { ...ctx.compute.terminals.stats(), ok: ctx.compute.sandbox.ok, message: ctx.compute.sandbox.message, unavailable: ctx.compute.terminals.unavailable() }
      : null,
  })),
});
