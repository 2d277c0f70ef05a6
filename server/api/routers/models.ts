// models.*: providers, models, routing rules and sensitivity pools
// (docs/models.md#settings--models). Admins configure; everyone may list what a
// run can use. API keys go in, and come back only masked.
import { z } from "zod";
import { ProviderInput, ProviderUpdate, RoutingConfig, SaveModelInput, TestProviderInput, type ModelAdmin } from "@/server/models";
import { DomainError } from "@/server/errors";
import { adminProcedure, router, viewerProcedure } from "../trpc";
import type { Context } from "../trpc";
import type { Actor } from "@/server/identity";

const ByName = z.object({ name: z.string().trim().min(1) });
const ByRef = z.object({ ref: z.string().trim().min(1) });

function admin(ctx: Context): ModelAdmin {
  if (!ctx.models) throw new DomainError("UNAVAILABLE", "Model configuration is not available on this server");
  return ctx.models;
}

const who = (ctx: { actor: Actor }) => ({
  userId: ctx.actor.userId,
  name: ctx.actor.name || ctx.actor.email,
  channel: ctx.actor.via === "session" ? "web" : ctx.actor.via === "token" ? "api" : "cli",
});

export const modelsRouter = router({
  options: viewerProcedure.query(({ ctx }) => admin(ctx).options()),
  providers: adminProcedure.query(({ ctx }) => admin(ctx).providers()),
  createProvider: adminProcedure.input(ProviderInput).mutation(({ ctx, input }) => admin(ctx).createProvider(input, who(ctx))),
  updateProvider: adminProcedure.input(ProviderUpdate).mutation(({ ctx, input }) => admin(ctx).updateProvider(input, who(ctx))),
  deleteProvider: adminProcedure.input(ByName).mutation(async ({ ctx, input }) => {
    await admin(ctx).deleteProvider(input.name, who(ctx));
    return { ok: true };
  }),
  testProvider: adminProcedure.input(TestProviderInput).mutation(({ ctx, input }) => admin(ctx).testProvider(input)),
  list: adminProcedure.query(({ ctx }) => admin(ctx).models()),
  save: adminProcedure.input(SaveModelInput).mutation(({ ctx, input }) => admin(ctx).saveModel(input, who(ctx))),
  delete: adminProcedure.input(ByRef).mutation(async ({ ctx, input }) => {
    await admin(ctx).deleteModel(input.ref, who(ctx));
    return { ok: true };
  }),
  routing: adminProcedure.query(async ({ ctx }) => {
    const routing = await admin(ctx).routing();
    const teams = await ctx.db.team.findMany({ select: { id: true, name: true }, orderBy: { name: "asc" } });
    return { routing, teams };
  }),
  setRouting: adminProcedure.input(RoutingConfig).mutation(({ ctx, input }) => admin(ctx).setRouting(input, who(ctx))),
});
