// Who the signed-in user is and what their role allows (the server checks again).
import type { Role } from "@/server/identity";
import { trpc, type RouterOutputs } from "@/lib/trpc";

const RANK: Record<Role, number> = { viewer: 0, operator: 1, approver: 2, admin: 3 };

/** The roles from least to most (the server's ROLES, repeated so the browser bundle stays free of server code). */
export const ROLE_ORDER: readonly Role[] = ["viewer", "operator", "approver", "admin"];

/** What each role may do, in a few words (docs/people-and-teams.md#roles). */
export const ROLE_HINTS: Record<Role, string> = {
  viewer: "sees runs, traces and costs",
  operator: "launches and steers runs",
  approver: "also decides human requests",
  admin: "manages people, teams and settings",
};

export function roleAtLeast(role: Role | undefined | null, required: Role): boolean {
  return !!role && RANK[role] >= RANK[required];
}

export const OPERATOR_HINT = "Starting and steering runs needs the operator role";

export type Me = RouterOutputs["identity"]["me"];

/**
 * My role in a team (docs/people-and-teams.md#roles): the higher of my own role
 * and my role there; admin everywhere; null in a team I am not in. No team: my
 * own role.
 */
export function roleInTeam(me: Me | undefined, teamId: string | null | undefined): Role | null {
  if (!me) return null;
  if (me.role === "admin") return "admin";
  if (!teamId) return me.role;
  return me.teams.find((t) => t.id === teamId)?.role ?? null;
}

/** The best role I have anywhere: what decides whether a page offers an action at all. */
export function bestRole(me: Me | undefined): Role | undefined {
  if (!me) return undefined;
  return me.teams.reduce<Role>((best, t) => (RANK[t.role] > RANK[best] ? t.role : best), me.role);
}

/** Teams I may launch runs in (operator or more, not archived): the one I used last first, then those I am a member of (an admin sees every team). */
export function launchTeams(me: Me | undefined): Me["teams"] {
  if (!me) return [];
  const usable = me.teams.filter((t) => !t.archived && roleAtLeast(t.role, "operator"));
  const rank = (t: Me["teams"][number]) => (t.id === me.lastTeamId ? 0 : me.teamIds.includes(t.id) ? 1 : 2);
  return [...usable].sort((a, b) => rank(a) - rank(b));
}

export function useMe() {
  const me = trpc.identity.me.useQuery(undefined, { staleTime: 60_000 });
  return {
    me: me.data,
    /** The teams the person belongs to, with their effective role in each (admins: every team). */
    teams: me.data?.teams ?? [],
    isLoading: me.isLoading,
    canOperate: roleAtLeast(bestRole(me.data), "operator"),
  };
}

/** "a viewer", "an operator": how a role reads in a sentence. */
export function aRole(role: Role | null | undefined): string {
  if (!role) return "not in this team";
  return role === "viewer" ? "a viewer" : `an ${role}`;
}

/**
 * What I may do on something of one team (a run, a request): my role there,
 * so a person who is an approver in one team and a viewer in another sees
 * each page with the right buttons.
 */
export function useRoleIn(teamId: string | null | undefined) {
  const { me, isLoading } = useMe();
  const role = roleInTeam(me, teamId);
  return {
    me,
    isLoading,
    role,
    canOperate: roleAtLeast(role, "operator"),
    /** "Starting and steering runs needs the operator role; you are a viewer in this team". */
    operatorHint: me ? `${OPERATOR_HINT}; you are ${aRole(role)}${teamId && role !== "admin" ? " in this run's team" : ""}` : OPERATOR_HINT,
  };
}
