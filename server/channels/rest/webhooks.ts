// REST v1 for webhook endpoints (docs/channels.md#webhooks), for admins and the CLI:
// the same service, checks and audit as Settings › Channels › Webhooks. The
// signing secret is in the answer to create and rotate, and nowhere else.
import { z } from "zod";
import { WebhookInput, WebhookUpdate } from "../webhooks";
import { defineRoute, type Route } from "./contract";
import { Ok, TeamRef } from "./schemas";

const RecoverBody = z
  .object({
    since: z.coerce.date({ error: "since is a date and time (ISO 8601)" }).describe("Send again what was not received since this time"),
  })
  .strict();
const AllowHostsBody = z
  .object({
    hosts: z
      .array(z.string())
      .describe('Hosts, addresses, or either with :port ("hooks.internal:8443", "[fd00::5]:8080"); at most 50. Replaces the list'),
  })
  .strict();
const DeliveriesQuery = z.object({
  state: z
    .enum(["pending", "succeeded", "failed"])
    .optional()
    .catch(undefined)
    .describe("Only deliveries in this state (another value lists them all)"),
  limit: z
    .string()
    .regex(/^\d{1,3}$/, "limit is a whole number from 1 to 200")
    .transform(Number)
    .optional()
    .describe("How many, from 1 to 200 (default 50)"),
  cursor: z.string().optional().describe("nextCursor of the previous page"),
});

/** Times in these answers are ISO 8601 text already. */
const Time = z.string();

const Endpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    description: z.string(),
    eventTypes: z.array(z.string()).describe("The outbox event types it receives; * for all"),
    teamId: z.string().nullable().describe("Only this team's runs; null for every team"),
    team: TeamRef.nullable(),
    enabled: z.boolean(),
    disabledAt: Time.nullable(),
    disabledReason: z.string().nullable(),
    failingSince: Time.nullable().describe("Since when its deliveries fail; 5 days of failures turn it off"),
    rotatingUntil: Time.nullable().describe("Until when the previous secret also signs (after a rotation)"),
    createdAt: Time,
    counts: z.object({ pending: z.number().int(), failed: z.number().int(), succeeded: z.number().int() }).describe("Deliveries by state"),
  })
  .meta({ id: "WebhookEndpoint" });

const WithSecret = z.object({
  endpoint: Endpoint,
  secret: z.string().describe("The signing secret (whsec_…), shown this once"),
});

const Delivery = z
  .object({
    id: z.string(),
    endpointId: z.string(),
    messageId: z.string().describe("The webhook-id header: the same on every attempt, for dedupe"),
    type: z.string(),
    state: z.enum(["pending", "succeeded", "failed"]),
    attempts: z.number().int(),
    nextAttemptAt: Time.nullable(),
    lastStatus: z.number().int().nullable().describe("The HTTP status of the last attempt"),
    lastError: z.string().nullable(),
    createdAt: Time,
    updatedAt: Time,
  })
  .meta({ id: "WebhookDelivery" });

const Headers = z.record(z.string(), z.string());

const Attempt = z
  .object({
    id: z.string(),
    trigger: z.string().describe("scheduled, recover, resend or test"),
    at: Time,
    durationMs: z.number(),
    request: z.object({ url: z.string(), headers: Headers, body: z.string() }),
    response: z
      .object({
        status: z.number().int().nullable(),
        headers: Headers,
        body: z.string().describe("The first KiB of the body"),
      })
      .nullable()
      .describe("null when no answer came (refused, unreachable, timed out)"),
    error: z.string().nullable(),
    nextRetryAt: Time.nullable(),
  })
  .meta({ id: "WebhookAttempt" });

const Sent = Attempt.extend({ delivered: z.boolean().describe("The endpoint answered 2xx") });

