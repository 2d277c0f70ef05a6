// REST v1 for memories (the Memory page's API): search and list, one memory,
// edit, pin and delete. The same service and role checks as the tRPC router.
import { z } from "zod";
import { ListMemoriesInput, MEMORY_KINDS, MEMORY_SCOPES, MEMORY_STATES, MemoryStore, UpdateMemoryInput } from "@/server/memory";
import { DomainError } from "@/server/errors";
import { readJson } from "./http";
import type { Route, RouteContext } from "./v1";

const path = (rest = "") => new RegExp(`^/api/v1/memories/([^/]+)${rest}$`);

const PatchBody = UpdateMemoryInput.extend({ state: z.enum(["active", "rejected"]).optional() }).strict();
const PinBody = z.object({ pinned: z.boolean({ error: "pinned is true or false" }).optional() }).strict();

const storeOf = (ctx: RouteContext) => new MemoryStore({ db: ctx.db });
const channelOf = (ctx: RouteContext) => (ctx.req.headers["x-rein-channel"] === "cli" ? "cli" : "api");

function listQuery(url: URL) {
  const q = (name: string) => url.searchParams.get(name) ?? undefined;
  const pick = <T extends string>(name: string, allowed: readonly T[]): T | undefined => {
    const v = q(name);
    if (v === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(v))
      throw new DomainError("INVALID_INPUT", `${name} is one of ${allowed.join(", ")}; got ${v.slice(0, 40)}`);
    return v as T;
  };
  const limit = q("limit");
  const pinned = q("pinned");
  return ListMemoriesInput.parse({
    q: q("q"),
    agent: q("agent"),
    kind: pick("kind", MEMORY_KINDS),
    state: pick("state", MEMORY_STATES),
    scope: pick("scope", MEMORY_SCOPES),
    teamId: q("teamId"),
    ...(pinned !== undefined ? { pinned: pinned === "true" } : {}),
    ...(limit !== undefined ? { limit: Number(limit) } : {}),
    cursor: q("cursor"),
  });
}

export const MEMORY_ROUTES: Route[] = [
  { method: "GET", pattern: /^\/api\/v1\/memories$/, minRole: "viewer", handle: (ctx) => storeOf(ctx).list(ctx.actor, listQuery(ctx.url)) },
  { method: "GET", pattern: path(), minRole: "viewer", handle: (ctx) => storeOf(ctx).getFor(ctx.actor, ctx.params[0]) },
  {
    method: "PATCH",
    pattern: path(),
    minRole: "operator",
    async handle(ctx) {
      const body = PatchBody.parse(await readJson(ctx.req));
      return storeOf(ctx).update(ctx.actor, ctx.params[0], body, channelOf(ctx));
    },
  },
  {
    method: "POST",
    pattern: path("/pin"),
    minRole: "operator",
    async handle(ctx) {
      const body = PinBody.parse((await readJson(ctx.req)) ?? {});
      return storeOf(ctx).setPinned(ctx.actor, ctx.params[0], body.pinned ?? true, channelOf(ctx));
    },
  },
  {
    method: "DELETE",
    pattern: path(),
    minRole: "operator",
    handle: (ctx) => storeOf(ctx).remove(ctx.actor, ctx.params[0], channelOf(ctx)),
  },
];
