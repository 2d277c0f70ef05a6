// REST v1 for model configuration (docs/models.md, docs/api.md), for admins and
// automation: the same service, validation and audit as Settings → Models.
// API keys are accepted and only ever returned masked.
import { ProviderUpdate, type ModelAdmin } from "@/server/models";
import type { Actor } from "@/server/identity";
import { DomainError } from "@/server/errors";
import { readJson } from "./http";
import type { Route, RouteContext } from "./v1";

function admin(ctx: RouteContext): ModelAdmin {
  if (!ctx.models) throw new DomainError("UNAVAILABLE", "Model configuration is not available on this server");
  return ctx.models;
}

const who = (actor: Actor) => ({ userId: actor.userId, name: actor.name || actor.email, channel: actor.via === "cli" ? "cli" : "api" });

export const MODEL_ROUTES: Route[] = [
  {
    method: "GET",
    pattern: /^\/api\/v1\/providers$/,
    minRole: "admin",
    handle: async (ctx) => ({ providers: await admin(ctx).providers() }),
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/providers$/,
    minRole: "admin",
    status: 201,
    handle: async (ctx) => admin(ctx).createProvider((await readJson(ctx.req)) as never, who(ctx.actor)),
  },
  { method: "GET", pattern: /^\/api\/v1\/providers\/([^/]+)$/, minRole: "admin", handle: (ctx) => admin(ctx).provider(ctx.params[0]) },
  {
    method: "PATCH",
    pattern: /^\/api\/v1\/providers\/([^/]+)$/,
    minRole: "admin",
    async handle(ctx) {
      const body = ProviderUpdate.omit({ name: true })
        .strict()
        .parse(await readJson(ctx.req));
      return admin(ctx).updateProvider({ ...body, name: ctx.params[0] }, who(ctx.actor));
    },
  },
  {
    method: "DELETE",
    pattern: /^\/api\/v1\/providers\/([^/]+)$/,
    minRole: "admin",
    async handle(ctx) {
      await admin(ctx).deleteProvider(ctx.params[0], who(ctx.actor));
      return { ok: true };
    },
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/providers\/([^/]+)\/test$/,
    minRole: "admin",
    handle: (ctx) => admin(ctx).testProvider({ name: ctx.params[0] }),
  },
  { method: "GET", pattern: /^\/api\/v1\/models$/, minRole: "admin", handle: async (ctx) => ({ models: await admin(ctx).models() }) },
  {
    method: "POST",
    pattern: /^\/api\/v1\/models$/,
    minRole: "admin",
    status: 201,
    handle: async (ctx) => admin(ctx).saveModel((await readJson(ctx.req)) as never, who(ctx.actor)),
  },
  {
    // The model id may itself hold slashes (e.g. OpenRouter's "meta-llama/llama-3.3-70b").
    method: "DELETE",
    pattern: /^\/api\/v1\/models\/([^/]+)\/(.+)$/,
    minRole: "admin",
    async handle(ctx) {
      await admin(ctx).deleteModel(`${ctx.params[0]}/${ctx.params[1]}`, who(ctx.actor));
      return { ok: true };
    },
  },
  { method: "GET", pattern: /^\/api\/v1\/routing$/, minRole: "admin", handle: (ctx) => admin(ctx).routing() },
  {
    method: "PUT",
    pattern: /^\/api\/v1\/routing$/,
    minRole: "admin",
    handle: async (ctx) => admin(ctx).setRouting((await readJson(ctx.req)) as never, who(ctx.actor)),
  },
];
