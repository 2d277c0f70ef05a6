// REST v1 for human requests (docs/api.md): the same roles, checks and
// audit as the inbox, with channel "api".
import { z } from "zod";
import { DecisionInput, REQUEST_STATES, getForActor, listForActor, type Hitl } from "@/server/hitl";
import { DomainError } from "@/server/errors";
import { readJson } from "./http";
import type { Route } from "./v1";

const ListQuery = z.object({
  state: z.string().optional(),
  runId: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().optional(),
});

function hitlOf(hitl: Hitl | undefined): Hitl {
  if (!hitl) throw new DomainError("UNAVAILABLE", "Human requests are not available on this server");
  return hitl;
}

export const HUMAN_REQUEST_ROUTES: Route[] = [
  {
    method: "GET",
    pattern: /^\/api\/v1\/human-requests$/,
    minRole: "viewer",
    handle({ url, actor, hitl }) {
      const q = ListQuery.parse(Object.fromEntries(url.searchParams));
      const states = q.state
        ? q.state
            .split(",")
            .filter(Boolean)
            .map((s) => s.toUpperCase())
        : undefined;
      const state = states ? z.array(z.enum(REQUEST_STATES)).parse(states) : undefined;
      return listForActor(hitlOf(hitl).broker, actor, { state, runId: q.runId, limit: q.limit, cursor: q.cursor });
    },
  },
  {
    method: "GET",
    pattern: /^\/api\/v1\/human-requests\/([^/]+)$/,
    minRole: "viewer",
    handle({ params, actor, hitl }) {
      return getForActor(hitlOf(hitl).broker, actor, params[0]);
    },
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/human-requests\/([^/]+)\/decision$/,
    minRole: "operator",
    async handle({ req, params, actor, hitl }) {
      const { broker } = hitlOf(hitl);
      const input = DecisionInput.parse(await readJson(req));
      await getForActor(broker, actor, params[0]);
      // The CLI says so; every other program is "api".
      const channel = req.headers["x-rein-channel"] === "cli" ? "cli" : "api";
      return broker.decide(
        params[0],
        { id: actor.userId, name: actor.name, role: actor.role, teamIds: actor.teamIds, teamRoles: actor.teamRoles },
        input,
        channel,
      );
    },
  },
];
