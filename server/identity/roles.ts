// Roles are ranked: each role can do everything the roles below it can.
export const ROLES = ["viewer", "operator", "approver", "admin"] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

export function roleAtLeast(role: Role, required: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(required);
}

/** The higher of two roles. */
export function higherRole(a: Role, b: Role): Role {
  return ROLES.indexOf(a) >= ROLES.indexOf(b) ? a : b;
}

/**
 * The role a person has in a team (docs/people-and-teams.md#roles): the higher
 * of their own role (the least they have everywhere) and their role in that
 * team. An admin is admin in every team; a person outside a team has no role in
 * it (null). A run or request with no team is judged by the person's own role.
 */
export function roleIn(
  actor: { role: Role; teamIds: string[]; teamRoles?: Record<string, Role> },
  teamId: string | null | undefined,
): Role | null {
  if (actor.role === "admin") return "admin";
  if (!teamId) return actor.role;
  if (!actor.teamIds.includes(teamId)) return null;
  return higherRole(actor.role, actor.teamRoles?.[teamId] ?? actor.role);
}

/**
 * A person's role for something scoped to several teams (a skill, a runtime
 * tool): "each" is the least of their roles in those teams, null when they are
 * outside one of them, for what reaches into every team's runs (turning it
 * on); "any" is the best, for what only stops it. No team: their own role.
 * See docs/security.md#shared-between-teams.
 */
export function roleAcross(
  actor: { role: Role; teamIds: string[]; teamRoles?: Record<string, Role> },
  teamIds: readonly string[],
  mode: "each" | "any",
): Role | null {
  if (actor.role === "admin") return "admin";
  if (!teamIds.length) return actor.role;
  const roles = teamIds.map((t) => roleIn(actor, t));
  if (mode === "each")
    return roles.some((r) => r === null) ? null : roles.reduce<Role>((least, r) => (roleAtLeast(r!, least) ? least : r!), "admin");
  return roles.reduce<Role | null>((best, r) => (r && (!best || roleAtLeast(r, best)) ? r : best), null);
}

/** The highest role a person has in any team or on their own: what they can do somewhere. */
export function highestRole(actor: { role: Role; teamRoles?: Record<string, Role> }): Role {
  return Object.values(actor.teamRoles ?? {}).reduce<Role>((best, r) => higherRole(best, r), actor.role);
}

/**
 * Why a person may not call something that needs `required`, or null. Admin
 * means a global admin; a lesser role is enough when the person has it in
 * some team, and what the call touches is then checked against its team.
 */
export function gateRefusal(actor: { role: Role; teamRoles?: Record<string, Role> }, required: Role): string | null {
  const have = required === "admin" ? actor.role : highestRole(actor);
  if (roleAtLeast(have, required)) return null;
  return `This needs the ${required} role; you are ${have}`;
}

/**
 * The person as they act on one run: their role is their role in the run's
 * team (viewer when they only see it as its launcher outside the team), so
 * the run's terminal, desktop and controls judge them by that team's role.
 */
export function actorInTeam<A extends { role: Role; teamIds: string[]; teamRoles?: Record<string, Role> }>(
  actor: A,
  teamId: string | null,
): A {
  return { ...actor, role: roleIn(actor, teamId) ?? "viewer" };
}
