// REST v1 for the Improvements pages
// (docs/improvements.md#states-trust-and-promotion): friction, the list of
// improvements and one of them, and switching one off, on or promoting it. The
// same services and role checks as the tRPC router.
import { z } from "zod";
import {
  IMPROVEMENT_KINDS,
  IMPROVEMENT_STATES,
  actOnImprovement,
  getImprovement,
  listFriction,
  listImprovements,
  type ImprovementAction,
} from "@/server/improve";
import { DomainError } from "@/server/errors";
import { readJson } from "./http";
import type { Route, RouteContext } from "./v1";

const query = (ctx: RouteContext) => Object.fromEntries(ctx.url.searchParams);
const path = (rest = "") => new RegExp(`^/api/v1/improvements/([^/]+)${rest}$`);

const Limit = z.coerce
  .number({ error: "limit is a number" })
  .int("limit is a whole number")
  .min(1, "limit is 1 or more")
  .max(200, "limit is at most 200")
  .default(50);
const ListQuery = z
  .object({
    kind: z.enum(IMPROVEMENT_KINDS, { error: `kind is one of ${IMPROVEMENT_KINDS.join(", ")}` }).optional(),
    tier: z.coerce.number({ error: "tier is a number" }).int().min(1, "tier is 1 to 4").max(4, "tier is 1 to 4").optional(),
    state: z.enum(IMPROVEMENT_STATES, { error: `state is one of ${IMPROVEMENT_STATES.join(", ")}` }).optional(),
    agent: z.string().max(100, "agent is at most 100 characters").optional(),
    q: z.string().max(200, "q is at most 200 characters").optional(),
    limit: Limit,
    cursor: z.string().max(64, "cursor is at most 64 characters").optional(),
  })
  .strict();
const FrictionQuery = z
  .object({
    agent: z.string().max(100, "agent is at most 100 characters").optional(),
    kind: z.string().max(40, "kind is at most 40 characters").optional(),
    state: z.string().max(20, "state is at most 20 characters").optional(),
    limit: Limit,
  })
  .strict();
const ActionBody = z.object({ reason: z.string().trim().max(500, "reason is at most 500 characters").optional() }).strict();

function action(name: Exclude<ImprovementAction, "delete">, minRole: Route["minRole"]): Route {
  return {
    method: "POST",
    pattern: path(`/${name}`),
    minRole,
    async handle(ctx) {
      const svc = ctx.improve;
      if (!svc) throw new DomainError("UNAVAILABLE", "Self-improvement is not running on this server");
      // An empty body is fine (read as {}); a reason is optional.
      const body = ActionBody.parse(await readJson(ctx.req));
      const channel = ctx.req.headers["x-rein-channel"] === "cli" ? "cli" : "api";
      return actOnImprovement(
        { db: ctx.db, unload: (n) => svc.live.unload(n), load: (id) => svc.reload(id), promote: (id, by, ch) => svc.promote(id, by, ch) },
        ctx.actor,
        ctx.params[0],
        name,
        channel,
        body.reason,
      );
    },
  };
}

export const IMPROVEMENT_ROUTES: Route[] = [
  {
    method: "GET",
    pattern: /^\/api\/v1\/friction$/,
    minRole: "viewer",
    handle: async (ctx) => ({ friction: await listFriction(ctx.db, ctx.actor, FrictionQuery.parse(query(ctx))) }),
  },
  {
    method: "GET",
    pattern: /^\/api\/v1\/improvements$/,
    minRole: "viewer",
    handle: (ctx) => listImprovements(ctx.db, ctx.actor, ListQuery.parse(query(ctx))),
  },
  { method: "GET", pattern: path(), minRole: "viewer", handle: (ctx) => getImprovement(ctx.db, ctx.actor, ctx.params[0]) },
  action("disable", "operator"),
  action("enable", "approver"),
  action("promote", "approver"),
];
