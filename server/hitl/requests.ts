// Human request rows: creating one per (run, node, slot), reading them as views.
import type { Db, Prisma } from "@/server/db";
import { isRole, type Role } from "@/server/identity";
import { deadlines, type TtlLadder } from "./ladder";
import type { HumanRequestView, RequestKind, RequestPayload, RequestSlot, RequestState, DecisionInput } from "./types";

export interface NewRequest {
  runId: string;
  nodeId: string;
  checkpointId: string;
  slot: RequestSlot;
  kind: RequestKind;
  title: string;
  detail?: string;
  payload: RequestPayload;
  requiredRole: Role;
  teamId: string | null;
  requestedById: string | null;
  ttlSec?: number;
}

export type RequestRow = Prisma.HumanRequestGetPayload<object>;

export async function findRequest(db: Db, runId: string, nodeId: string, slot: RequestSlot): Promise<RequestRow | null> {
  return db.humanRequest.findUnique({ where: { runId_nodeId_slot: { runId, nodeId, slot } } });
}

/** Creates the request, or returns the one a concurrent or earlier attempt made. */
export async function createRequest(db: Db, req: NewRequest, ladder: TtlLadder, now: Date): Promise<{ row: RequestRow; created: boolean }> {
  const existing = await findRequest(db, req.runId, req.nodeId, req.slot);
  if (existing) return { row: existing, created: false };
  const { expiresAt, hardExpiresAt } = deadlines(req.kind, ladder, now, req.ttlSec);
  try {
    const row = await db.humanRequest.create({
      data: {
        runId: req.runId,
        nodeId: req.nodeId,
        checkpointId: req.checkpointId,
        slot: req.slot,
        kind: req.kind,
        title: req.title.slice(0, 500),
        detail: req.detail ?? "",
        payload: JSON.stringify(req.payload),
        requiredRole: req.requiredRole,
        teamId: req.teamId,
        requestedById: req.requestedById,
        expiresAt,
        hardExpiresAt,
        nextActionAt: expiresAt,
        createdAt: now,
      },
    });
    return { row, created: true };
  } catch (err) {
    const again = await findRequest(db, req.runId, req.nodeId, req.slot);
    if (again) return { row: again, created: false };
    throw err;
  }
}

export function parseDecision(row: Pick<RequestRow, "decision">): DecisionInput | null {
  return row.decision ? (JSON.parse(row.decision) as DecisionInput) : null;
}

export function parsePayload(row: Pick<RequestRow, "payload">): RequestPayload {
  return JSON.parse(row.payload) as RequestPayload;
}

const VIEW_SELECT = {
  id: true,
  runId: true,
  nodeId: true,
  slot: true,
  kind: true,
  state: true,
  title: true,
  detail: true,
  payload: true,
  requiredRole: true,
  level: true,
  expiresAt: true,
  hardExpiresAt: true,
  createdAt: true,
  teamId: true,
  requestedById: true,
  decision: true,
  decidedById: true,
  decidedAt: true,
  channel: true,
} as const;

type ViewRow = Prisma.HumanRequestGetPayload<{ select: typeof VIEW_SELECT }>;

export interface RequestFilter {
  state?: RequestState[];
  kind?: RequestKind[];
  runId?: string;
  teamIds?: string[];
  requestedById?: string;
  /** Only requests of the user's own runs or their teams' runs. */
  visibleTo?: { userId: string; teamIds: string[] };
  cursor?: string;
  limit?: number;
}

/** Newest first; `cursor` is the last id of the previous page. */
export async function listRequestViews(db: Db, filter: RequestFilter): Promise<{ items: HumanRequestView[]; nextCursor: string | null }> {
  const limit = Math.min(Math.max(filter.limit ?? 50, 1), 200);
  const where: Prisma.HumanRequestWhereInput = {
    ...(filter.state?.length ? { state: { in: filter.state } } : {}),
    ...(filter.kind?.length ? { kind: { in: filter.kind } } : {}),
    ...(filter.runId ? { runId: filter.runId } : {}),
    ...(filter.teamIds ? { teamId: { in: filter.teamIds } } : {}),
    ...(filter.requestedById ? { requestedById: filter.requestedById } : {}),
    ...(filter.visibleTo ? { OR: [{ requestedById: filter.visibleTo.userId }, { teamId: { in: filter.visibleTo.teamIds } }] } : {}),
  };
  const rows = await db.humanRequest.findMany({
    where,
    select: VIEW_SELECT,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
    ...(filter.cursor ? { cursor: { id: filter.cursor }, skip: 1 } : {}),
  });
  const page = rows.slice(0, limit);
  return { items: await toViews(db, page), nextCursor: rows.length > limit ? page[page.length - 1].id : null };
}

export async function getRequestView(db: Db, id: string): Promise<HumanRequestView | null> {
  const row = await db.humanRequest.findUnique({ where: { id }, select: VIEW_SELECT });
  return row ? (await toViews(db, [row]))[0] : null;
}

async function toViews(db: Db, rows: ViewRow[]): Promise<HumanRequestView[]> {
  const userIds = [...new Set(rows.flatMap((r) => [r.requestedById, r.decidedById]).filter((x): x is string => !!x))];
  const runIds = [...new Set(rows.map((r) => r.runId))];
  const teamIds = [...new Set(rows.map((r) => r.teamId).filter((x): x is string => !!x))];
  const [users, runs, teams] = await Promise.all([
    db.user.findMany({ where: { id: { in: userIds } }, select: { id: true, name: true } }),
    db.run.findMany({ where: { id: { in: runIds } }, select: { id: true, goal: true, agentName: true, status: true } }),
    db.team.findMany({ where: { id: { in: teamIds } }, select: { id: true, name: true } }),
  ]);
  const userName = new Map(users.map((u) => [u.id, u.name]));
  const teamName = new Map(teams.map((t) => [t.id, t.name]));
  const runById = new Map(runs.map((r) => [r.id, r]));
  const person = (id: string | null) => (id ? { id, name: userName.get(id) ?? (id === "system" ? "Rein" : id) } : null);
  return rows.map((r) => {
    const run = runById.get(r.runId);
    return {
      id: r.id,
      runId: r.runId,
      nodeId: r.nodeId,
      slot: r.slot as RequestSlot,
      kind: r.kind as RequestKind,
      state: r.state as RequestState,
      title: r.title,
      detail: r.detail,
      payload: parsePayload(r),
      requiredRole: isRole(r.requiredRole) ? r.requiredRole : "admin",
      level: r.level,
      expiresAt: r.expiresAt,
      hardExpiresAt: r.hardExpiresAt,
      createdAt: r.createdAt,
      teamId: r.teamId,
      teamName: r.teamId ? (teamName.get(r.teamId) ?? null) : null,
      requestedBy: person(r.requestedById),
      decision: parseDecision(r),
      decidedBy: person(r.decidedById),
      decidedAt: r.decidedAt,
      channel: r.channel,
      run: run ? { goal: run.goal, agentName: run.agentName, status: run.status } : null,
    };
  });
}
