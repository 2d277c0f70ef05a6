// The Friction list (docs/improvements.md#friction): what runs keep
// struggling with, filtered, with what each hack cycle and change request did
// about it, and a person's dismissal with its reason. Scoped like
// improvements: admins see all, others friction of runs without a team or of
// their teams.
import { z } from "zod";
import { textSearch, type Db } from "@/server/db";
import { recordAudit } from "@/server/audit";
import { roleAcross, roleAtLeast, type Actor } from "@/server/identity";
import { signalOnlyBecause } from "../friction";
import { ImprovementError } from "./service";
import { visibleRunIds } from "./visibility";

export const FRICTION_STATES = ["open", "improving", "addressed", "dismissed"] as const;

export const ListFrictionInput = z
  .object({
    agent: z.string().max(100).optional(),
    kind: z.string().max(40).optional(),
    state: z.string().max(20).optional(),
    /** Words of the title or the tool. */
    q: z.string().trim().max(200).optional(),
    /** "cycles": only friction that starts cycles; "signals": only a person's choices. */
    role: z.enum(["cycles", "signals"]).optional(),
    limit: z.number().int().min(1).max(200).default(50),
  })
  .strict();

export const FrictionDecision = z
  .object({
    id: z.string().min(1).max(100),
    /** dismiss: a person says it needs no improvement (with why); reopen: it does again. */
    action: z.enum(["dismiss", "reopen"]),
    reason: z.string().trim().max(2000).optional(),
  })
  .strict();

const scopeOf = (actor: Actor) => (actor.role === "admin" ? {} : { OR: [{ teamId: null }, { teamId: { in: actor.teamIds } }] });

/** Friction newest first, with its latest runs you can see, its cycles and changes, and whether it starts cycles. */
export async function listFriction(db: Db, actor: Actor, raw: z.input<typeof ListFrictionInput> = {}, only?: string) {
  const input = ListFrictionInput.parse(raw);
  const rows = await db.friction.findMany({
    where: {
      AND: [
        scopeOf(actor),
        only ? { id: only } : {},
        input.agent ? { agentName: input.agent } : {},
        input.kind ? { kind: input.kind } : {},
        input.state ? { state: input.state } : {},
        input.q ? { OR: [{ title: textSearch(db, input.q) }, { tool: textSearch(db, input.q) }] } : {},
      ],
    },
    orderBy: { lastSeenAt: "desc" },
    // The role filter reads the signature; a few more rows keep the page full.
    take: input.role ? Math.min(200, input.limit * 3) : input.limit,
    include: { items: { orderBy: { createdAt: "desc" }, take: 5, select: { runId: true, count: true, createdAt: true, evidence: true } } },
  });
  const kept = rows
    .map((f) => ({ row: f, signalOnly: signalOnlyBecause(f.kind, f.signature) }))
    .filter((f) => !input.role || (input.role === "signals") === !!f.signalOnly)
    .slice(0, input.limit);
  const ids = kept.map((f) => f.row.id);
  const [seen, cycles, changes, people] = await Promise.all([
    visibleRunIds(
      db,
      actor,
      kept.flatMap((f) => f.row.items.map((i) => i.runId)),
    ),
    db.hackCycle.findMany({
      where: { frictionId: { in: ids } },
      orderBy: { createdAt: "desc" },
      take: 500,
      select: { id: true, frictionId: true, state: true, reason: true, improvementId: true, createdAt: true, endedAt: true },
    }),
    db.changeRequest.findMany({
      where: { frictionId: { in: ids } },
      orderBy: { createdAt: "desc" },
      take: 200,
      select: { id: true, frictionId: true, title: true, state: true },
    }),
    db.user.findMany({
      where: { id: { in: kept.map((f) => f.row.stateById).filter((x): x is string => !!x) } },
      select: { id: true, name: true },
    }),
  ]);
  const improvements = await db.improvement.findMany({
    where: { id: { in: cycles.map((c) => c.improvementId).filter((x): x is string => !!x) } },
    select: { id: true, name: true, version: true, state: true },
  });
  const improvementOf = new Map(improvements.map((i) => [i.id, i]));
  const nameOf = new Map(people.map((p) => [p.id, p.name]));
  return kept.map(({ row: f, signalOnly }) => ({
    id: f.id,
    kind: f.kind,
    signature: f.signature,
    agentName: f.agentName,
    teamId: f.teamId,
    title: f.title,
    tool: f.tool,
    state: f.state,
    stateReason: f.stateReason,
    stateBy: f.stateById ? (nameOf.get(f.stateById) ?? null) : null,
    stateAt: f.stateAt,
    occurrences: f.occurrences,
    runCount: f.runCount,
    firstSeenAt: f.firstSeenAt,
    lastSeenAt: f.lastSeenAt,
    /** Null: the improver may answer it; otherwise why it is only a signal. */
    signalOnly,
    items: f.items.filter((i) => seen.has(i.runId)).map((i) => ({ ...i, evidence: JSON.parse(i.evidence) as unknown[] })),
    cycles: cycles
      .filter((c) => c.frictionId === f.id)
      .slice(0, 10)
      .map((c) => ({ ...c, improvement: c.improvementId ? (improvementOf.get(c.improvementId) ?? null) : null })),
    changes: changes.filter((c) => c.frictionId === f.id).slice(0, 10),
  }));
}

/**
 * Dismiss (with a reason) or reopen a friction: an approver of its team, or an
 * admin. A dismissed friction still counts its occurrences but starts no cycle.
 */
export async function decideFriction(db: Db, actor: Actor, raw: z.input<typeof FrictionDecision>, channel: string) {
  const input = FrictionDecision.parse(raw);
  const row = await db.friction.findFirst({ where: { AND: [{ id: input.id }, scopeOf(actor)] } });
  if (!row) throw new ImprovementError("NOT_FOUND", "There is no such friction, or it belongs to a team you are not in");
  const have = roleAcross(actor, row.teamId ? [row.teamId] : [], "any");
  if (!have || !roleAtLeast(have, "approver"))
    throw new ImprovementError(
      "FORBIDDEN",
      `Deciding what friction needs needs the approver role in its team${have ? `; you are ${have}` : ""}`,
    );
  const reason = input.reason?.trim() ?? "";
  if (input.action === "dismiss" && !reason)
    throw new ImprovementError("INVALID_INPUT", "Say why it needs no improvement: the reason is kept with it");
  const from = row.state;
  const to = input.action === "dismiss" ? "dismissed" : "open";
  if (input.action === "dismiss" && from === "dismissed") throw new ImprovementError("CONFLICT", "It is dismissed already");
  if (input.action === "reopen" && from !== "dismissed")
    throw new ImprovementError("CONFLICT", `Only dismissed friction is reopened; this one is ${from}`);
  const res = await db.friction.updateMany({
    where: { id: row.id, state: from },
    data: { state: to, stateReason: reason, stateById: actor.userId, stateAt: new Date() },
  });
  if (res.count !== 1) throw new ImprovementError("CONFLICT", "It changed meanwhile; look again");
  await recordAudit(db, {
    kind: `friction.${input.action === "dismiss" ? "dismissed" : "reopened"}`,
    actorId: actor.userId,
    actorName: actor.name,
    channel,
    subject: row.title.slice(0, 200),
    fromState: from,
    toState: to,
    detail: { frictionId: row.id, agent: row.agentName, ...(reason ? { reason } : {}) },
  });
  return (await listFriction(db, actor, { limit: 1 }, row.id))[0] ?? null;
}
