"use client";
// The theme as React state: useTheme() for the toggle (and anything else that
// switches it, such as a command palette), onThemeChange() for code outside
// React (the terminal, the desktop viewer) that paints with the theme's colours.
import { useCallback, useSyncExternalStore } from "react";
import { THEME_STORAGE_KEY, parseThemeChoice, resolveTheme, type ResolvedTheme, type ThemeChoice } from "@/lib/theme";

const CHANGE_EVENT = "rein-theme-change";
const DARK_QUERY = "(prefers-color-scheme: dark)";

function storedChoice(): ThemeChoice {
  try {
    return parseThemeChoice(window.localStorage.getItem(THEME_STORAGE_KEY));
  } catch {
    return "system";
  }
}

function systemPrefersDark(): boolean {
  return typeof window.matchMedia === "function" && window.matchMedia(DARK_QUERY).matches;
}

/** The theme the page shows now. */
export function currentResolvedTheme(): ResolvedTheme {
  return resolveTheme(storedChoice(), systemPrefersDark());
}

/** Calls `listener` whenever the choice or the system preference changes; returns the unsubscribe. */
export function onThemeChange(listener: () => void): () => void {
  const media = typeof window.matchMedia === "function" ? window.matchMedia(DARK_QUERY) : null;
  const onStorage = (e: StorageEvent) => {
    if (e.key !== THEME_STORAGE_KEY) return;
    applyChoice(storedChoice()); // another tab chose: follow it
    listener();
  };
  window.addEventListener(CHANGE_EVENT, listener);
  window.addEventListener("storage", onStorage);
  media?.addEventListener("change", listener);
  return () => {
    window.removeEventListener(CHANGE_EVENT, listener);
    window.removeEventListener("storage", onStorage);
    media?.removeEventListener("change", listener);
  };
}

function applyChoice(choice: ThemeChoice) {
  const root = document.documentElement;
  if (choice === "system") root.removeAttribute("data-theme");
  else root.setAttribute("data-theme", choice);
}

/** Switches the theme for this browser and remembers it (like the inline script, on <html>). */
export function setTheme(choice: ThemeChoice) {
  try {
    if (choice === "system") window.localStorage.removeItem(THEME_STORAGE_KEY);
    else window.localStorage.setItem(THEME_STORAGE_KEY, choice);
  } catch {
    // Storage blocked: the choice still applies until the page is left.
  }
  applyChoice(choice);
  window.dispatchEvent(new Event(CHANGE_EVENT));
}

/** The value of a design token (a CSS variable on <html>), for canvases that cannot use var(). */
export function themeColor(name: `--${string}`, fallback = ""): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}

/**
 * The person's choice (System / Light / Dark), what it resolves to, and a setter.
 * On the server (and the first client render) the choice reads as "system".
 */
export function useTheme(): { theme: ThemeChoice; resolvedTheme: ResolvedTheme; setTheme: (choice: ThemeChoice) => void } {
  const theme = useSyncExternalStore(onThemeChange, storedChoice, () => "system" as const);
  const resolvedTheme = useSyncExternalStore(onThemeChange, currentResolvedTheme, () => "light" as const);
  const set = useCallback((choice: ThemeChoice) => setTheme(choice), []);
  return { theme, resolvedTheme, setTheme: set };
}
