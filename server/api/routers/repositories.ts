// repositories.* and changes.*: reviewed changes to git repositories
// (docs/changes.md). Admins register repositories; operators start a change
// (an agent on a worktree) and re-run its checks; approvers approve & merge
// (through the HITL broker: never the person who launched the run), reject
// and revert. Every service call checks the team of what it touches.
import { z } from "zod";
import {
  ListChangesInput,
  StartChangeInput,
  createRepository,
  getRepository,
  listRepositories,
  setRepositoryArchived,
  updateRepository,
} from "@/server/improve";
import { adminProcedure, approverProcedure, operatorProcedure, router, viewerProcedure } from "../trpc";

const Id = z.object({ id: z.string().min(1, "Name it by its id").max(100) });
const Comment = z.string().trim().max(4000).optional();
/** Words a person must give: a revert's reason, a comment. */
const Reason = z.string().trim().min(1, "Required").max(4000);

const channelOf = (ctx: { actor: { via: string } }) => (ctx.actor.via === "session" ? "admin" : "api");
const decisionChannel = (ctx: { actor: { via: string } }) => (ctx.actor.via === "session" ? "inbox" : "api");

export const repositoriesRouter = router({
  list: viewerProcedure
    .input(z.object({ includeArchived: z.boolean().optional() }).optional())
    .query(({ ctx, input }) => listRepositories(ctx.db, ctx.actor, input ?? {})),
  get: viewerProcedure.input(Id).query(({ ctx, input }) => getRepository(ctx.db, ctx.actor, input.id)),
  create: adminProcedure
    .input(z.record(z.string(), z.unknown()))
    .mutation(({ ctx, input }) => createRepository(ctx.improve.changes.registry, { actor: ctx.actor, channel: channelOf(ctx) }, input)),
  update: adminProcedure
    .input(z.object({ id: z.string().min(1).max(100), patch: z.record(z.string(), z.unknown()) }))
    .mutation(({ ctx, input }) =>
      updateRepository(ctx.improve.changes.registry, { actor: ctx.actor, channel: channelOf(ctx) }, input.id, input.patch),
    ),
  archive: adminProcedure
    .input(z.object({ id: z.string().min(1).max(100), archived: z.boolean() }))
    .mutation(({ ctx, input }) =>
      setRepositoryArchived(ctx.improve.changes.registry, { actor: ctx.actor, channel: channelOf(ctx) }, input.id, input.archived),
    ),
});

export const changesRouter = router({
  list: viewerProcedure.input(ListChangesInput.optional()).query(({ ctx, input }) => ctx.improve.changes.list(ctx.actor, input ?? {})),
  get: viewerProcedure.input(Id).query(({ ctx, input }) => ctx.improve.changes.get(ctx.actor, input.id)),
  checkLog: viewerProcedure
    .input(z.object({ id: z.string().min(1).max(100), checkId: z.string().min(1).max(100) }))
    .query(({ ctx, input }) => ctx.improve.changes.checkLog(ctx.actor, input.id, input.checkId)),
  start: operatorProcedure
    .input(StartChangeInput)
    .mutation(({ ctx, input }) => ctx.improve.changes.start(ctx.actor, input, channelOf(ctx))),
  rerunChecks: operatorProcedure
    .input(Id)
    .mutation(({ ctx, input }) => ctx.improve.changes.rerunChecks(ctx.actor, input.id, channelOf(ctx))),
  approve: approverProcedure
    .input(Id.extend({ comment: Comment }))
    .mutation(({ ctx, input }) => ctx.improve.changes.approve(ctx.actor, input.id, input.comment, decisionChannel(ctx))),
  reject: operatorProcedure
    .input(Id.extend({ comment: Comment }))
    .mutation(({ ctx, input }) => ctx.improve.changes.reject(ctx.actor, input.id, input.comment, channelOf(ctx))),
  revert: approverProcedure
    .input(Id.extend({ reason: Reason }))
    .mutation(({ ctx, input }) => ctx.improve.changes.revert(ctx.actor, input.id, input.reason, channelOf(ctx))),
  comment: operatorProcedure
    .input(Id.extend({ comment: Reason }))
    .mutation(({ ctx, input }) => ctx.improve.changes.comment(ctx.actor, input.id, input.comment, channelOf(ctx))),
});
