"use client";
// The Settings sections; admin-only ones are listed for admins.
import Link from "next/link";
import { usePathname } from "next/navigation";
import { roleAtLeast, useMe } from "@/lib/access";
import { trpc } from "@/lib/trpc";
import styles from "./settings-nav.module.css";

export const SECTIONS = [
  { href: "/settings/tokens", label: "API tokens", admin: false },
  { href: "/settings/teams", label: "Teams", admin: false },
  { href: "/settings/people", label: "People", admin: true },
  { href: "/settings/prices", label: "Prices", admin: false },
  { href: "/settings/models", label: "Models", admin: true },
  { href: "/settings/secrets", label: "Secrets", admin: true },
  { href: "/settings/gateway-keys", label: "Gateway keys", admin: true },
  { href: "/settings/mcp", label: "MCP servers", admin: true },
  { href: "/settings/hosted", label: "Hosted agents", admin: false },
  { href: "/settings/channels", label: "Channels", admin: true },
  { href: "/settings/budgets", label: "Budgets", admin: true },
  { href: "/settings/policy", label: "Policy", admin: true },
  { href: "/settings/telemetry", label: "Telemetry", admin: true },
  { href: "/settings/data", label: "Data", admin: true },
  { href: "/settings/tiers", label: "Tiers", admin: true },
  { href: "/settings/machines", label: "Machines", admin: true },
  { href: "/settings/devices", label: "Devices", admin: false },
  { href: "/settings/system", label: "System", admin: true },
  { href: "/settings/improvements", label: "Improvements", admin: false },
  { href: "/settings/repositories", label: "Repositories", admin: false },
];

export function SettingsNav() {
  const pathname = usePathname() ?? "";
  const { me } = useMe();
  const isAdmin = roleAtLeast(me?.role, "admin");
  // MCP tools whose definition changed wait for an admin: the count shows beside the section.
  const reviews = trpc.mcp.pendingReviews.useQuery(undefined, { enabled: isAdmin, refetchInterval: 60_000, retry: false });
  return (
    <nav className={styles.nav} aria-label="Settings" data-testid="settings-nav">
      <div className={styles.title}>Settings</div>
      {SECTIONS.filter((s) => !s.admin || isAdmin || pathname.startsWith(s.href)).map((s) => (
        <Link key={s.href} href={s.href} className={styles.link} aria-current={pathname.startsWith(s.href) ? "page" : undefined}>
          {s.label}
          {s.href === "/settings/mcp" && !!reviews.data ? (
            // In the admin tag's place: only admins see the count, and the row has no room for both.
            <span
              className={`badge status-paused ${styles.admin}`}
              title={`${reviews.data} MCP tool(s) changed and wait for your review`}
              data-testid="mcp-reviews-badge"
            >
              {reviews.data}
            </span>
          ) : (
            s.admin && <span className={styles.admin}>admin</span>
          )}
        </Link>
      ))}
    </nav>
  );
}
