// The inbox and resume links (docs/human-requests-and-policy.md#the-inbox). Who
// may decide is the request's required role, checked by the broker; these
// procedures check that the person may see the run at all.
import { z } from "zod";
import {
  DecisionInput,
  HumanRequestError,
  canSee,
  REQUEST_KINDS,
  REQUEST_STATES,
  createResumeLink,
  decideWithLink,
  deciderOf,
  forActor,
  getForActor,
  listForActor,
  openResumeLink,
  requestContext,
  type Hitl,
} from "@/server/hitl";
import type { Actor } from "@/server/identity";
import { operatorProcedure, router, viewerProcedure } from "../trpc";

const ListInput = z.object({
  state: z.array(z.enum(REQUEST_STATES)).optional(),
  kind: z.array(z.enum(REQUEST_KINDS)).optional(),
  scope: z.enum(["all", "mine", "team"]).default("all"),
  runId: z.string().min(1).optional(),
  cursor: z.string().min(1).optional(),
  limit: z.number().int().min(1).max(200).default(50),
});
const RequestId = z.object({ id: z.string().min(1, "id is required") });
const DecideInput = DecisionInput.extend({ id: z.string().min(1, "id is required") });
const Token = z.object({ token: z.string().min(1, "the link has no token").max(4096) });
const DecideWithLinkInput = DecisionInput.extend({ token: z.string().min(1).max(4096) });

const decider = deciderOf;

/** The request a link names, if this person may see its run. */
async function linkedRequest(hitl: Hitl, actor: Actor, requestId: string) {
  const request = await hitl.broker.get(requestId);
  if (!request) throw new HumanRequestError("NOT_FOUND", `There is no human request ${requestId}`);
  if (!canSee(actor, request)) {
    throw new HumanRequestError(
      "FORBIDDEN",
      "This link is for a run of a team you are not in, so it shows nothing here; ask someone of that team to decide it",
    );
  }
  return forActor(request, actor);
}

export const humanRequestsRouter = router({
  list: viewerProcedure.input(ListInput).query(({ ctx, input }) => listForActor(ctx.hitl.broker, ctx.actor, input)),
  get: viewerProcedure.input(RequestId).query(async ({ ctx, input }) => {
    const request = await getForActor(ctx.hitl.broker, ctx.actor, input.id);
    return { request, timeline: await requestContext(ctx.kernel, request) };
  }),
  /** The inbox badge: open requests this person could decide. */
  openCount: viewerProcedure.query(({ ctx }) =>
    ctx.hitl.broker.openCount(
      decider(ctx.actor),
      ctx.actor.role === "admin" ? undefined : { userId: ctx.actor.userId, teamIds: ctx.actor.teamIds },
    ),
  ),
  decide: operatorProcedure.input(DecideInput).mutation(async ({ ctx, input }) => {
    const { broker } = ctx.hitl;
    const { id, ...decision } = input;
    await getForActor(broker, ctx.actor, id);
    return forActor(await broker.decide(id, decider(ctx.actor), decision, "inbox"), ctx.actor);
  }),
  /** A signed single-use link to this request, e.g. to send to someone. */
  createLink: operatorProcedure.input(RequestId).mutation(async ({ ctx, input }) => {
    const hitl = ctx.hitl;
    await getForActor(hitl.broker, ctx.actor, input.id);
    const link = await createResumeLink(hitl.links, input.id, decider(ctx.actor), { channel: "inbox" });
    return { url: link.url, expiresAt: link.expiresAt };
  }),
  /** Opening a link shows the request; it does not use the link up. */
  openLink: viewerProcedure.input(Token).query(async ({ ctx, input }) => {
    const hitl = ctx.hitl;
    const opened = await openResumeLink(hitl.links, input.token, decider(ctx.actor));
    // A link is no way around team visibility: someone outside the run's team sees nothing of it.
    const request = await linkedRequest(hitl, ctx.actor, opened.requestId);
    return { request, linkExpiresAt: opened.linkExpiresAt, timeline: await requestContext(ctx.kernel, request) };
  }),
  decideWithLink: viewerProcedure.input(DecideWithLinkInput).mutation(async ({ ctx, input }) => {
    const hitl = ctx.hitl;
    const { token, ...decision } = input;
    const decided = await decideWithLink(
      {
        ...hitl.links,
        decide: (id, who, d, channel) => hitl.broker.decide(id, who, d, channel),
        check: async (id, who, d) => {
          await linkedRequest(hitl, ctx.actor, id);
          await hitl.broker.checkDecision(id, who, d);
        },
      },
      token,
      decider(ctx.actor),
      decision,
    );
    return forActor(decided, ctx.actor);
  }),
});
