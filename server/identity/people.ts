// People, as admins manage them (docs/people-and-teams.md): create, change the role,
// disable and enable. Every change is audited with who made it, and the
// last active admin can be neither demoted nor disabled (the check runs after
// the write, inside the transaction, so two admins demoting each other at once
// cannot both win). Disabling ends the person's sessions at once.
import { recordAudit } from "@/server/audit";
import { dbDialect, type Db, type Prisma } from "@/server/db";
import { PeopleError } from "./errors";
import { MIN_PASSWORD } from "./inputs";
import { hashPassword } from "./passwords";
import { higherRole, isRole, type Role } from "./roles";
import { rolesChanged, sessionsEnded } from "./sessions";
import type { Actor } from "./types";
import { defaultTeamId } from "./users";

/** Who is making a change, and through which door ("admin" for the UI, "api", "cli"). */
export interface Acting {
  actor: Actor;
  channel: string;
}

export const MIN_PASSWORD_LENGTH = MIN_PASSWORD;

type Tx = Prisma.TransactionClient;

export const nameOf = (actor: Actor) => actor.name || actor.email;

/** An admin's change to people or teams; one that names a team (detail.teamId) is that team's row. */
export function audit(tx: Pick<Db, "auditEntry">, by: Acting, kind: string, subject: string, detail: Record<string, unknown>) {
  const teamId = typeof detail.teamId === "string" ? detail.teamId : null;
  return recordAudit(tx, { kind, actorId: by.actor.userId, actorName: nameOf(by.actor), channel: by.channel, subject, teamId, detail });
}

export function requireAdmin(actor: Actor, what: string) {
  if (actor.role !== "admin") throw new PeopleError("FORBIDDEN", `${what} needs the admin role; you are ${actor.role}`);
}

export function checkPassword(password: string) {
  if (password.length < MIN_PASSWORD_LENGTH)
    throw new PeopleError("INVALID_INPUT", `The password needs at least ${MIN_PASSWORD_LENGTH} characters`);
}

export const normalEmail = (email: string) => email.trim().toLowerCase();

/**
 * Before a change that may leave no active admin: a second such change waits
 * here until this one commits, then counts what it left. SQLite runs one
 * writer at a time already; PostgreSQL (read committed) would let two of them
 * each count the admin the other is changing, and both win. In id order, so
 * two of them never deadlock.
 */
async function lockActiveAdmins(db: Db, tx: Tx) {
  if (dbDialect(db) !== "postgres") return;
  await tx.$queryRawUnsafe(`SELECT id FROM "User" WHERE role = 'admin' AND "disabledAt" IS NULL ORDER BY id FOR UPDATE`);
}

/** Throws (rolling the transaction back) when the change left no active admin. */
async function keepAnAdmin(tx: Tx, who: string, change: string) {
  const admins = await tx.user.count({ where: { role: "admin", disabledAt: null } });
  if (admins === 0)
    throw new PeopleError("CONFLICT", `${who} is the last active admin and cannot be ${change}; make someone else an admin first`);
}

export interface UserView {
  id: string;
  email: string;
  name: string;
  role: Role;
  status: "active" | "disabled";
  createdAt: Date;
  lastSeenAt: Date | null;
  disabledAt: Date | null;
  teams: Array<{ id: string; name: string; role: Role; effectiveRole: Role }>;
}

export const asRole = (r: string): Role => (isRole(r) ? r : "viewer");

export async function listUsers(db: Db): Promise<UserView[]> {
  const rows = await db.user.findMany({
    select: {
      id: true,
      email: true,
      name: true,
      role: true,
      createdAt: true,
      lastSeenAt: true,
      disabledAt: true,
      memberships: { select: { role: true, team: { select: { id: true, name: true } } }, orderBy: { team: { name: "asc" } } },
    },
    orderBy: { createdAt: "asc" },
  });
  return rows.map((u) => {
    const own = asRole(u.role);
    return {
      id: u.id,
      email: u.email,
      name: u.name,
      role: own,
      status: u.disabledAt ? "disabled" : "active",
      createdAt: u.createdAt,
      lastSeenAt: u.lastSeenAt,
      disabledAt: u.disabledAt,
      teams: u.memberships.map((m) => ({
        id: m.team.id,
        name: m.team.name,
        role: asRole(m.role),
        effectiveRole: own === "admin" ? "admin" : higherRole(own, asRole(m.role)),
      })),
    };
  });
}

export interface NewUser {
  email: string;
  name?: string;
  password: string;
  role: Role;
  /** The team they join (default: the default team, when it is open). */
  teamId?: string;
  teamRole?: Role;
}

