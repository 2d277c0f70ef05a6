// Invitation and password-reset links
// (docs/people-and-teams.md#invitations-and-reset-links). The token is 32
// random bytes shown once in the link; only its SHA-256 hash is stored.
// Consuming is one conditional update (unconsumed, unrevoked, unexpired), so a
// link works once even when two people press the button together. An invite
// creates the person with the invitation's role and team; a reset sets the
// password and ends every session of that person.
import crypto from "node:crypto";
import type { Db } from "@/server/db";
import { PeopleError } from "./errors";
import { DEFAULT_SCHEDULE, LoginThrottle, LoginThrottledError } from "./login-throttle";
import { hashPassword } from "./passwords";
import { asRole, audit, checkPassword, normalEmail, requireAdmin, teamToJoin, type Acting } from "./people";
import { higherRole, isRole, type Role } from "./roles";
import { recordAudit } from "@/server/audit";
import { sessionsEnded } from "./sessions";
import { hashToken } from "./tokens";

export const INVITE_LIFETIME_MS = 7 * 86_400_000;
export const RESET_LIFETIME_MS = 86_400_000;

export type LinkKind = "invite" | "reset";
export type InvitationState = "pending" | "expired" | "used" | "revoked";

const PATHS: Record<LinkKind, string> = { invite: "/invite", reset: "/reset" };

function newToken(): { token: string; tokenHash: string } {
  const token = crypto.randomBytes(32).toString("base64url");
  return { token, tokenHash: hashToken(token) };
}

const linkUrl = (base: string, kind: LinkKind, token: string) => `${base.replace(/\/+$/, "")}${PATHS[kind]}?token=${token}`;

function stateOf(row: { consumedAt: Date | null; revokedAt: Date | null; expiresAt: Date }, now = new Date()): InvitationState {
  if (row.revokedAt) return "revoked";
  if (row.consumedAt) return "used";
  if (row.expiresAt.getTime() <= now.getTime()) return "expired";
  return "pending";
}

/**
 * Slows down guessing at links from one address (they are 256-bit, so this
 * only keeps the log quiet and the database idle): after 20 unknown links an
 * address waits, the wait doubling with each further one.
 */
export class LinkThrottle {
  private readonly throttle: LoginThrottle;

  constructor(schedule: Partial<typeof DEFAULT_SCHEDULE> = {}, now: () => number = Date.now) {
    this.throttle = new LoginThrottle({ ...DEFAULT_SCHEDULE, accountFreeFailures: Number.MAX_SAFE_INTEGER, ...schedule }, now);
  }

  check(address: string | null): void {
    try {
      this.throttle.check("link", address);
    } catch (err) {
      if (err instanceof LoginThrottledError)
        throw new PeopleError(
          "THROTTLED",
          `Too many invalid links from your address; ${err.message.replace(/^Too many failed attempts; /, "")}`,
        );
      throw err;
    }
  }

  failed(address: string | null): void {
    this.throttle.failed("link", address);
  }
}

export interface LinkGuard {
  address?: string | null;
  throttle?: LinkThrottle;
}

const LINK_COLUMNS = {
  id: true,
  kind: true,
  email: true,
  userId: true,
  role: true,
  teamId: true,
  teamRole: true,
  expiresAt: true,
  createdById: true,
  consumedAt: true,
  revokedAt: true,
} as const;

const REFUSALS: Record<Exclude<InvitationState, "pending">, PeopleError> = {
  used: new PeopleError("LINK_USED", "This link has already been used; each link works once"),
  expired: new PeopleError("LINK_EXPIRED", "This link has expired; ask an admin for a new one"),
  revoked: new PeopleError("LINK_REVOKED", "This link was withdrawn (revoked or replaced by a newer one); ask an admin for a new one"),
};

function refusal(state: Exclude<InvitationState, "pending">): PeopleError {
  const r = REFUSALS[state];
  return new PeopleError(r.reason, r.message);
}

