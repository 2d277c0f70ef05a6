// What the palette offers before it asks the server: every page and Settings
// section the person may open (the navigation's own lists and role rules) and the actions.
import { SECTIONS } from "@/components/settings/settings-nav";
import { LINKS } from "@/components/top-nav";

export type PaletteAction = "new-run" | "toggle-theme" | "show-shortcuts";

export interface PaletteEntry {
  id: string;
  group: "Actions" | "Pages" | "Settings" | "Runs" | "Agents";
  label: string;
  /** Shown beside the label, and searched with it. */
  detail?: string;
  href?: string;
  action?: PaletteAction;
}

export function staticEntries({ isAdmin, canOperate }: { isAdmin: boolean; canOperate: boolean }): PaletteEntry[] {
  const actions: PaletteEntry[] = [
    ...(canOperate
      ? [{ id: "action:new-run", group: "Actions" as const, label: "New run", detail: "start a run", action: "new-run" as const }]
      : []),
    { id: "action:toggle-theme", group: "Actions", label: "Toggle dark mode", detail: "theme light dark", action: "toggle-theme" },
    { id: "action:show-shortcuts", group: "Actions", label: "Keyboard shortcuts", detail: "keys help", action: "show-shortcuts" },
  ];
  const pages: PaletteEntry[] = [
    ...LINKS.filter((l) => !l.adminOnly || isAdmin).map((l) => ({
      id: `page:${l.href}`,
      group: "Pages" as const,
      label: l.label,
      ...(l.hint ? { detail: l.hint } : {}),
      href: l.href,
    })),
    { id: "page:/profile", group: "Pages", label: "Profile", detail: "password account", href: "/profile" },
  ];
  const settings: PaletteEntry[] = SECTIONS.filter((s) => !s.admin || isAdmin).map((s) => ({
    id: `settings:${s.href}`,
    group: "Settings",
    label: `Settings: ${s.label}`,
    href: s.href,
  }));
  return [...actions, ...pages, ...settings];
}

/** The text the filter searches for an entry. */
export function entryText(e: PaletteEntry): string {
  return e.detail ? `${e.label} ${e.detail}` : e.label;
}
