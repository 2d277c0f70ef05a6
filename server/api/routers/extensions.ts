// extensions.*: the extension registry (docs/extensions.md). Everyone
// sees the extensions (they serve every team); proposing or removing one
// needs an admin, switching one off or on an approver, and approving one an
// admin other than its proposer (the registry checks the role and the person).
import { z } from "zod";
import { CSV_TOOLS_EXTENSION, getExtension, listExtensions, ListExtensionsInput } from "@/server/improve";
import { adminProcedure, approverProcedure, router, viewerProcedure, type Context } from "../trpc";

const Id = z
  .object({
    id: z.string().min(1, "Name the extension by its id").max(64),
    reason: z.string().trim().max(500, "reason is at most 500 characters").optional(),
  })
  .strict();
const ProposeInput = z.object({ manifest: z.unknown(), files: z.unknown() }).strict();

const channelOf = (ctx: Context & { actor: NonNullable<Context["actor"]> }) => (ctx.actor.via === "session" ? "admin" : "api");

export const extensionsRouter = router({
  list: viewerProcedure.input(ListExtensionsInput.optional()).query(({ ctx, input }) => listExtensions(ctx.db, ctx.actor, input ?? {})),
  get: viewerProcedure
    .input(z.object({ id: z.string().min(1, "Name the extension by its id").max(64) }).strict())
    .query(({ ctx, input }) => getExtension(ctx.db, ctx.actor, input.id)),
  /** The csv-tools demo package, for the page's "Use the demo" button. */
  demo: viewerProcedure.query(() => CSV_TOOLS_EXTENSION),
  propose: adminProcedure.input(ProposeInput).mutation(async ({ ctx, input }) => {
    const out = await ctx.improve.extensionRegistry.propose(input, {
      createdById: ctx.actor.userId,
      by: { id: ctx.actor.userId, name: ctx.actor.name },
      channel: channelOf(ctx),
    });
    return getExtension(ctx.db, ctx.actor, out.id);
  }),
  approve: adminProcedure.input(Id).mutation(async ({ ctx, input }) => {
    await ctx.improve.extensionRegistry.approve(ctx.actor, input.id, channelOf(ctx));
    return getExtension(ctx.db, ctx.actor, input.id);
  }),
  reject: adminProcedure.input(Id).mutation(async ({ ctx, input }) => {
    await ctx.improve.extensionRegistry.reject(ctx.actor, input.id, channelOf(ctx), input.reason);
    return getExtension(ctx.db, ctx.actor, input.id);
  }),
  disable: approverProcedure.input(Id).mutation(async ({ ctx, input }) => {
    await ctx.improve.extensionRegistry.disable(ctx.actor, input.id, channelOf(ctx), input.reason);
    return getExtension(ctx.db, ctx.actor, input.id);
  }),
  enable: approverProcedure.input(Id).mutation(async ({ ctx, input }) => {
    await ctx.improve.extensionRegistry.enable(ctx.actor, input.id, channelOf(ctx), input.reason);
    return getExtension(ctx.db, ctx.actor, input.id);
  }),
  remove: adminProcedure.input(Id).mutation(async ({ ctx, input }) => {
    await ctx.improve.extensionRegistry.remove(ctx.actor, input.id, channelOf(ctx), input.reason);
    return getExtension(ctx.db, ctx.actor, input.id);
  }),
});