/** The link's row if it can still be used; a distinct, clear refusal otherwise. */
async function usableLink(db: Db, token: string, guard: LinkGuard) {
  guard.throttle?.check(guard.address ?? null);
  const row =
    typeof token === "string" && token.length <= 200
      ? await db.invitation.findUnique({ where: { tokenHash: hashToken(token) }, select: LINK_COLUMNS })
      : null;
  if (!row || (row.kind !== "invite" && row.kind !== "reset")) {
    guard.throttle?.failed(guard.address ?? null);
    throw new PeopleError(
      "LINK_UNKNOWN",
      "This link is not valid: it may have been mistyped or cut short. Open the link exactly as you received it",
    );
  }
  const state = stateOf(row);
  if (state !== "pending") throw refusal(state);
  // A link carries its maker's authority: once they are no longer an active
  // admin (disabled, demoted, deleted), what they made before is withdrawn, so
  // nobody keeps a way back in (an admin account, another admin's password).
  const maker = await db.user.findUnique({ where: { id: row.createdById }, select: { role: true, disabledAt: true } });
  if (!maker || maker.role !== "admin" || maker.disabledAt) throw refusal("revoked");
  return { ...row, kind: row.kind as LinkKind };
}

export interface CreatedLink {
  id: string;
  url: string;
  expiresAt: Date;
}

export interface NewInvitation {
  email: string;
  name?: string;
  role: Role;
  teamId?: string;
  teamRole?: Role;
}

/** Invites a person (admins): a link valid 7 days, shown once. A newer invitation for the same e-mail replaces the older one. */
export async function createInvitation(db: Db, by: Acting, input: NewInvitation, base: string): Promise<CreatedLink> {
  requireAdmin(by.actor, "Inviting people");
  const email = normalEmail(input.email);
  if (await db.user.findUnique({ where: { email }, select: { id: true } }))
    throw new PeopleError("CONFLICT", `A user with the email ${email} already exists`);
  const team = input.teamId ? await teamToJoin(db, input.teamId) : null;
  const { token, tokenHash } = newToken();
  const now = new Date();
  const expiresAt = new Date(now.getTime() + INVITE_LIFETIME_MS);
  const teamRole = team ? (input.teamRole ?? "viewer") : null;
  const id = await db.$transaction(async (tx) => {
    const older = await tx.invitation.findMany({
      where: { kind: "invite", email, consumedAt: null, revokedAt: null, expiresAt: { gt: now } },
      select: { id: true },
    });
    if (older.length) {
      await tx.invitation.updateMany({ where: { id: { in: older.map((o) => o.id) } }, data: { revokedAt: now } });
      for (const o of older)
        await audit(tx, by, "invitation.revoked", email, { invitationId: o.id, reason: "replaced by a newer invitation" });
    }
    const row = await tx.invitation.create({
      data: {
        tokenHash,
        kind: "invite",
        email,
        role: input.role,
        teamId: team?.id ?? null,
        teamRole,
        expiresAt,
        createdById: by.actor.userId,
      },
      select: { id: true },
    });
    // The invitation has no column for the name the admin typed; the audit entry keeps it for the invite page.
    await audit(tx, by, "invitation.created", email, {
      ...(team ? { teamId: team.id } : {}),
      invitationId: row.id,
      name: input.name?.trim() || null,
      after: { role: input.role, team: team ? { id: team.id, name: team.name, role: teamRole } : null, expiresAt },
    });
    return row.id;
  });
  return { id, url: linkUrl(base, "invite", token), expiresAt };
}

/** A single-use password-reset link for a person (admins), valid 24 hours; older pending ones are withdrawn. */
export async function createResetLink(db: Db, by: Acting, userId: string, base: string): Promise<CreatedLink> {
  requireAdmin(by.actor, "Password reset links");
  const user = await db.user.findUnique({ where: { id: userId }, select: { id: true, email: true, disabledAt: true } });
  if (!user) throw new PeopleError("NOT_FOUND", "No such user");
  if (user.disabledAt) throw new PeopleError("CONFLICT", `${user.email} is disabled; enable them before sending a reset link`);
  const { token, tokenHash } = newToken();
  const now = new Date();
  const expiresAt = new Date(now.getTime() + RESET_LIFETIME_MS);
  const id = await db.$transaction(async (tx) => {
    const replaced = await tx.invitation.updateMany({
      where: { kind: "reset", userId, consumedAt: null, revokedAt: null },
      data: { revokedAt: now },
    });
    const row = await tx.invitation.create({
      data: { tokenHash, kind: "reset", email: user.email, userId, role: "viewer", expiresAt, createdById: by.actor.userId },
      select: { id: true },
    });
    await audit(tx, by, "user.password_reset_link", user.email, { userId, invitationId: row.id, expiresAt, replaced: replaced.count });
    return row.id;
  });
  return { id, url: linkUrl(base, "reset", token), expiresAt };
}

