// Who the signed-in user is and what their role allows (the server checks again).
import type { Role } from "@/server/identity";
import { trpc } from "@/lib/trpc";

const RANK: Record<Role, number> = { viewer: 0, operator: 1, approver: 2, admin: 3 };

export function roleAtLeast(role: Role | undefined, required: Role): boolean {
  return role !== undefined && RANK[role] >= RANK[required];
}

export const OPERATOR_HINT = "Starting and steering runs needs the operator role";

export function useMe() {
  const me = trpc.identity.me.useQuery(undefined, { staleTime: 60_000 });
  return {
    me: me.data,
    isLoading: me.isLoading,
    canOperate: roleAtLeast(me.data?.role, "operator"),
  };
}