export const WEBHOOK_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/webhooks",
    minRole: "admin",
    summary: "The signed webhook endpoints, with their event types, state and delivery counts",
    response: z.object({ webhooks: z.array(Endpoint) }),
    handle: async (ctx) => ({ webhooks: await ctx.webhooks.list(ctx.actor) }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/webhooks",
    minRole: "admin",
    status: 201,
    summary: "Add a webhook endpoint; the answer holds its signing secret (whsec_…), shown this once",
    description:
      "Deliveries follow Standard Webhooks: headers webhook-id (stable per message, for dedupe), webhook-timestamp and webhook-signature (v1,<base64 HMAC-SHA256 of id.timestamp.body>). The URL must resolve to public addresses unless an admin allowed its host.",
    body: WebhookInput,
    response: WithSecret,
    handle: (ctx) => ctx.webhooks.create(ctx.actor, ctx.body, ctx.channel),
  }),
  // Before the routes of one endpoint: these words would otherwise read as an endpoint's id.
  defineRoute({
    method: "GET",
    path: "/api/v1/webhooks/allowed-hosts",
    minRole: "admin",
    summary: "Hosts webhooks may reach although they resolve to loopback or private addresses",
    response: z.object({ hosts: z.array(z.string()) }),
    handle: async (ctx) => ({ hosts: await ctx.webhooks.allowHosts() }),
  }),
  defineRoute({
    method: "PUT",
    path: "/api/v1/webhooks/allowed-hosts",
    minRole: "admin",
    summary: "Set the hosts webhooks may reach although they are not public (a receiver inside your network)",
    body: AllowHostsBody,
    response: z.object({ hosts: z.array(z.string()).describe("The list as stored: lower case, each once") }),
    handle: async (ctx) => ({ hosts: await ctx.webhooks.setAllowHosts(ctx.actor, ctx.body.hosts, ctx.channel) }),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/webhooks/deliveries/{id}",
    minRole: "admin",
    summary:
      "One delivery: its payload and every attempt (request headers, response status, headers and first KiB of body, duration, next retry)",
    response: Delivery.extend({
      body: z.string().describe("The payload as sent"),
      url: z.string().describe("The endpoint's URL"),
      log: z.array(Attempt).describe("Every attempt, newest first (the last 50)"),
    }),
    handle: (ctx) => ctx.webhooks.delivery(ctx.actor, ctx.params.id),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/webhooks/deliveries/{id}/resend",
    minRole: "admin",
    summary: "Send one delivery again now, with the same webhook-id",
    response: Sent,
    responseDescription: "The attempt, with delivered",
    errors: { 409: "The endpoint is turned off" },
    handle: (ctx) => ctx.webhooks.resend(ctx.actor, ctx.params.id, ctx.channel),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/webhooks/{id}",
    minRole: "admin",
    summary: "One webhook endpoint",
    response: Endpoint,
    handle: (ctx) => ctx.webhooks.get(ctx.actor, ctx.params.id),
  }),
  defineRoute({
    method: "PATCH",
    path: "/api/v1/webhooks/{id}",
    minRole: "admin",
    summary: "Change an endpoint: URL, description, event types, team, or enabled (false turns it off, true back on)",
    body: WebhookUpdate,
    response: Endpoint,
    handle: (ctx) => ctx.webhooks.update(ctx.actor, ctx.params.id, ctx.body, ctx.channel),
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/webhooks/{id}",
    minRole: "admin",
    summary: "Remove an endpoint and its delivery log",
    response: Ok,
    async handle(ctx) {
      await ctx.webhooks.remove(ctx.actor, ctx.params.id, ctx.channel);
      return { ok: true };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/webhooks/{id}/deliveries",
    minRole: "admin",
    summary: "An endpoint's deliveries, newest first",
    query: DeliveriesQuery,
    response: z.object({
      deliveries: z.array(Delivery),
      nextCursor: z.string().nullable().describe("cursor for the next page; null on the last"),
    }),
    async handle(ctx) {
      const { cursor, ...rest } = ctx.query;
      const page = await ctx.webhooks.deliveries(ctx.actor, ctx.params.id, { ...rest, before: cursor });
      return { deliveries: page.deliveries, nextCursor: page.next };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/webhooks/{id}/test",
    minRole: "admin",
    summary: "Send a test ping (type webhook.test) now and report how the endpoint answered",
    response: Sent.extend({ deliveryId: z.string() }),
    responseDescription: "The attempt, with delivered",
    handle: (ctx) => ctx.webhooks.test(ctx.actor, ctx.params.id, ctx.channel),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/webhooks/{id}/rotate",
    minRole: "admin",
    summary: "A new signing secret, shown this once; the old one also signs for 24 hours",
    response: WithSecret,
    handle: (ctx) => ctx.webhooks.rotate(ctx.actor, ctx.params.id, ctx.channel),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/webhooks/{id}/recover",
    minRole: "admin",
    summary: "Send again everything since a time that this endpoint did not receive (at most 7 days back)",
    body: RecoverBody,
    response: z.object({ queued: z.number().int().describe("How many deliveries were queued") }),
    errors: { 409: "The endpoint is turned off" },
    handle: (ctx) => ctx.webhooks.recover(ctx.actor, ctx.params.id, ctx.body.since, ctx.channel),
  }),
];
