// Who the signed-in user is and what their role allows (the server checks again).
import type { Role } from "@/server/identity";
import { trpc } from "@/lib/trpc";

const RANK: Record<Role, number> = { viewer: 0, operator: 1, approver: 2, admin: 3 };

/** The roles from least to most (the server's ROLES, repeated so the browser bundle stays free of server code). */
export const ROLE_ORDER: readonly Role[] = ["viewer", "operator", "approver", "admin"];

/** What each role may do, in a few words (SPEC section 5). */
export const ROLE_HINTS: Record<Role, string> = {
  viewer: "sees runs, traces and costs",
  operator: "launches and steers runs",
  approver: "also decides human requests",
  admin: "manages people, teams and settings",
};

export function roleAtLeast(role: Role | undefined, required: Role): boolean {
  return role !== undefined && RANK[role] >= RANK[required];
}

export const OPERATOR_HINT = "Starting and steering runs needs the operator role";

export function useMe() {
  const me = trpc.identity.me.useQuery(undefined, { staleTime: 60_000 });
  return {
    me: me.data,
    /** The teams the person belongs to, with their effective role in each (admins: every team). */
    teams: me.data?.teams ?? [],
    isLoading: me.isLoading,
    canOperate: roleAtLeast(me.data?.role, "operator"),
  };
}
