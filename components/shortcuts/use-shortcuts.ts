"use client";
import { useEffect, useSyncExternalStore } from "react";
import { createShortcutRegistry, type Shortcut, type ShortcutGroup } from "@/lib/shortcuts";

/** The shortcuts of what is on screen now; pages add theirs with useShortcuts. */
export const shortcutRegistry = createShortcutRegistry();

const NONE: ShortcutGroup[] = [];

/** Lists a page's shortcuts in the "?" dialog while the page is mounted. Pass a list that keeps its identity (a constant or a memo). */
export function useShortcuts(title: string, shortcuts: readonly Shortcut[]) {
  useEffect(() => shortcutRegistry.register(title, shortcuts), [title, shortcuts]);
}

export function useShortcutGroups(): ShortcutGroup[] {
  return useSyncExternalStore(shortcutRegistry.subscribe, shortcutRegistry.groups, () => NONE);
}

/** Opens the "?" dialog from a button or the command palette. */
export const SHOW_SHORTCUTS_EVENT = "rein:show-shortcuts";

export function showShortcuts() {
  window.dispatchEvent(new CustomEvent(SHOW_SHORTCUTS_EVENT));
}
