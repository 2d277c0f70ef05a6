// The theme: the user-menu toggle, the inline script for <head>, and useTheme()
// for anything else that switches it (a command palette, a shortcut).
export { THEME_CHOICES, THEME_STORAGE_KEY, type ResolvedTheme, type ThemeChoice } from "@/lib/theme";
export { currentResolvedTheme, onThemeChange, setTheme, themeColor, useTheme } from "./use-theme";
export { ThemeToggle } from "./theme-toggle";
export { ThemeScript } from "./theme-script";