export interface InvitationView {
  id: string;
  email: string;
  role: Role;
  team: { id: string; name: string } | null;
  teamRole: Role | null;
  createdAt: Date;
  expiresAt: Date;
  createdBy: { id: string; name: string } | null;
  state: InvitationState;
}

/** Invitations, newest first (reset links are not listed). */
export async function listInvitations(db: Db): Promise<InvitationView[]> {
  const rows = await db.invitation.findMany({
    where: { kind: "invite" },
    select: { ...LINK_COLUMNS, createdAt: true },
    orderBy: { createdAt: "desc" },
    take: 500,
  });
  const teamIds = [...new Set(rows.flatMap((r) => (r.teamId ? [r.teamId] : [])))];
  const userIds = [...new Set(rows.map((r) => r.createdById))];
  const [teams, users] = await Promise.all([
    db.team.findMany({ where: { id: { in: teamIds } }, select: { id: true, name: true } }),
    db.user.findMany({ where: { id: { in: userIds } }, select: { id: true, name: true, email: true } }),
  ]);
  const teamById = new Map(teams.map((t) => [t.id, t]));
  const userById = new Map(users.map((u) => [u.id, { id: u.id, name: u.name || u.email }]));
  const now = new Date();
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    role: asRole(r.role),
    team: r.teamId ? (teamById.get(r.teamId) ?? null) : null,
    teamRole: r.teamRole && isRole(r.teamRole) ? r.teamRole : null,
    createdAt: r.createdAt,
    expiresAt: r.expiresAt,
    createdBy: userById.get(r.createdById) ?? null,
    state: stateOf(r, now),
  }));
}

/** Withdraws an invitation or reset link that has not been used (admins). */
export async function revokeInvitation(db: Db, by: Acting, id: string): Promise<void> {
  requireAdmin(by.actor, "Revoking invitations");
  const row = await db.invitation.findUnique({ where: { id }, select: LINK_COLUMNS });
  if (!row) throw new PeopleError("NOT_FOUND", "No such invitation");
  await db.$transaction(async (tx) => {
    const res = await tx.invitation.updateMany({ where: { id, consumedAt: null, revokedAt: null }, data: { revokedAt: new Date() } });
    if (res.count !== 1)
      throw new PeopleError("CONFLICT", row.consumedAt ? "This invitation has already been used" : "This invitation was already revoked");
    await audit(tx, by, "invitation.revoked", row.email, {
      invitationId: id,
      kind: row.kind,
      before: { state: stateOf(row) },
      after: { state: "revoked" },
    });
  });
}

/** The name the admin typed when inviting, kept in the invitation's audit entry. */
async function invitedName(db: Db, invitationId: string, email: string): Promise<string | null> {
  const entry = await db.auditEntry.findFirst({
    where: { kind: "invitation.created", subject: email, detail: { contains: `"invitationId":"${invitationId}"` } },
    select: { detail: true },
  });
  try {
    const name = entry ? (JSON.parse(entry.detail) as { name?: unknown }).name : null;
    return typeof name === "string" && name ? name : null;
  } catch {
    return null;
  }
}

export interface LinkView {
  kind: LinkKind;
  email: string;
  name: string | null;
  role: Role;
  teamName: string | null;
  /** The role the person will have in that team: the higher of the team's and their own. */
  teamRole: Role | null;
  invitedBy: string | null;
  expiresAt: Date;
}

