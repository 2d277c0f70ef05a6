// webhooks.*: Settings › Channels › Webhooks (docs/channels.md#webhooks), for admins:
// endpoints with their event types, the signing secret shown once, a test
// ping, the delivery log with every attempt, Resend, Recover since a time,
// rotation with a 24 h overlap, and the hosts allowed although private. Also
// channels.* for who hears of escalations and the notices admins see in
// the Inbox (an endpoint Rein turned off).
import { z } from "zod";
import { Webhooks as WebhookService, readRouting, saveRouting } from "@/server/channels";
import { adminProcedure, router, viewerProcedure } from "../trpc";

const Id = z.string().min(1).max(64);
const ById = z.object({ id: Id }).strict();
const Config = z.record(z.string(), z.unknown());

const channelOf = (ctx: { actor: { via: string } }) => (ctx.actor.via === "session" ? "admin" : "api");

export const webhooksRouter = router({
  list: adminProcedure.query(({ ctx }) => ctx.webhooks.list(ctx.actor)),
  get: adminProcedure.input(ById).query(({ ctx, input }) => ctx.webhooks.get(ctx.actor, input.id)),
  /** The event types an endpoint can subscribe to, with what each means. */
  eventTypes: adminProcedure.query(() => WebhookService.eventTypes()),
  create: adminProcedure.input(Config).mutation(({ ctx, input }) => ctx.webhooks.create(ctx.actor, input, channelOf(ctx))),
  update: adminProcedure
    .input(z.object({ id: Id, patch: Config }).strict())
    .mutation(({ ctx, input }) => ctx.webhooks.update(ctx.actor, input.id, input.patch, channelOf(ctx))),
  remove: adminProcedure.input(ById).mutation(async ({ ctx, input }) => {
    await ctx.webhooks.remove(ctx.actor, input.id, channelOf(ctx));
    return { ok: true as const };
  }),
  rotate: adminProcedure.input(ById).mutation(({ ctx, input }) => ctx.webhooks.rotate(ctx.actor, input.id, channelOf(ctx))),
  test: adminProcedure.input(ById).mutation(({ ctx, input }) => ctx.webhooks.test(ctx.actor, input.id, channelOf(ctx))),
  deliveries: adminProcedure
    .input(
      z
        .object({
          id: Id,
          state: z.enum(["pending", "succeeded", "failed"]).optional(),
          limit: z.number().int().min(1).max(200).optional(),
          before: Id.optional(),
        })
        .strict(),
    )
    .query(({ ctx, input }) => ctx.webhooks.deliveries(ctx.actor, input.id, input)),
  delivery: adminProcedure.input(ById).query(({ ctx, input }) => ctx.webhooks.delivery(ctx.actor, input.id)),
  resend: adminProcedure.input(ById).mutation(({ ctx, input }) => ctx.webhooks.resend(ctx.actor, input.id, channelOf(ctx))),
  recover: adminProcedure
    .input(z.object({ id: Id, since: z.coerce.date({ error: "since is a date and time" }) }).strict())
    .mutation(({ ctx, input }) => ctx.webhooks.recover(ctx.actor, input.id, input.since, channelOf(ctx))),
  allowHosts: adminProcedure.query(({ ctx }) => ctx.webhooks.allowHosts()),
  setAllowHosts: adminProcedure
    .input(z.object({ hosts: z.array(z.string()) }).strict())
    .mutation(async ({ ctx, input }) => ({ hosts: await ctx.webhooks.setAllowHosts(ctx.actor, input.hosts, channelOf(ctx)) })),
});

export const channelsRouter = router({
  /** Who hears of a request when it escalates: level-2 approvers per team, on-call admins. */
  routing: adminProcedure.query(({ ctx }) => readRouting(ctx.db)),
  setRouting: adminProcedure.input(Config).mutation(({ ctx, input }) => saveRouting(ctx.db, ctx.actor, input)),
  /** What admins must hear of in the Inbox: webhooks Rein turned off. Empty for everyone else. */
  notices: viewerProcedure.query(async ({ ctx }) => {
    if (ctx.actor.role !== "admin") return [];
    const off = await ctx.db.webhookEndpoint.findMany({
      where: { disabledAt: { not: null }, disabledReason: { not: { startsWith: "Turned off by" } } },
      orderBy: { disabledAt: "desc" },
      take: 20,
    });
    return off.map((e) => ({
      kind: "webhook.disabled" as const,
      id: e.id,
      url: e.url,
      reason: e.disabledReason ?? "",
      at: e.disabledAt!.toISOString(),
    }));
  }),
});
