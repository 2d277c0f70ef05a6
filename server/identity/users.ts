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
  const ok = await verifyPassword(
    password,
    user?.passwordHash ?? "scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
  );
  return ok && user && !user.disabledAt ? user.id : null;
}

const DEFAULT_TEAM_SETTING = "identity.defaultTeamId";

/**
 * The id of the team new people join when none is named. Found by its name
 * once (a new install, or the first start after upgrading), then kept: a team
 * admin can rename their team to "default", and that must not make it the
 * team everyone joins (docs/security.md#teams-are-referenced-by-id).
 */
export async function defaultTeamId(db: Pick<Db, "team" | "setting">, opts: { create: boolean }): Promise<string | null> {
  const kept = await db.setting.findUnique({ where: { key: DEFAULT_TEAM_SETTING }, select: { value: true } });
  if (kept) {
    const id = parseId(kept.value);
    return id && (await db.team.findUnique({ where: { id }, select: { id: true } })) ? id : null;
  }
  const found = await db.team.findUnique({ where: { name: DEFAULT_TEAM }, select: { id: true } });
  const id =
    found?.id ??
    (opts.create
      ? (await db.team.upsert({ where: { name: DEFAULT_TEAM }, create: { name: DEFAULT_TEAM }, update: {}, select: { id: true } })).id
      : null);
  if (!id) return null;
  // The first to record it wins; a process starting at the same time reads what it kept.
  const row = await db.setting.upsert({
    where: { key: DEFAULT_TEAM_SETTING },
    create: { key: DEFAULT_TEAM_SETTING, value: JSON.stringify(id) },
    update: {},
    select: { value: true },
  });
  return parseId(row.value);
}

function parseId(value: string): string | null {
  try {
    const v = JSON.parse(value) as unknown;
    return typeof v === "string" && v ? v : null;
  } catch {
    return null;
  }
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
  const teamIds = input.teams
    ? await Promise.all(input.teams.map((t) => ensureTeam(db, t)))
    : [(await defaultTeamId(db, { create: true }))!];
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
export async function bootstrapAdmin(db: Db, opts: { email?: string; password?: string }): Promise<BootstrapResult | null> {
  await defaultTeamId(db, { create: true });
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
