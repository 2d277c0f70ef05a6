"use client";
// The top bar (docs/getting-started.md#finding-your-way): the work a person
// does every day (Runs, Inbox) stays in sight; the rest is grouped by what it
// is for (Build, Improve, Observe), each group a menu that names the page open
// in it. Settings closes the bar; the palette (Ctrl+K) reaches every page.
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { InboxBadge } from "@/components/inbox/inbox-nav-link";
import { UserMenu } from "@/components/user-menu";
import { roleAtLeast, useMe } from "@/lib/access";
import { useDismiss } from "@/lib/use-dismiss";

interface NavLink {
  href: string;
  label: string;
  /** What it is for, shown under its name in its group's menu. */
  hint?: string;
  /** The path prefix that marks it current, when not its href. */
  section?: string;
  adminOnly?: boolean;
}

interface NavGroup {
  label: string;
  links: NavLink[];
}

export const NAV_GROUPS: NavGroup[] = [
  {
    label: "Build",
    links: [
      { href: "/agents", label: "Agents", hint: "Specs, versions and tries" },
      { href: "/evals", label: "Evals", hint: "Datasets and experiments" },
      { href: "/skills", label: "Skills", hint: "What agents may load" },
      { href: "/memory", label: "Memory", hint: "What agents remember" },
    ],
  },
  {
    label: "Improve",
    links: [
      { href: "/improvements", label: "Improvements", hint: "Friction, cycles and changes" },
      { href: "/extensions", label: "Extensions", hint: "Tools agents wrote for themselves" },
    ],
  },
  {
    label: "Observe",
    links: [
      { href: "/traces", label: "Traces", hint: "Every model and tool call" },
      { href: "/costs", label: "Costs", hint: "Spend, budgets and health" },
      { href: "/audit", label: "Audit", hint: "Who did what", adminOnly: true },
    ],
  },
];

/** Every page of the bar, in its order (the palette lists them too). */
export const LINKS: NavLink[] = [
  { href: "/runs", label: "Runs" },
  { href: "/inbox", label: "Inbox" },
  ...NAV_GROUPS.flatMap((g) => g.links),
  { href: "/settings/tokens", label: "Settings", section: "/settings" },
];

const isCurrent = (pathname: string, l: NavLink) => {
  const section = l.section ?? l.href;
  return pathname === section || pathname.startsWith(`${section}/`);
};

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

function TopLink({ link, pathname }: { link: NavLink; pathname: string }) {
  return (
    <Link
      href={link.href}
      className="navlink"
      aria-current={isCurrent(pathname, link) ? "page" : undefined}
      data-testid={`nav-${link.label.toLowerCase()}`}
    >
      {link.label}
      {link.href === "/inbox" && <InboxBadge />}
    </Link>
  );
}

/** A group's button and its menu of pages; the button names the page open in it. */
function GroupMenu({ group, links, pathname }: { group: NavGroup; links: NavLink[]; pathname: string }) {
  const [open, setOpen] = useState(false);
  const wrap = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menuId = useId();
  const current = links.find((l) => isCurrent(pathname, l));

  // A page opened from the menu closes it.
  useEffect(() => setOpen(false), [pathname]);
  const close = useCallback((how: "outside" | "escape") => {
    setOpen(false);
    if (how === "escape") button.current?.focus();
  }, []);
  useDismiss(open, wrap, close);

  const onMenuKey = (e: React.KeyboardEvent<HTMLDivElement>) => {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    e.preventDefault();
    const items = [...(wrap.current?.querySelectorAll<HTMLAnchorElement>(".nav-menu a") ?? [])];
    const at = items.indexOf(document.activeElement as HTMLAnchorElement);
    const next = e.key === "ArrowDown" ? (at + 1) % items.length : (at - 1 + items.length) % items.length;
    items[next]?.focus();
  };

  return (
    <div className="menu-wrap nav-group" ref={wrap} onKeyDown={onMenuKey}>
      <button
        ref={button}
        type="button"
        className="navlink nav-group-button"
        aria-expanded={open}
        aria-controls={menuId}
        aria-current={current ? "page" : undefined}
        onClick={() => setOpen((o) => !o)}
        data-testid={`nav-group-${group.label.toLowerCase()}`}
      >
        {group.label}
        {current && (
          <span className="nav-group-current" data-testid="nav-group-current">
            · {current.label}
          </span>
        )}
        <span aria-hidden="true" className="nav-group-caret">
          ▾
        </span>
      </button>
      {open && (
        <div className="menu nav-menu" id={menuId} data-testid={`nav-menu-${group.label.toLowerCase()}`}>
          {links.map((l) => (
            <Link
              key={l.href}
              href={l.href}
              className="menu-item nav-menu-item"
              aria-current={isCurrent(pathname, l) ? "page" : undefined}
              data-testid={`nav-${l.label.toLowerCase()}`}
              onClick={() => setOpen(false)}
            >
              <span className="stack" style={{ gap: 0 }}>
                <span>{l.label}</span>
                {l.hint && <span className="small muted">{l.hint}</span>}
              </span>
            </Link>
          ))}
        </div>
      )}
    </div>
  );
}

export function TopNav() {
  const pathname = usePathname() ?? "";
  const { me } = useMe();
  const isAdmin = roleAtLeast(me?.role, "admin");
  const allowed = (l: NavLink) => !l.adminOnly || isAdmin;
  return (
    <header className="topnav">
      <Link href="/runs" aria-label="Rein home" style={{ textDecoration: "none" }}>
        <Wordmark />
      </Link>
      <nav className="navlinks" aria-label="Main">
        <TopLink link={LINKS[0]} pathname={pathname} />
        <TopLink link={LINKS[1]} pathname={pathname} />
        {NAV_GROUPS.map((g) => (
          <GroupMenu key={g.label} group={g} links={g.links.filter(allowed)} pathname={pathname} />
        ))}
        <TopLink link={LINKS[LINKS.length - 1]} pathname={pathname} />
      </nav>
      <span className="spacer" />
      <UserMenu />
    </header>
  );
}
