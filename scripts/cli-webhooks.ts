// CLI commands for signed webhooks over REST v1 (docs/channels.md#webhooks), as an
// admin: `webhooks list`, `webhooks add URL [--events a,b|*] [--team ID]`,
// `webhooks deliveries ID [--state failed]`, `webhooks show-delivery ID`,
// `webhooks test ID`, `webhooks resend DELIVERY`, `webhooks recover ID
// --since TIME`, `webhooks rotate ID`, `webhooks disable|enable ID`,
// `webhooks remove ID` and `webhooks allow-hosts [HOST,…]`. The signing
// secret is printed by add and rotate, once.
import type { components } from "../lib/rest-api.generated";
import { CliError, ok } from "./cli-error";
import { given, type Body, type Query } from "./cli-input";
import type { CliCommand } from "./cli-commands";

export const WEBHOOK_OPTIONS = {
  /** webhooks add: the event types, comma-separated, or * (default). */
  events: { type: "string" },
  /** webhooks add: only this team's runs. */
  team: { type: "string" },
  description: { type: "string" },
  /** webhooks deliveries: pending, succeeded or failed. */
  state: { type: "string" },
  /** webhooks recover: an ISO date and time. */
  since: { type: "string" },
} as const;

type WebhookValues = { json?: boolean; events?: string; team?: string; description?: string; state?: string; since?: string };

type EndpointView = components["schemas"]["WebhookEndpoint"];
type AttemptView = components["schemas"]["WebhookAttempt"];

function need(args: string[], usage: string): string {
  if (!args[0]) throw new CliError(`usage: npm run rein -- webhooks ${usage}`);
  return args[0];
}

function printEndpoint(e: EndpointView) {
  const state = e.enabled
    ? e.failingSince
      ? `failing since ${e.failingSince}`
      : "on"
    : `off${e.disabledReason ? ` — ${e.disabledReason}` : ""}`;
  console.log(`${e.id}  ${e.url}  (${state})`);
  console.log(
    `  events ${e.eventTypes.join(", ")}; team ${e.team?.name ?? "every team"}; ${e.counts.succeeded} delivered, ${e.counts.pending} pending, ${e.counts.failed} failed${e.rotatingUntil ? `; the previous secret signs until ${e.rotatingUntil}` : ""}`,
  );
}

function printAttempt(a: AttemptView) {
  const answer = a.response ? `HTTP ${a.response.status}` : `no answer${a.error ? ` (${a.error})` : ""}`;
  console.log(`${a.at}  ${a.trigger.padEnd(9)} ${answer} in ${a.durationMs} ms${a.nextRetryAt ? `; next try ${a.nextRetryAt}` : ""}`);
}

function printSecret(secret: string) {
  console.log(`Signing secret (shown this once; keep it where your receiver can read it):\n  ${secret}`);
}

