// improvements.*: the Improvements pages (docs/improvements.md). Everyone sees the
// improvements made for everyone and for their teams; switching one off needs
// an operator, on or promoting an approver, deleting an admin (the service
// checks the role in the improvement's team). Settings are an admin's.
import { z } from "zod";
import {
  actOnImprovement,
  getImprovement,
  improveSettings,
  improvementDashboard,
  listFriction,
  decideFriction,
  FrictionDecision,
  ListFrictionInput,
  listImprovements,
  saveImproveSettings,
  ListImprovementsInput,
  type ImprovementAction,
} from "@/server/improve";
import { adminProcedure, approverProcedure, operatorProcedure, router, viewerProcedure, type Context } from "../trpc";

const Id = z.object({ id: z.string().min(1, "Name the improvement by its id"), reason: z.string().trim().max(500).optional() });
const DashboardInput = z.object({ days: z.number().int().min(1).max(90).default(30) }).optional();

function act(action: ImprovementAction) {
  return async ({ ctx, input }: { ctx: Context & { actor: NonNullable<Context["actor"]> }; input: z.infer<typeof Id> }) => {
    const svc = ctx.improve;
    const result = await actOnImprovement(
      {
        db: ctx.db,
        unload: (name) => svc.live.unload(name),
        load: (id) => svc.reload(id),
        promote: (id, by, channel) => svc.promote(id, by, channel),
      },
      ctx.actor,
      input.id,
      action,
      ctx.actor.via === "session" ? "admin" : "api",
      input.reason,
    );
    // A skill switched here leaves (or rejoins) the prompts at the next turn.
    await svc.skills?.refresh();
    return result;
  };
}

export const improvementsRouter = router({
  list: viewerProcedure.input(ListImprovementsInput.optional()).query(({ ctx, input }) => listImprovements(ctx.db, ctx.actor, input ?? {})),
  get: viewerProcedure
    .input(z.object({ id: z.string().min(1, "Name the improvement by its id") }))
    .query(({ ctx, input }) => getImprovement(ctx.db, ctx.actor, input.id)),
  friction: viewerProcedure
    .input(ListFrictionInput.partial().optional())
    .query(({ ctx, input }) => listFriction(ctx.db, ctx.actor, input ?? {})),
  decideFriction: viewerProcedure
    .input(FrictionDecision)
    .mutation(({ ctx, input }) => decideFriction(ctx.db, ctx.actor, input, ctx.actor.via === "session" ? "web" : "api")),
  dashboard: viewerProcedure.input(DashboardInput).query(({ ctx, input }) => improvementDashboard(ctx.db, ctx.actor, input?.days ?? 30)),
  disable: operatorProcedure.input(Id).mutation(act("disable")),
  enable: approverProcedure.input(Id).mutation(act("enable")),
  promote: approverProcedure.input(Id).mutation(act("promote")),
  delete: adminProcedure.input(Id).mutation(act("delete")),
  settings: viewerProcedure.query(({ ctx }) => improveSettings(ctx.db)),
  saveSettings: adminProcedure
    .input(z.record(z.string(), z.unknown()))
    .mutation(({ ctx, input }) => saveImproveSettings(ctx.db, input, { id: ctx.actor.userId, name: ctx.actor.name })),
});
