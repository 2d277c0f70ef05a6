// Teams (docs/people-and-teams.md#teams): teams scope runs, budgets and
// policies. Admins create, rename and archive them; a team's own admins (roleIn
// === "admin") rename it and manage its members. People outside a team do not
// learn it exists (NOT_FOUND, like another team's run). An archived team keeps
// its history and takes no new members.
import type { Db } from "@/server/db";
import { getBudgetSettings } from "@/server/limits";
import { teamRuleCounts } from "@/server/policy";
import { PeopleError } from "./errors";
import { asRole, audit, normalEmail, requireAdmin, type Acting } from "./people";
import { higherRole, roleIn, type Role } from "./roles";
import { rolesChanged } from "./sessions";
import type { Actor } from "./types";

/** Letters, digits, spaces, - _ . ; 1 to 64 of them. */
const TEAM_NAME = /^[\p{L}\p{N} ._-]{1,64}$/u;

// The kernel's ACTIVE_STATES (the kernel depends on identity, not the other way round).
const ACTIVE_STATES = ["queued", "running", "paused", "waiting_human"];

export function checkTeamName(raw: string): string {
  const name = raw.trim();
  if (!name) throw new PeopleError("INVALID_INPUT", "A team needs a name");
  if (name.length > 64) throw new PeopleError("INVALID_INPUT", "A team name has at most 64 characters");
  if (!TEAM_NAME.test(name)) throw new PeopleError("INVALID_INPUT", "A team name has only letters, digits, spaces and - _ .");
  return name;
}

/** Another team already has this name, in any case (the database's own check is case-sensitive). */
async function nameTaken(db: Pick<Db, "team">, name: string, except?: string): Promise<string | null> {
  const lower = name.toLowerCase();
  const teams = await db.team.findMany({ select: { id: true, name: true } });
  return teams.find((t) => t.id !== except && t.name.toLowerCase() === lower)?.name ?? null;
}

/** Alphabetical in any case (SQLite orders capitals first). */
const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name, "en", { sensitivity: "base" });

const isUniqueConflict = (err: unknown) => typeof err === "object" && err !== null && (err as { code?: unknown }).code === "P2002";

/** The team, when `actor` may see it (members and admins); NOT_FOUND otherwise. */
async function visibleTeam(db: Pick<Db, "team">, actor: Actor, id: string) {
  const team = await db.team.findUnique({ where: { id }, select: { id: true, name: true, archivedAt: true, budgetUsd: true } });
  if (!team || roleIn(actor, team.id) === null) throw new PeopleError("NOT_FOUND", "No such team");
  return team;
}

/** The team, when `actor` may manage it: an admin, or an admin of that team. */
async function managedTeam(db: Pick<Db, "team">, actor: Actor, id: string) {
  const team = await visibleTeam(db, actor, id);
  const role = roleIn(actor, team.id);
  if (role !== "admin") throw new PeopleError("FORBIDDEN", `Managing the team ${team.name} needs the admin role in it; you are ${role}`);
  return team;
}

interface TeamStats {
  spentThisMonthUsd: number;
  runCount: number;
  activeRunCount: number;
}

async function statsOf(db: Db, teamIds: string[]): Promise<Map<string, TeamStats>> {
  const [budgets, runs] = await Promise.all([
    getBudgetSettings(db, { teamIds }),
    db.run.groupBy({ by: ["teamId", "status"], where: { teamId: { in: teamIds } }, _count: { _all: true } }),
  ]);
  const stats = new Map<string, TeamStats>(teamIds.map((id) => [id, { spentThisMonthUsd: 0, runCount: 0, activeRunCount: 0 }]));
  for (const t of budgets.teams) stats.get(t.id)!.spentThisMonthUsd = t.spentThisMonthUsd;
  for (const r of runs) {
    const s = r.teamId ? stats.get(r.teamId) : undefined;
    if (!s) continue;
    s.runCount += r._count._all;
    if (ACTIVE_STATES.includes(r.status)) s.activeRunCount += r._count._all;
  }
  return stats;
}

export interface TeamListItem {
  id: string;
  name: string;
  archivedAt: Date | null;
  memberCount: number;
  myRole: Role | null;
  budgetUsd: number | null;
  spentThisMonthUsd: number;
  runCount: number;
  activeRunCount: number;
  /** Rules of the policy in force that name this team (the policy scopes rules by team name). */
  policyRules: number;
}

