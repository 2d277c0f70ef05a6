// What the inbox, links, REST and CLI call: access checks (a person sees the
// requests of runs they can see) on top of the broker.
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import type { RunEventRecord, RunStore } from "@/server/kernel";
import type { HitlBroker } from "./broker";
import type { LinkContext } from "./links";
import type { RequestFilter } from "./requests";
import { isOpen } from "./states";
import { HumanRequestError, decisionRefusal, type Decider, type HumanRequestView, type RequestKind, type RequestState } from "./types";

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

/** A request as one person sees it: whether they may decide it, and why not when they may only look. */
export type ActorRequestView = HumanRequestView & { you: { mayDecide: boolean; whyNot: string | null } };

/** The person as the broker checks a decider: their own role and their role in each team. */
export function deciderOf(actor: Actor): Decider {
  return { id: actor.userId, name: actor.name, role: actor.role, teamIds: actor.teamIds, teamRoles: actor.teamRoles };
}

/** The same checks decide() makes, for showing: a closed request is nobody's to decide. */
export function forActor(view: HumanRequestView, actor: Actor): ActorRequestView {
  if (!isOpen(view.state)) return { ...view, you: { mayDecide: false, whyNot: null } };
  const whyNot = decisionRefusal(deciderOf(actor), view);
  return { ...view, you: { mayDecide: !whyNot, whyNot } };
}

/** Admins see every request; others those of their teams' runs and of runs they launched. */
export async function listForActor(
  broker: HitlBroker,
  actor: Actor,
  filter: InboxFilter,
): Promise<{ items: ActorRequestView[]; nextCursor: string | null }> {
  const base: RequestFilter = { state: filter.state, kind: filter.kind, runId: filter.runId, cursor: filter.cursor, limit: filter.limit };
  const page =
    filter.scope === "mine"
      ? await broker.list({ ...base, requestedById: actor.userId })
      : filter.scope === "team"
        ? await broker.list({ ...base, teamIds: actor.teamIds })
        : actor.role === "admin"
          ? await broker.list(base)
          : await broker.listVisible(base, actor.userId, actor.teamIds);
  return { items: page.items.map((v) => forActor(v, actor)), nextCursor: page.nextCursor };
}

export async function getForActor(broker: HitlBroker, actor: Actor, id: string): Promise<ActorRequestView> {
  const view = await broker.get(id);
  if (!view || !canSee(actor, view)) throw new HumanRequestError("NOT_FOUND", `There is no human request ${id}`);
  return forActor(view, actor);
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
