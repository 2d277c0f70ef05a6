"use client";
import { signOut } from "next-auth/react";
import Link from "next/link";
import { useCallback, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { bestRole, useMe } from "@/lib/access";
import { useDismiss } from "@/lib/use-dismiss";
import { describeTeamRoles, personName } from "@/lib/people";
import { Skeleton } from "@/components/ui";
import { ThemeToggle } from "@/components/theme";

export function UserMenu() {
  const { me, teams, isLoading } = useMe();
  const [open, setOpen] = useState(false);
  const [leaving, setLeaving] = useState(false);
  const wrap = useRef<HTMLDivElement>(null);
  const queryClient = useQueryClient();

  const close = useCallback(() => setOpen(false), []);
  useDismiss(open, wrap, close);

  if (isLoading || !me) return <Skeleton width={180} height={24} />;
  // Admins are admin in every team: listing each would say nothing more.
  const teamRoles = me.role === "admin" ? "" : describeTeamRoles(teams);

  async function logOut() {
    setLeaving(true);
    queryClient.clear();
    await signOut({ callbackUrl: "/login" });
  }

  return (
    <div className="menu-wrap" ref={wrap}>
      <button
        type="button"
        className="btn btn-ghost"
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        data-testid="user-menu"
        title={me.email}
      >
        <span className="avatar" aria-hidden="true">
          {personName(me).slice(0, 1).toUpperCase()}
        </span>
        <span className="user-name" data-testid="user-name">
          {personName(me)}
        </span>
        {/* The most a person may do anywhere (what the pages offer); the menu says where. */}
        <span
          className="badge badge-role"
          data-testid="user-role"
          title={me.role === "admin" ? "admin in every team" : teamRoles ? `${teamRoles}; ${me.role} elsewhere` : "Your role"}
        >
          {bestRole(me) ?? me.role}
        </span>
        <span aria-hidden="true" className="muted">
          ▾
        </span>
      </button>
      {open && (
        <div className="menu" role="menu">
          <div className="menu-header">
            <div style={{ fontWeight: 600 }}>{personName(me)}</div>
            <div className="muted small">{me.email}</div>
            <div className="muted small" data-testid="user-menu-role">
              {me.role === "admin"
                ? "Role: admin (in every team)"
                : teamRoles
                  ? `Own role: ${me.role} (outside your teams)`
                  : `Role: ${me.role}`}
            </div>
            {teamRoles && (
              <div className="muted small" data-testid="user-team-roles">
                {teamRoles}
              </div>
            )}
          </div>
          <Link href="/profile" className="menu-item" role="menuitem" onClick={() => setOpen(false)} data-testid="user-menu-profile">
            Your profile
          </Link>
          <Link href="/settings/teams" className="menu-item" role="menuitem" onClick={() => setOpen(false)}>
            {me.role === "admin" ? "Teams" : "Your teams"}
          </Link>
          <Link href="/settings/tokens" className="menu-item" role="menuitem" onClick={() => setOpen(false)}>
            API tokens
          </Link>
          <div className="menu-section">
            <ThemeToggle />
          </div>
          <button type="button" className="menu-item" role="menuitem" onClick={logOut} disabled={leaving} data-testid="logout">
            {leaving ? "Logging out…" : "Log out"}
          </button>
        </div>
      )}
    </div>
  );
}
