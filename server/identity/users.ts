import type { Db } from "@/server/db";
import { generatePassword, hashPassword, verifyPassword } from "./passwords";
import { higherRole, isRole, type Role } from "./roles";
import type { Actor } from "./types";

export const DEFAULT_TEAM = "default";

export interface LoadActorOptions {
  /** A session's version (its "sv" claim): the person is refused unless it is their current one. */
  sessionVersion?: number;
  /** An authenticated request: note User.lastSeenAt, at most once a minute. */
  seen?: boolean;
}

const SEEN_EVERY_MS = 60_000;

export async function loadActor(db: Db, userId: string, opts: LoadActorOptions = {}): Promise<Actor | null> {
  const user = await db.user.findUnique({
    where: { id: userId },
    select: {
      id: true,
      email: true,
      name: true,
      role: true,
      disabledAt: true,
      sessionVersion: true,
      lastSeenAt: true,
      memberships: { select: { teamId: true, role: true } },
    },
  });
  if (!user || user.disabledAt || !isRole(user.role)) return null;
  if (opts.sessionVersion !== undefined && opts.sessionVersion !== user.sessionVersion) return null;
  if (opts.seen && (!user.lastSeenAt || Date.now() - user.lastSeenAt.getTime() > SEEN_EVERY_MS)) {
    await db.user.update({ where: { id: user.id }, data: { lastSeenAt: new Date() }, select: { id: true } });
  }
  const own = user.role;
  return {
    userId: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    via: "session",
    teamIds: user.memberships.map((m) => m.teamId),
    teamRoles: Object.fromEntries(user.memberships.map((m) => [m.teamId, isRole(m.role) ? higherRole(own, m.role) : own])),
    sessionVersion: user.sessionVersion,
  };
}

/** Checks an email and password; returns the user id or null. Same answer time either way. */
export async function verifyCredentials(db: Db, email: string, password: string): Promise<string | null> {
  const user = await db.user.findUnique({
    where: { email: email.trim().toLowerCase() },
    select: { id: true, passwordHash: true, disabledAt: true },
  });
  const ok = await verifyPassword(password, user?.passwordHash ?? "scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
  return ok && user && !user.disabledAt ? user.id : null;
}

export async function ensureTeam(db: Db, name: string): Promise<string> {
  const team = await db.team.upsert({ where: { name }, create: { name }, update: {}, select: { id: true } });
  return team.id;
}

export async function createUser(
  db: Db,
  input: { email: string; name?: string; password: string; role: Role; teams?: string[] },
): Promise<string> {
  const email = input.email.trim().toLowerCase();
  const teamIds = await Promise.all((input.teams ?? [DEFAULT_TEAM]).map((t) => ensureTeam(db, t)));
  const user = await db.user.create({
    data: {
      email,
      name: input.name ?? email.split("@")[0],
      passwordHash: await hashPassword(input.password),
      role: input.role,
      memberships: { create: teamIds.map((teamId) => ({ teamId })) },
    },
    select: { id: true },
  });
  return user.id;
}

export interface BootstrapResult {
  email: string;
  /** Set only when the password was generated now; print it once. */
  generatedPassword?: string;
  created: boolean;
}

/**
 * Makes sure there is an admin: from REIN_ADMIN_EMAIL / REIN_ADMIN_PASSWORD when
 * set, otherwise a generated password for admin@localhost, printed once.
 */
export async function bootstrapAdmin(
  db: Db,
  opts: { email?: string; password?: string },
): Promise<BootstrapResult | null> {
  await ensureTeam(db, DEFAULT_TEAM);
  if (opts.email) {
    const email = opts.email.trim().toLowerCase();
    const existing = await db.user.findUnique({ where: { email }, select: { id: true } });
    if (existing) return { email, created: false };
    const password = opts.password ?? generatePassword();
    await createUser(db, { email, name: "Admin", password, role: "admin" });
    return { email, created: true, generatedPassword: opts.password ? undefined : password };
  }
  const admins = await db.user.count({ where: { role: "admin", disabledAt: null } });
  if (admins > 0) return null;
  const password = generatePassword();
  const email = "admin@localhost";
  await createUser(db, { email, name: "Admin", password, role: "admin" });
  return { email, created: true, generatedPassword: password };
}
