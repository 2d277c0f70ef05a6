// REST v1 for webhook endpoints (docs/channels.md#webhooks), for admins and the CLI:
// the same service, checks and audit as Settings › Channels › Webhooks. The
// signing secret is in the answer to create and rotate, and nowhere else.
import { z } from "zod";
import type { Webhooks } from "../webhooks";
import { DomainError } from "@/server/errors";
import { readJson } from "./http";
import type { Route, RouteContext } from "./v1";

const endpointPath = (rest = "") => new RegExp(`^/api/v1/webhooks/([^/]+)${rest}$`);
const RecoverBody = z.object({ since: z.coerce.date({ error: "since is a date and time (ISO 8601)" }) }).strict();
const AllowHostsBody = z.object({ hosts: z.array(z.string()) }).strict();

function webhooksOf(ctx: RouteContext): Webhooks {
  if (!ctx.webhooks) throw new DomainError("UNAVAILABLE", "Webhooks are not available on this server");
  return ctx.webhooks;
}

const channelOf = (ctx: RouteContext) => (ctx.req.headers["x-rein-channel"] === "cli" ? "cli" : "api");

export const WEBHOOK_ROUTES: Route[] = [
  {
    method: "GET",
    pattern: /^\/api\/v1\/webhooks$/,
    minRole: "admin",
    handle: async (ctx) => ({ webhooks: await webhooksOf(ctx).list(ctx.actor) }),
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/webhooks$/,
    minRole: "admin",
    status: 201,
    handle: async (ctx) => webhooksOf(ctx).create(ctx.actor, await readJson(ctx.req), channelOf(ctx)),
  },
  // Before the routes of one endpoint: these words would otherwise read as an endpoint's id.
  {
    method: "GET",
    pattern: /^\/api\/v1\/webhooks\/allowed-hosts$/,
    minRole: "admin",
    handle: async (ctx) => ({ hosts: await webhooksOf(ctx).allowHosts() }),
  },
  {
    method: "PUT",
    pattern: /^\/api\/v1\/webhooks\/allowed-hosts$/,
    minRole: "admin",
    async handle(ctx) {
      const { hosts } = AllowHostsBody.parse(await readJson(ctx.req));
      return { hosts: await webhooksOf(ctx).setAllowHosts(ctx.actor, hosts, channelOf(ctx)) };
    },
  },
  {
    method: "GET",
    pattern: /^\/api\/v1\/webhooks\/deliveries\/([^/]+)$/,
    minRole: "admin",
    handle: (ctx) => webhooksOf(ctx).delivery(ctx.actor, ctx.params[0]),
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/webhooks\/deliveries\/([^/]+)\/resend$/,
    minRole: "admin",
    handle: (ctx) => webhooksOf(ctx).resend(ctx.actor, ctx.params[0], channelOf(ctx)),
  },
  { method: "GET", pattern: endpointPath(), minRole: "admin", handle: (ctx) => webhooksOf(ctx).get(ctx.actor, ctx.params[0]) },
  {
    method: "PATCH",
    pattern: endpointPath(),
    minRole: "admin",
    handle: async (ctx) => webhooksOf(ctx).update(ctx.actor, ctx.params[0], await readJson(ctx.req), channelOf(ctx)),
  },
  {
    method: "DELETE",
    pattern: endpointPath(),
    minRole: "admin",
    async handle(ctx) {
      await webhooksOf(ctx).remove(ctx.actor, ctx.params[0], channelOf(ctx));
      return { ok: true };
    },
  },
  {
    method: "GET",
    pattern: endpointPath("/deliveries"),
    minRole: "admin",
    handle: (ctx) => {
      const limit = ctx.url.searchParams.get("limit");
      if (limit !== null && !/^\d{1,3}$/.test(limit)) throw new DomainError("INVALID_INPUT", "limit is a whole number from 1 to 200");
      return webhooksOf(ctx).deliveries(ctx.actor, ctx.params[0], {
        state: ctx.url.searchParams.get("state") ?? undefined,
        limit: limit === null ? undefined : Number(limit),
        before: ctx.url.searchParams.get("before") ?? undefined,
      });
    },
  },
  {
    method: "POST",
    pattern: endpointPath("/test"),
    minRole: "admin",
    handle: (ctx) => webhooksOf(ctx).test(ctx.actor, ctx.params[0], channelOf(ctx)),
  },
  {
    method: "POST",
    pattern: endpointPath("/rotate"),
    minRole: "admin",
    handle: (ctx) => webhooksOf(ctx).rotate(ctx.actor, ctx.params[0], channelOf(ctx)),
  },
  {
    method: "POST",
    pattern: endpointPath("/recover"),
    minRole: "admin",
    async handle(ctx) {
      const { since } = RecoverBody.parse(await readJson(ctx.req));
      return webhooksOf(ctx).recover(ctx.actor, ctx.params[0], since, channelOf(ctx));
    },
  },
];