export const WEBHOOK_COMMANDS: CliCommand<WebhookValues>[] = [
  {
    command: "webhooks",
    sub: "list",
    usage: "[--json]",
    description: "List the webhook endpoints (admin): URL, state, event types, team and delivery counts.",
    async run({ api, values }) {
      const { webhooks } = await ok(api.GET("/api/v1/webhooks"));
      if (values.json) return console.log(JSON.stringify(webhooks));
      if (!webhooks.length) return console.log("No webhooks yet. Add one with: npm run rein -- webhooks add https://example.com/rein");
      for (const e of webhooks) printEndpoint(e);
    },
  },
  {
    command: "webhooks",
    sub: "add",
    usage: "URL [--events TYPE,TYPE|*] [--team TEAM_ID] [--description TEXT] [--json]",
    description:
      "Add a webhook endpoint (admin); prints its signing secret once. Event types: run.state_changed, human_request.opened|decided|expired|escalated, improvement.opened|merged, budget.warning|exceeded, or * (the default).",
    async run({ api, args, values }) {
      const url = need(args, "add URL [--events …]");
      const eventTypes = (values.events ?? "*")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      const { endpoint, secret } = await ok(
        api.POST("/api/v1/webhooks", {
          body: {
            url,
            eventTypes: given<Body<"/api/v1/webhooks", "post">["eventTypes"]>(eventTypes),
            ...(values.team ? { teamId: values.team } : {}),
            ...(values.description ? { description: values.description } : {}),
          },
        }),
      );
      if (values.json) return console.log(JSON.stringify({ endpoint, secret }));
      printEndpoint(endpoint);
      printSecret(secret);
      console.log(`Send a test ping with: npm run rein -- webhooks test ${endpoint.id}`);
    },
  },
  {
    command: "webhooks",
    sub: "deliveries",
    usage: "ID [--state pending|succeeded|failed] [--json]",
    description: "An endpoint's latest deliveries (admin), newest first: type, state, attempts, last answer and next try.",
    async run({ api, args, values }) {
      const id = need(args, "deliveries ID");
      const { deliveries } = await ok(
        api.GET("/api/v1/webhooks/{id}/deliveries", {
          params: {
            path: { id },
            query: values.state ? { state: given<Query<"/api/v1/webhooks/{id}/deliveries", "get">["state"]>(values.state) } : {},
          },
        }),
      );
      if (values.json) return console.log(JSON.stringify(deliveries));
      if (!deliveries.length) return console.log("No deliveries yet.");
      for (const d of deliveries) {
        const last = d.lastStatus !== null ? `HTTP ${d.lastStatus}` : (d.lastError ?? "not tried yet");
        console.log(
          `${d.id}  ${d.createdAt}  ${d.type.padEnd(24)} ${d.state.padEnd(9)} ${d.attempts} attempt(s), last ${last}${d.nextAttemptAt ? `; next ${d.nextAttemptAt}` : ""}`,
        );
      }
    },
  },
  {
    command: "webhooks",
    sub: "show-delivery",
    usage: "DELIVERY_ID [--json]",
    description: "One delivery (admin): its payload and every attempt with what came back.",
    async run({ api, args, values }) {
      const id = need(args, "show-delivery DELIVERY_ID");
      const d = await ok(api.GET("/api/v1/webhooks/deliveries/{id}", { params: { path: { id } } }));
      if (values.json) return console.log(JSON.stringify(d));
      console.log(`${d.type} to ${d.url}: ${d.state} (webhook-id ${d.messageId})`);
      console.log(d.body);
      for (const a of d.log) printAttempt(a);
    },
  },
  {
    command: "webhooks",
    sub: "test",
    usage: "ID",
    description: "Send a test ping (type webhook.test) now and say how the endpoint answered (admin).",
    async run({ api, args }) {
      const id = need(args, "test ID");
      const a = await ok(api.POST("/api/v1/webhooks/{id}/test", { params: { path: { id } } }));
      printAttempt(a);
      if (!a.delivered) throw new CliError("The endpoint did not take the ping");
    },
  },
  {
    command: "webhooks",
    sub: "resend",
    usage: "DELIVERY_ID",
    description: "Send one delivery again now, with the same webhook-id (admin).",
    async run({ api, args }) {
      const id = need(args, "resend DELIVERY_ID");
      const a = await ok(api.POST("/api/v1/webhooks/deliveries/{id}/resend", { params: { path: { id } } }));
      printAttempt(a);
      if (!a.delivered) throw new CliError("The endpoint did not take it");
    },
  },
  {
    command: "webhooks",
    sub: "recover",
    usage: "ID --since TIME",
    description: "Send again everything since TIME (ISO 8601, at most 7 days back) that the endpoint did not receive (admin).",
    async run({ api, args, values }) {
      const id = need(args, "recover ID --since TIME");
      if (!values.since) throw new CliError("webhooks recover needs --since TIME, e.g. --since 2026-11-27T09:00:00Z");
      const { queued } = await ok(api.POST("/api/v1/webhooks/{id}/recover", { params: { path: { id } }, body: { since: values.since } }));
      console.log(
        queued
          ? `${queued} delivery(ies) queued; they go out in the next seconds`
          : "Nothing to recover: the endpoint received everything since then",
      );
    },
  },
  {
    command: "webhooks",
    sub: "rotate",
    usage: "ID",
    description: "A new signing secret, printed once (admin); the previous one also signs for 24 hours so receivers can switch.",
    async run({ api, args }) {
      const id = need(args, "rotate ID");
      const { endpoint, secret } = await ok(api.POST("/api/v1/webhooks/{id}/rotate", { params: { path: { id } } }));
      printEndpoint(endpoint);
      printSecret(secret);
    },
  },
  ...(["enable", "disable"] as const).map((verb): CliCommand<WebhookValues> => ({
    command: "webhooks",
    sub: verb,
    usage: "ID",
    description:
      verb === "enable"
        ? "Turn a webhook endpoint back on (admin)."
        : "Turn a webhook endpoint off (admin): nothing is sent to it until it is on again.",
    async run({ api, args }) {
      const id = need(args, `${verb} ID`);
      printEndpoint(await ok(api.PATCH("/api/v1/webhooks/{id}", { params: { path: { id } }, body: { enabled: verb === "enable" } })));
    },
  })),
  {
    command: "webhooks",
    sub: "remove",
    usage: "ID",
    description: "Remove a webhook endpoint and its delivery log (admin).",
    async run({ api, args }) {
      const id = need(args, "remove ID");
      await ok(api.DELETE("/api/v1/webhooks/{id}", { params: { path: { id } } }));
      console.log(`Removed ${id}`);
    },
  },
  {
    command: "webhooks",
    sub: "allow-hosts",
    usage: "[HOST[:PORT],…] [--json]",
    description:
      "Show, or set, the hosts and ports webhooks may reach although they resolve to private or loopback addresses (admin); a host without :PORT allows only 443 (https) and 80 (http); give an empty string to allow none.",
    async run({ api, args, values }) {
      const hosts =
        args.length === 0
          ? (await ok(api.GET("/api/v1/webhooks/allowed-hosts"))).hosts
          : (
              await ok(
                api.PUT("/api/v1/webhooks/allowed-hosts", {
                  body: {
                    hosts: args
                      .join(",")
                      .split(",")
                      .map((h) => h.trim())
                      .filter(Boolean),
                  },
                }),
              )
            ).hosts;
      if (values.json) return console.log(JSON.stringify(hosts));
      console.log(
        hosts.length
          ? `Allowed although not public: ${hosts.join(", ")}`
          : "No private host is allowed: webhooks reach public addresses only",
      );
    },
  },
];
