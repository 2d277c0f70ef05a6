import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { router, viewerProcedure } from "../trpc";

export const agentsRouter = router({
  list: viewerProcedure.query(({ ctx }) => ctx.kernel.specs.list()),
  get: viewerProcedure.input(z.object({ name: z.string().min(1), version: z.number().int().optional() })).query(async ({ ctx, input }) => {
    const spec = await ctx.kernel.specs.get(input.name, input.version);
    if (!spec) throw new TRPCError({ code: "NOT_FOUND", message: `Agent ${input.name} was not found` });
    return spec;
  }),
});
