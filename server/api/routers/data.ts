// Settings -> Data (admins): how long each kind of data is kept, the pruner's
// progress, and disk use by kind and by team (docs/operations.md#retention).
import { RetentionChange } from "@/server/retention";
import { adminProcedure, router } from "../trpc";

export const dataRouter = router({
  status: adminProcedure.query(({ ctx }) => ctx.retention.status()),
  save: adminProcedure
    .input(RetentionChange)
    .mutation(({ ctx, input }) => ctx.retention.save(input, { id: ctx.actor.userId, name: ctx.actor.name })),
  pruneNow: adminProcedure.mutation(async ({ ctx }) => ({ started: await ctx.retention.pruneNow() })),
  measure: adminProcedure.mutation(({ ctx }) => ({ started: ctx.retention.measureNow() })),
});
