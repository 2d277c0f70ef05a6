"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { InboxBadge } from "@/components/inbox/inbox-nav-link";
import { UserMenu } from "@/components/user-menu";
import { roleAtLeast, useMe } from "@/lib/access";

export const LINKS = [
  { href: "/runs", label: "Runs" },
  { href: "/inbox", label: "Inbox" },
  { href: "/agents", label: "Agents" },
  { href: "/traces", label: "Traces" },
  { href: "/costs", label: "Costs" },
  { href: "/evals", label: "Evals" },
  { href: "/improvements", label: "Improvements" },
  { href: "/skills", label: "Skills" },
  { href: "/memory", label: "Memory" },
  { href: "/extensions", label: "Extensions" },
  { href: "/settings/tokens", label: "Settings", section: "/settings" },
  { href: "/audit", label: "Audit", adminOnly: true },
];

export function Wordmark() {
  return (
    <span className="wordmark">
      <span className="wordmark-mark" aria-hidden="true">
        R
      </span>
      Rein
    </span>
  );
}

export function TopNav() {
  const pathname = usePathname() ?? "";
  const { me } = useMe();
  const isAdmin = roleAtLeast(me?.role, "admin");
  return (
    <header className="topnav">
      <Link href="/runs" aria-label="Rein home" style={{ textDecoration: "none" }}>
        <Wordmark />
      </Link>
      <nav className="navlinks" aria-label="Main">
        {LINKS.filter((l) => !l.adminOnly || isAdmin).map((l) => {
          const section = l.section ?? l.href;
          const active = pathname === section || pathname.startsWith(`${section}/`);
          return (
            <Link
              key={l.href}
              href={l.href}
              className="navlink"
              aria-current={active ? "page" : undefined}
              data-testid={`nav-${l.label.toLowerCase()}`}
            >
              {l.label}
              {l.href === "/inbox" && <InboxBadge />}
            </Link>
          );
        })}
      </nav>
      <span className="spacer" />
      <UserMenu />
    </header>
  );
}
