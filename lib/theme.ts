// Light, dark, or whatever the system says: the choice a person makes, where it
// is kept, and how it resolves. Pure, so the inline script and the hook agree.

export type ThemeChoice = "system" | "light" | "dark";
export type ResolvedTheme = "light" | "dark";

export const THEME_CHOICES: readonly ThemeChoice[] = ["system", "light", "dark"];

/** The localStorage key holding the choice; absent means "system". */
export const THEME_STORAGE_KEY = "rein-theme";

/** A stored value as a choice: anything unknown (or nothing) is "system". */
export function parseThemeChoice(raw: unknown): ThemeChoice {
  return raw === "light" || raw === "dark" ? raw : "system";
}

/** What the page shows for a choice, given whether the system prefers dark. */
export function resolveTheme(choice: ThemeChoice, systemPrefersDark: boolean): ResolvedTheme {
  if (choice === "system") return systemPrefersDark ? "dark" : "light";
  return choice;
}

/**
 * Runs in <head> before the body is painted: a stored light or dark choice
 * becomes data-theme on <html>; with none, the CSS media query decides. Kept
 * tiny and self-contained (it cannot import anything) and safe when storage
 * is blocked.
 */
export const THEME_SCRIPT = `(function(){try{var t=localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)});if(t==="light"||t==="dark")document.documentElement.setAttribute("data-theme",t);}catch(e){}})();`;
