import { describeDeployment } from "@/server/cluster";
import { adminProcedure, router, viewerProcedure } from "../trpc";

export const systemRouter = router({
  status: viewerProcedure.query(({ ctx }) => ({
    pool: ctx.kernel.pool.stats(),
    terminals: {
      ...ctx.compute.terminals.stats(),
      ok: ctx.compute.sandbox.ok,
      message: ctx.compute.sandbox.message,
      unavailable: ctx.compute.terminals.unavailable(),
    },
  })),
  /** Settings › System: every process of the deployment (hosts and pids are for admins). */
  processes: adminProcedure.query(({ ctx }) =>
    describeDeployment({
      db: ctx.db,
      cluster: ctx.system.cluster,
      version: ctx.system.version,
      pool: ctx.kernel.pool.stats(),
    }),
  ),
});
