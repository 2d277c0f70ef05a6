// The palette's "Toggle dark mode": a window event the theme code answers, so
// the palette does not depend on how the theme is kept.
export const TOGGLE_THEME_EVENT = "rein:toggle-theme";

export function toggleTheme() {
  window.dispatchEvent(new CustomEvent(TOGGLE_THEME_EVENT));
}
