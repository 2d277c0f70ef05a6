// What the inbox, links, REST and CLI call: access checks (a person sees the
// requests of runs they can see) on top of the broker.
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import type { RunEventRecord, RunStore } from "@/server/kernel";
import type { HitlBroker } from "./broker";
import type { LinkContext } from "./links";
import type { RequestFilter } from "./requests";
import { HumanRequestError, type HumanRequestView, type RequestKind, type RequestState } from "./types";

export interface Hitl {
  broker: HitlBroker;
  links: LinkContext;
}

export interface InboxFilter {
  state?: RequestState[];
  kind?: RequestKind[];
  /** all: every request I may see; mine: of runs I launched; team: of my teams' runs. */
  scope?: "all" | "mine" | "team";
  runId?: string;
  cursor?: string;
  limit?: number;
}

/** Admins see every request; others those of their teams' runs and of runs they launched. */
export async function listForActor(broker: HitlBroker, actor: Actor, filter: InboxFilter) {
  const base: RequestFilter = { state: filter.state, kind: filter.kind, runId: filter.runId, cursor: filter.cursor, limit: filter.limit };
  if (filter.scope === "mine") return broker.list({ ...base, requestedById: actor.userId });
  if (filter.scope === "team") return broker.list({ ...base, teamIds: actor.teamIds });
  if (actor.role === "admin") return broker.list(base);
  return broker.listVisible(base, actor.userId, actor.teamIds);
}

export async function getForActor(broker: HitlBroker, actor: Actor, id: string): Promise<HumanRequestView> {
  const view = await broker.get(id);
  if (!view || !canSee(actor, view)) throw new HumanRequestError("NOT_FOUND", `There is no human request ${id}`);
  return view;
}

export function canSee(actor: Actor, view: Pick<HumanRequestView, "teamId" | "requestedBy">): boolean {
  return actor.role === "admin" || view.requestedBy?.id === actor.userId || (!!view.teamId && actor.teamIds.includes(view.teamId));
}

/** The request with its context: the run's recent timeline. */
export async function requestContext(deps: { db: Db; store: RunStore }, view: HumanRequestView, events = 30): Promise<RunEventRecord[]> {
  const run = await deps.db.run.findUnique({ where: { id: view.runId }, select: { lastSeq: true } });
  if (!run) return [];
  return deps.store.listEvents(view.runId, Math.max(0, run.lastSeq - events), events);
}