/** What a link is for, without using it (the public invite and reset pages). */
export async function inspectLink(db: Db, token: string, guard: LinkGuard = {}): Promise<LinkView> {
  const link = await usableLink(db, token, guard);
  const [team, creator, user] = await Promise.all([
    link.teamId ? db.team.findUnique({ where: { id: link.teamId }, select: { name: true } }) : null,
    db.user.findUnique({ where: { id: link.createdById }, select: { name: true, email: true } }),
    link.userId ? db.user.findUnique({ where: { id: link.userId }, select: { name: true, role: true, disabledAt: true } }) : null,
  ]);
  if (link.kind === "reset" && (!user || user.disabledAt))
    throw new PeopleError("CONFLICT", "This account is disabled or no longer exists; ask an admin");
  const role = link.kind === "reset" ? asRole(user?.role ?? "viewer") : asRole(link.role);
  return {
    kind: link.kind,
    email: link.email,
    name: link.kind === "reset" ? (user?.name ?? null) : await invitedName(db, link.id, link.email),
    role,
    teamName: team?.name ?? null,
    teamRole: team && link.kind === "invite" ? higherRole(role, asRole(link.teamRole ?? "viewer")) : null,
    invitedBy: creator ? creator.name || creator.email : null,
    expiresAt: link.expiresAt,
  };
}

/**
 * Uses a link, once. An invite creates the person (the invitation's e-mail,
 * role and team; the name given, else the one the admin typed); a reset sets
 * the password of the person the link was made for and ends their sessions.
 */
export async function acceptLink(
  db: Db,
  input: { token: string; name?: string; password: string },
  guard: LinkGuard = {},
): Promise<{ email: string }> {
  checkPassword(input.password);
  const link = await usableLink(db, input.token, guard);
  const passwordHash = await hashPassword(input.password);
  const name = input.name?.trim() || (link.kind === "invite" ? await invitedName(db, link.id, link.email) : null);
  if (link.kind === "invite" && (await db.user.findUnique({ where: { email: link.email }, select: { id: true } }))) {
    throw new PeopleError("CONFLICT", `An account for ${link.email} already exists; log in instead`);
  }
  const userId = await db.$transaction(async (tx) => {
    // First, so the transaction starts by taking the write lock: of two accepts, exactly one consumes.
    const now = new Date();
    const consumed = await tx.invitation.updateMany({
      where: { id: link.id, consumedAt: null, revokedAt: null, expiresAt: { gt: now } },
      data: { consumedAt: now },
    });
    if (consumed.count !== 1) {
      const again = await tx.invitation.findUnique({
        where: { id: link.id },
        select: { consumedAt: true, revokedAt: true, expiresAt: true },
      });
      const state = again ? stateOf(again, now) : "revoked";
      throw refusal(state === "pending" ? "used" : state);
    }
    if (link.kind === "reset") {
      const updated = await tx.user.updateMany({
        where: { id: link.userId ?? "", email: link.email, disabledAt: null },
        data: { passwordHash, sessionVersion: { increment: 1 } },
      });
      if (updated.count !== 1) throw new PeopleError("CONFLICT", "This account is disabled or no longer exists; ask an admin");
      await recordAudit(tx, {
        kind: "user.password_reset",
        actorId: link.userId,
        actorName: link.email,
        channel: "link",
        subject: link.email,
        detail: { userId: link.userId, invitationId: link.id },
      });
      return link.userId!;
    }
    let membership: { teamId: string; role: string } | null = null;
    if (link.teamId) {
      const team = await tx.team.findUnique({ where: { id: link.teamId }, select: { name: true, archivedAt: true } });
      if (team?.archivedAt)
        throw new PeopleError("CONFLICT", `The team ${team.name} was archived after you were invited; ask an admin for a new invitation`);
      if (team) membership = { teamId: link.teamId, role: link.teamRole && isRole(link.teamRole) ? link.teamRole : "viewer" };
    }
    const user = await tx.user.create({
      data: {
        email: link.email,
        name: name || link.email.split("@")[0],
        passwordHash,
        role: asRole(link.role),
        ...(membership ? { memberships: { create: [membership] } } : {}),
      },
      select: { id: true, name: true },
    });
    await recordAudit(tx, {
      kind: "invitation.accepted",
      actorId: user.id,
      actorName: user.name,
      channel: "link",
      subject: link.email,
      detail: {
        invitationId: link.id,
        userId: user.id,
        after: { role: link.role, teamId: membership?.teamId ?? null, teamRole: membership?.role ?? null },
      },
    });
    return null;
  });
  if (userId) sessionsEnded(userId);
  return { email: link.email };
}
