// xterm colours matching the app's dark code blocks (#1f2430 / #e6e9ef),
// with an ANSI palette readable on that background.
import type { ITheme } from "@xterm/xterm";

export const TERMINAL_FONT = 'ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace';

export const TERMINAL_THEME: ITheme = {
  background: "#1f2430",
  foreground: "#e6e9ef",
  cursor: "#9fb0f5",
  cursorAccent: "#1f2430",
  selectionBackground: "rgba(159, 176, 245, 0.35)",
  scrollbarSliderBackground: "rgba(230, 233, 239, 0.14)",
  scrollbarSliderHoverBackground: "rgba(230, 233, 239, 0.28)",
  scrollbarSliderActiveBackground: "rgba(230, 233, 239, 0.4)",
  black: "#3b4150",
  red: "#ef6b73",
  green: "#8fce7a",
  yellow: "#e8c170",
  blue: "#6cb2f2",
  magenta: "#c792ea",
  cyan: "#5fc7d1",
  white: "#d5d9e2",
  brightBlack: "#6c7586",
  brightRed: "#ff8a91",
  brightGreen: "#ace89a",
  brightYellow: "#f5d48e",
  brightBlue: "#8cc8ff",
  brightMagenta: "#dcaef5",
  brightCyan: "#83dfe7",
  brightWhite: "#ffffff",
};