/** Admins see every team; others the teams they belong to. */
export async function listTeams(db: Db, actor: Actor): Promise<TeamListItem[]> {
  const teams = await db.team.findMany({
    where: actor.role === "admin" ? {} : { id: { in: actor.teamIds } },
    select: { id: true, name: true, archivedAt: true, budgetUsd: true, _count: { select: { members: true } } },
    orderBy: { name: "asc" },
  });
  const [stats, rules] = await Promise.all([
    statsOf(
      db,
      teams.map((t) => t.id),
    ),
    teamRuleCounts(db),
  ]);
  return teams.sort(byName).map((t) => ({
    id: t.id,
    name: t.name,
    archivedAt: t.archivedAt,
    memberCount: t._count.members,
    myRole: roleIn(actor, t.id),
    budgetUsd: t.budgetUsd,
    ...stats.get(t.id)!,
    policyRules: rules.get(t.id) ?? 0,
  }));
}

const RECENT_RUNS = 10;

export async function getTeam(db: Db, actor: Actor, id: string) {
  const team = await visibleTeam(db, actor, id);
  const [members, recentRuns, stats] = await Promise.all([
    db.teamMember.findMany({
      where: { teamId: id },
      select: { role: true, addedAt: true, user: { select: { id: true, email: true, name: true, role: true, disabledAt: true } } },
      orderBy: { addedAt: "asc" },
    }),
    db.run.findMany({
      where: { teamId: id },
      select: { id: true, goal: true, status: true, agentName: true, createdAt: true },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: RECENT_RUNS,
    }),
    statsOf(db, [id]),
  ]);
  const myRole = roleIn(actor, id);
  const { spentThisMonthUsd, runCount } = stats.get(id)!;
  return {
    id: team.id,
    name: team.name,
    archivedAt: team.archivedAt,
    budgetUsd: team.budgetUsd,
    spentThisMonthUsd,
    runCount,
    myRole,
    canManage: myRole === "admin",
    members: members.map((m) => {
      const ownRole = asRole(m.user.role);
      return {
        userId: m.user.id,
        email: m.user.email,
        name: m.user.name,
        role: asRole(m.role),
        ownRole,
        effectiveRole: ownRole === "admin" ? ("admin" as const) : higherRole(ownRole, asRole(m.role)),
        addedAt: m.addedAt,
        disabled: m.user.disabledAt !== null,
      };
    }),
    recentRuns,
  };
}

export async function createTeam(db: Db, by: Acting, rawName: string): Promise<{ id: string }> {
  requireAdmin(by.actor, "Creating teams");
  const name = checkTeamName(rawName);
  try {
    return await db.$transaction(async (tx) => {
      const taken = await nameTaken(tx, name);
      if (taken) throw new PeopleError("CONFLICT", `There is already a team named ${taken}`);
      const team = await tx.team.create({ data: { name }, select: { id: true } });
      await audit(tx, by, "team.created", name, { teamId: team.id, after: { name } });
      return team;
    });
  } catch (err) {
    if (isUniqueConflict(err)) throw new PeopleError("CONFLICT", `There is already a team named ${name}`);
    throw err;
  }
}

export async function renameTeam(db: Db, by: Acting, id: string, rawName: string): Promise<void> {
  const team = await managedTeam(db, by.actor, id);
  const name = checkTeamName(rawName);
  if (name === team.name) return;
  try {
    await db.$transaction(async (tx) => {
      const taken = await nameTaken(tx, name, id);
      if (taken) throw new PeopleError("CONFLICT", `There is already a team named ${taken}`);
      await tx.team.update({ where: { id }, data: { name }, select: { id: true } });
      await audit(tx, by, "team.renamed", name, { teamId: id, before: { name: team.name }, after: { name } });
    });
  } catch (err) {
    if (isUniqueConflict(err)) throw new PeopleError("CONFLICT", `There is already a team named ${name}`);
    throw err;
  }
}

/** Archives (or brings back) a team: admins only. Its runs, spend and members stay. */
export async function setTeamArchived(db: Db, by: Acting, id: string, archived: boolean): Promise<void> {
  requireAdmin(by.actor, archived ? "Archiving teams" : "Unarchiving teams");
  const team = await visibleTeam(db, by.actor, id);
  if (!!team.archivedAt === archived) return;
  await db.$transaction(async (tx) => {
    await tx.team.update({ where: { id }, data: { archivedAt: archived ? new Date() : null }, select: { id: true } });
    await audit(tx, by, archived ? "team.archived" : "team.unarchived", team.name, {
      teamId: id,
      before: { archived: !archived },
      after: { archived },
    });
  });
}

