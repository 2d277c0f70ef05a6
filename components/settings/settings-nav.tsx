"use client";
// The Settings sections; admin-only ones are listed for admins.
import Link from "next/link";
import { usePathname } from "next/navigation";
import { roleAtLeast, useMe } from "@/lib/access";
import styles from "./settings-nav.module.css";

const SECTIONS = [
  { href: "/settings/tokens", label: "API tokens", admin: false },
  { href: "/settings/teams", label: "Teams", admin: false },
  { href: "/settings/people", label: "People", admin: true },
  { href: "/settings/prices", label: "Prices", admin: false },
  { href: "/settings/models", label: "Models", admin: true },
  { href: "/settings/secrets", label: "Secrets", admin: true },
  { href: "/settings/budgets", label: "Budgets", admin: true },
  { href: "/settings/policy", label: "Policy", admin: true },
  { href: "/settings/telemetry", label: "Telemetry", admin: true },
  { href: "/settings/tiers", label: "Tiers", admin: true },
  { href: "/settings/improvements", label: "Improvements", admin: false },
  { href: "/settings/repositories", label: "Repositories", admin: false },
];

export function SettingsNav() {
  const pathname = usePathname() ?? "";
  const { me } = useMe();
  const isAdmin = roleAtLeast(me?.role, "admin");
  return (
    <nav className={styles.nav} aria-label="Settings" data-testid="settings-nav">
      <div className={styles.title}>Settings</div>
      {SECTIONS.filter((s) => !s.admin || isAdmin || pathname.startsWith(s.href)).map((s) => (
        <Link key={s.href} href={s.href} className={styles.link} aria-current={pathname.startsWith(s.href) ? "page" : undefined}>
          {s.label}
          {s.admin && <span className={styles.admin}>admin</span>}
        </Link>
      ))}
    </nav>
  );
}
