// Who hears of a human request outside the Inbox (docs/channels.md#escalations):
// at level 1 the people who may decide it; when it escalates to level 2, the
// team's level-2 approvers (Settings › Channels › Routing; everyone who may
// decide it when the list is empty); when level 2 runs out too, the on-call
// admins (every admin when that list is empty). Slack and e-mail both ask
// here, and both record where each notice went in the audit log.
import { z } from "zod";
import { recordAudit } from "@/server/audit";
import type { Db } from "@/server/db";
import { isRole, roleAtLeast, roleIn, type Actor, type Role } from "@/server/identity";
import { ChannelError, parseChannelInput, requireChannelAdmin } from "../errors";

export const ROUTING_SETTING = "channels.routing";

export const RoutingInput = z
  .object({
    /** Team id → the user ids told when a request of that team escalates to level 2. */
    level2: z.record(z.string().min(1).max(64), z.array(z.string().min(1).max(64)).max(100)).default({}),
    /** The user ids told when level 2 runs out too. */
    onCall: z.array(z.string().min(1).max(64)).max(100).default([]),
  })
  .strict();
export type Routing = z.output<typeof RoutingInput>;

export interface Recipient {
  userId: string;
  name: string;
  email: string;
  /** none | decide | escalated: what this person asked to get by e-mail. */
  mailRequests: string;
}

export interface RequestForRouting {
  id: string;
  runId: string;
  teamId: string | null;
  requiredRole: string;
  requestedById?: string | null;
  /** The request may not be decided by the person who launched its run. */
  notByRequester?: boolean;
}

export async function readRouting(db: Db): Promise<Routing> {
  const row = await db.setting.findUnique({ where: { key: ROUTING_SETTING } });
  if (!row) return { level2: {}, onCall: [] };
  try {
    const parsed = RoutingInput.safeParse(JSON.parse(row.value));
    return parsed.success ? parsed.data : { level2: {}, onCall: [] };
  } catch {
    return { level2: {}, onCall: [] };
  }
}

export async function saveRouting(db: Db, actor: Actor, input: unknown): Promise<Routing> {
  requireChannelAdmin(actor, "Changing who hears of escalations");
  const routing = parseChannelInput(RoutingInput, input);
  const ids = [...new Set([...routing.onCall, ...Object.values(routing.level2).flat()])];
  const known = new Set((await db.user.findMany({ where: { id: { in: ids } }, select: { id: true } })).map((u) => u.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length)
    throw new ChannelError("INVALID_INPUT", `No person has the id ${unknown.join(", ")}`, [
      { field: "onCall", message: `no such person: ${unknown.join(", ")}` },
    ]);
  const value = JSON.stringify(routing);
  await db.setting.upsert({
    where: { key: ROUTING_SETTING },
    create: { key: ROUTING_SETTING, value, updatedById: actor.userId },
    update: { value, updatedById: actor.userId },
  });
  await recordAudit(db, {
    kind: "channels.routing",
    actorId: actor.userId,
    actorName: actor.name,
    channel: "admin",
    subject: "escalation routing",
    detail: routing,
  });
  return routing;
}

/** The active people told of a request at this level (1: who may decide; 2: level-2 approvers; 3: on-call admins). */
export async function recipientsFor(db: Db, request: RequestForRouting, level: number): Promise<Recipient[]> {
  const users = await db.user.findMany({
    where: { disabledAt: null },
    select: { id: true, name: true, email: true, role: true, mailRequests: true, memberships: { select: { teamId: true, role: true } } },
  });
  const required = (isRole(request.requiredRole) ? request.requiredRole : "approver") as Role;
  const mayDecide = (u: (typeof users)[number]) => {
    if (!isRole(u.role)) return false;
    const teamRoles: Record<string, Role> = {};
    for (const m of u.memberships) if (isRole(m.role)) teamRoles[m.teamId] = m.role;
    const role = roleIn({ role: u.role, teamIds: u.memberships.map((m) => m.teamId), teamRoles }, request.teamId);
    if (!role || !roleAtLeast(role, required)) return false;
    return !(request.notByRequester && request.requestedById === u.id);
  };
  const toRecipient = (u: (typeof users)[number]): Recipient => ({
    userId: u.id,
    name: u.name,
    email: u.email,
    mailRequests: u.mailRequests,
  });
  if (level >= 3) {
    const { onCall } = await readRouting(db);
    // The list was made earlier: only those on it who may decide this request now hear of it, never another
    // team's people or an admin since demoted (docs/security.md#channels-that-reach-in-and-out).
    const listed = users.filter((u) => onCall.includes(u.id) && mayDecide(u));
    const chosen = listed.length ? listed : users.filter((u) => u.role === "admin");
    return chosen.map(toRecipient);
  }
  const deciders = users.filter(mayDecide);
  if (level === 2 && request.teamId) {
    const { level2 } = await readRouting(db);
    const listed = level2[request.teamId] ?? [];
    if (listed.length) return deciders.filter((u) => listed.includes(u.id)).map(toRecipient);
  }
  return deciders.map(toRecipient);
}

/** The audit row saying where a notice about a request went (or why it could not go). */
export async function recordNotified(
  db: Db,
  request: { id: string; runId: string },
  channel: "slack" | "email",
  detail: { level: number; to: string[]; failed?: Array<{ to: string; error: string }> },
): Promise<void> {
  await recordAudit(db, {
    kind: "request.notified",
    actorId: "system",
    actorName: "Rein",
    channel,
    runId: request.runId,
    requestId: request.id,
    subject: `level ${detail.level}`,
    detail,
  });
}