export async function addTeamMember(db: Db, by: Acting, input: { teamId: string; email: string; role: Role }): Promise<void> {
  const team = await managedTeam(db, by.actor, input.teamId);
  if (team.archivedAt) throw new PeopleError("CONFLICT", `The team ${team.name} is archived and takes no new members`);
  const email = normalEmail(input.email);
  const user = await db.user.findUnique({ where: { email }, select: { id: true, email: true } });
  if (!user) throw new PeopleError("NOT_FOUND", `No user has the email ${email}; invite them first`);
  try {
    await db.$transaction(async (tx) => {
      const existing = await tx.teamMember.findUnique({
        where: { teamId_userId: { teamId: team.id, userId: user.id } },
        select: { role: true },
      });
      if (existing) throw new PeopleError("CONFLICT", `${email} is already a member of ${team.name}`);
      await tx.teamMember.create({ data: { teamId: team.id, userId: user.id, role: input.role } });
      await audit(tx, by, "team.member_added", team.name, { teamId: team.id, userId: user.id, email, after: { role: input.role } });
    });
  } catch (err) {
    if (isUniqueConflict(err)) throw new PeopleError("CONFLICT", `${email} is already a member of ${team.name}`);
    throw err;
  }
  rolesChanged(user.id);
}

async function membership(db: Pick<Db, "teamMember">, teamId: string, userId: string, teamName: string) {
  const m = await db.teamMember.findUnique({
    where: { teamId_userId: { teamId, userId } },
    select: { role: true, user: { select: { email: true } } },
  });
  if (!m) throw new PeopleError("NOT_FOUND", `That person is not a member of ${teamName}`);
  return m;
}

export async function setTeamMemberRole(db: Db, by: Acting, input: { teamId: string; userId: string; role: Role }): Promise<void> {
  const team = await managedTeam(db, by.actor, input.teamId);
  const m = await membership(db, team.id, input.userId, team.name);
  if (m.role === input.role) return;
  await db.$transaction(async (tx) => {
    await tx.teamMember.update({ where: { teamId_userId: { teamId: team.id, userId: input.userId } }, data: { role: input.role } });
    await audit(tx, by, "team.member_role_changed", team.name, {
      teamId: team.id,
      userId: input.userId,
      email: m.user.email,
      before: { role: m.role },
      after: { role: input.role },
    });
  });
  rolesChanged(input.userId);
}

export async function removeTeamMember(db: Db, by: Acting, input: { teamId: string; userId: string }): Promise<void> {
  const team = await managedTeam(db, by.actor, input.teamId);
  const m = await membership(db, team.id, input.userId, team.name);
  await db.$transaction(async (tx) => {
    await tx.teamMember.delete({ where: { teamId_userId: { teamId: team.id, userId: input.userId } } });
    await audit(tx, by, "team.member_removed", team.name, {
      teamId: team.id,
      userId: input.userId,
      email: m.user.email,
      before: { role: m.role },
    });
  });
  rolesChanged(input.userId);
}

/** The teams in a person's menu: every team for an admin (admin everywhere), else their own; with the effective role. */
export async function teamsOf(db: Db, actor: Actor) {
  const teams = await db.team.findMany({
    where: actor.role === "admin" ? {} : { id: { in: actor.teamIds } },
    select: { id: true, name: true, archivedAt: true },
    orderBy: { name: "asc" },
  });
  return teams
    .sort(byName)
    .map((t) => ({ id: t.id, name: t.name, role: roleIn(actor, t.id) ?? actor.role, archived: t.archivedAt !== null }));
}

/** identity.me: who is calling, their teams with the role in each, and the team New run offers first. */
export async function describeActor(db: Db, actor: Actor) {
  const [teams, user] = await Promise.all([
    teamsOf(db, actor),
    db.user.findUnique({ where: { id: actor.userId }, select: { lastTeamId: true } }),
  ]);
  const lastTeamId = user?.lastTeamId && teams.some((t) => t.id === user.lastTeamId) ? user.lastTeamId : null;
  const { userId, email, name, role, teamIds } = actor;
  return { userId, email, name, role, teamIds, teams, lastTeamId };
}
