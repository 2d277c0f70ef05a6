// models.*: providers, models, routing rules and sensitivity pools
// (docs/models.md#settings--models). Admins configure; everyone may list what a
// run can use. API keys go in, and come back only masked.
import { z } from "zod";
import { ProviderInput, ProviderUpdate, RoutingConfig, SaveModelInput, TestProviderInput } from "@/server/models";
import { adminProcedure, router, viewerProcedure } from "../trpc";
import type { Actor } from "@/server/identity";

const ByName = z.object({ name: z.string().trim().min(1) });
const ByRef = z.object({ ref: z.string().trim().min(1) });

const who = (ctx: { actor: Actor }) => ({
  userId: ctx.actor.userId,
  name: ctx.actor.name || ctx.actor.email,
  channel: ctx.actor.via === "session" ? "web" : ctx.actor.via === "token" ? "api" : "cli",
});

export const modelsRouter = router({
  options: viewerProcedure.query(({ ctx }) => ctx.models.options()),
  providers: adminProcedure.query(({ ctx }) => ctx.models.providers()),
  createProvider: adminProcedure.input(ProviderInput).mutation(({ ctx, input }) => ctx.models.createProvider(input, who(ctx))),
  updateProvider: adminProcedure.input(ProviderUpdate).mutation(({ ctx, input }) => ctx.models.updateProvider(input, who(ctx))),
  deleteProvider: adminProcedure.input(ByName).mutation(async ({ ctx, input }) => {
    await ctx.models.deleteProvider(input.name, who(ctx));
    return { ok: true };
  }),
  /** Models that failed since they last answered: Settings › Models says auto leans away from them. */
  health: adminProcedure.query(({ ctx }) => ctx.models.health()),
  testProvider: adminProcedure.input(TestProviderInput).mutation(({ ctx, input }) => ctx.models.testProvider(input)),
  list: adminProcedure.query(({ ctx }) => ctx.models.models()),
  save: adminProcedure.input(SaveModelInput).mutation(({ ctx, input }) => ctx.models.saveModel(input, who(ctx))),
  delete: adminProcedure.input(ByRef).mutation(async ({ ctx, input }) => {
    await ctx.models.deleteModel(input.ref, who(ctx));
    return { ok: true };
  }),
  routing: adminProcedure.query(async ({ ctx }) => {
    const routing = await ctx.models.routing();
    const teams = await ctx.db.team.findMany({ select: { id: true, name: true }, orderBy: { name: "asc" } });
    return { routing, teams };
  }),
  setRouting: adminProcedure.input(RoutingConfig).mutation(({ ctx, input }) => ctx.models.setRouting(input, who(ctx))),
});
