// REST v1 for the extension registry (docs/extensions.md): the list, one
// extension with its files and test results, proposing a package, switching
// one off or on, approving, and removing one. The same services and role
// checks as the tRPC router.
import { z } from "zod";
import { EXTENSION_MAX_PACKAGE_BYTES, ListExtensionsInput, getExtension, listExtensions, type ExtensionRegistry } from "@/server/improve";
import { DomainError } from "@/server/errors";
import { readJson } from "./http";
import type { Route, RouteContext } from "./v1";

const path = (rest = "") => new RegExp(`^/api/v1/extensions/([^/]+)${rest}$`);
const query = (ctx: RouteContext) => Object.fromEntries(ctx.url.searchParams);

const ActionBody = z.object({ reason: z.string().trim().max(500, "reason is at most 500 characters").optional() }).strict();
const ProposeBody = z
  .object({ manifest: z.unknown(), files: z.unknown() }, { error: "the body is an extension package: { manifest, files }" })
  .strict();
/** The package's own limit, with room for JSON's escaping. */
const MAX_PROPOSAL_BYTES = 2 * EXTENSION_MAX_PACKAGE_BYTES;

function registryOf(ctx: RouteContext): ExtensionRegistry {
  const registry = ctx.improve?.extensionRegistry;
  if (!registry) throw new DomainError("UNAVAILABLE", "Self-improvement is not running on this server");
  return registry;
}

const channelOf = (ctx: RouteContext) => (ctx.req.headers["x-rein-channel"] === "cli" ? "cli" : "api");

type Action = "disable" | "enable" | "approve" | "reject";

function action(name: Action, minRole: Route["minRole"]): Route {
  return {
    method: "POST",
    pattern: path(`/${name}`),
    minRole,
    async handle(ctx) {
      const registry = registryOf(ctx);
      const { reason } = ActionBody.parse(await readJson(ctx.req));
      const id = ctx.params[0];
      if (name === "approve") await registry.approve(ctx.actor, id, channelOf(ctx));
      else await registry[name](ctx.actor, id, channelOf(ctx), reason);
      return getExtension(ctx.db, ctx.actor, id);
    },
  };
}

export const EXTENSION_ROUTES: Route[] = [
  {
    method: "GET",
    pattern: /^\/api\/v1\/extensions$/,
    minRole: "viewer",
    handle: (ctx) => listExtensions(ctx.db, ctx.actor, ListExtensionsInput.parse(query(ctx))),
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/extensions$/,
    minRole: "admin",
    status: 201,
    async handle(ctx) {
      const registry = registryOf(ctx);
      const pkg = ProposeBody.parse(await readJson(ctx.req, MAX_PROPOSAL_BYTES));
      const out = await registry.propose(pkg, {
        createdById: ctx.actor.userId,
        by: { id: ctx.actor.userId, name: ctx.actor.name },
        channel: channelOf(ctx),
      });
      return getExtension(ctx.db, ctx.actor, out.id);
    },
  },
  { method: "GET", pattern: path(), minRole: "viewer", handle: (ctx) => getExtension(ctx.db, ctx.actor, ctx.params[0]) },
  action("disable", "approver"),
  action("enable", "approver"),
  action("approve", "admin"),
  action("reject", "admin"),
  {
    method: "DELETE",
    pattern: path(),
    minRole: "admin",
    async handle(ctx) {
      await registryOf(ctx).remove(ctx.actor, ctx.params[0], channelOf(ctx));
      return getExtension(ctx.db, ctx.actor, ctx.params[0]);
    },
  },
];
