// xterm paints on a canvas, so it cannot use var(): its colours are read from
// the design tokens in app/globals.css (--code-* for the frame, --term-* for the
// ANSI palette), and read again when the theme changes.
import type { ITheme } from "@xterm/xterm";

export const TERMINAL_FONT = 'ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace';

const ANSI = [
  "black",
  "red",
  "green",
  "yellow",
  "blue",
  "magenta",
  "cyan",
  "white",
  "brightBlack",
  "brightRed",
  "brightGreen",
  "brightYellow",
  "brightBlue",
  "brightMagenta",
  "brightCyan",
  "brightWhite",
] as const;

/** Which token each xterm colour comes from. */
export const TERMINAL_TOKENS: Readonly<Record<string, `--${string}`>> = {
  background: "--code-bg",
  foreground: "--code-text",
  cursor: "--term-cursor",
  cursorAccent: "--code-bg",
  selectionBackground: "--term-selection",
  scrollbarSliderBackground: "--term-scrollbar",
  scrollbarSliderHoverBackground: "--term-scrollbar-hover",
  scrollbarSliderActiveBackground: "--term-scrollbar-active",
  ...Object.fromEntries(ANSI.map((name) => [name, `--term-${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}` as const])),
};

/** xterm's theme from the tokens; a token that reads empty is left to xterm's default. */
export function terminalTheme(read: (token: `--${string}`) => string): ITheme {
  const theme: Record<string, string> = {};
  for (const [key, token] of Object.entries(TERMINAL_TOKENS)) {
    const value = read(token).trim();
    if (value) theme[key] = value;
  }
  return theme as ITheme;
}