/** The team a new person joins: the one named, which must exist and be open, or the default team when it is. */
export async function teamToJoin(
  db: Pick<Db, "team" | "setting">,
  teamId: string | undefined,
): Promise<{ id: string; name: string } | null> {
  if (teamId) {
    const team = await db.team.findUnique({ where: { id: teamId }, select: { id: true, name: true, archivedAt: true } });
    if (!team) throw new PeopleError("NOT_FOUND", "That team does not exist");
    if (team.archivedAt) throw new PeopleError("CONFLICT", `The team ${team.name} is archived and takes no new members`);
    return { id: team.id, name: team.name };
  }
  // The default team by its kept id, not by whichever team is called "default" now.
  const id = await defaultTeamId(db, { create: false });
  const fallback = id ? await db.team.findUnique({ where: { id }, select: { id: true, name: true, archivedAt: true } }) : null;
  return fallback && !fallback.archivedAt ? { id: fallback.id, name: fallback.name } : null;
}

/** Creates a person with a password (admins). */
export async function addUser(db: Db, by: Acting, input: NewUser): Promise<{ id: string }> {
  requireAdmin(by.actor, "Adding people");
  const email = normalEmail(input.email);
  checkPassword(input.password);
  if (await db.user.findUnique({ where: { email }, select: { id: true } }))
    throw new PeopleError("CONFLICT", `A user with the email ${email} already exists`);
  const team = await teamToJoin(db, input.teamId);
  const teamRole = input.teamRole ?? "viewer";
  const passwordHash = await hashPassword(input.password);
  return db.$transaction(async (tx) => {
    const user = await tx.user.create({
      data: {
        email,
        name: input.name?.trim() || email.split("@")[0],
        passwordHash,
        role: input.role,
        ...(team ? { memberships: { create: [{ teamId: team.id, role: teamRole }] } } : {}),
      },
      select: { id: true },
    });
    await audit(tx, by, "user.created", email, {
      userId: user.id,
      after: { role: input.role, team: team ? { id: team.id, name: team.name, role: teamRole } : null },
    });
    return { id: user.id };
  });
}

async function findUser(db: Pick<Db, "user">, id: string) {
  const user = await db.user.findUnique({ where: { id }, select: { id: true, email: true, name: true, role: true, disabledAt: true } });
  if (!user) throw new PeopleError("NOT_FOUND", "No such user");
  return user;
}

export async function setUserRole(db: Db, by: Acting, id: string, role: Role): Promise<void> {
  requireAdmin(by.actor, "Changing roles");
  if (id === by.actor.userId && role !== "admin") throw new PeopleError("INVALID_INPUT", "You cannot remove your own admin role");
  const user = await findUser(db, id);
  if (user.role === role) return;
  await db.$transaction(async (tx) => {
    if (user.role === "admin" && !user.disabledAt) await lockActiveAdmins(db, tx);
    await tx.user.update({ where: { id }, data: { role }, select: { id: true } });
    if (user.role === "admin" && !user.disabledAt) await keepAnAdmin(tx, user.email, "made " + role);
    await audit(tx, by, "user.role_changed", user.email, { userId: id, before: { role: user.role }, after: { role } });
  });
  rolesChanged(id);
}

/** Changes a person's display name (REST PATCH /users/:id). */
export async function renameUser(db: Db, by: Acting, id: string, name: string): Promise<void> {
  requireAdmin(by.actor, "Renaming people");
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 100) throw new PeopleError("INVALID_INPUT", "A name has 1 to 100 characters");
  const user = await findUser(db, id);
  if (user.name === trimmed) return;
  await db.$transaction(async (tx) => {
    await tx.user.update({ where: { id }, data: { name: trimmed }, select: { id: true } });
    await audit(tx, by, "user.renamed", user.email, { userId: id, before: { name: user.name }, after: { name: trimmed } });
  });
}

/**
 * Disables a person: they cannot log in, their sessions and API tokens are
 * refused from the next request, and their open sockets are closed now.
 */
export async function disableUser(db: Db, by: Acting, id: string): Promise<void> {
  requireAdmin(by.actor, "Disabling people");
  if (id === by.actor.userId) throw new PeopleError("INVALID_INPUT", "You cannot disable yourself");
  const user = await findUser(db, id);
  if (user.disabledAt) return;
  await db.$transaction(async (tx) => {
    if (user.role === "admin") await lockActiveAdmins(db, tx);
    await tx.user.update({ where: { id }, data: { disabledAt: new Date(), sessionVersion: { increment: 1 } }, select: { id: true } });
    if (user.role === "admin") await keepAnAdmin(tx, user.email, "disabled");
    // A reset link made before must not outlive the disabling: enabling them again does not bring it back.
    await tx.invitation.updateMany({
      where: { kind: "reset", userId: id, consumedAt: null, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    await audit(tx, by, "user.disabled", user.email, { userId: id, before: { status: "active" }, after: { status: "disabled" } });
  });
  sessionsEnded(id);
}

export async function enableUser(db: Db, by: Acting, id: string): Promise<void> {
  requireAdmin(by.actor, "Enabling people");
  const user = await findUser(db, id);
  if (!user.disabledAt) return;
  await db.$transaction(async (tx) => {
    await tx.user.update({ where: { id }, data: { disabledAt: null }, select: { id: true } });
    await audit(tx, by, "user.enabled", user.email, { userId: id, before: { status: "disabled" }, after: { status: "active" } });
  });
}
