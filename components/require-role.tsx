"use client";
// A page part only people with at least `role` may use: a skeleton while the
// session loads, a clear explanation for everyone else.
import type { ReactNode } from "react";
import type { Role } from "@/server/identity";
import { EmptyState, Skeleton } from "@/components/ui";
import { roleAtLeast, useMe } from "@/lib/access";

export function RequireRole({
  role,
  title,
  why,
  children,
}: {
  role: Role;
  title: string;
  why: string;
  children: (me: { email: string; role: Role }) => ReactNode;
}) {
  const { me, isLoading } = useMe();
  if (isLoading) {
    return (
      <div className="page">
        <Skeleton width={240} height={28} />
      </div>
    );
  }
  if (!me || !roleAtLeast(me.role, role)) {
    return (
      <div className="page">
        <EmptyState icon="⚷" title={title}>
          {why}
          {me ? ` You are ${me.role}.` : ""}
        </EmptyState>
      </div>
    );
  }
  return <>{children(me)}</>;
}
