import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TERMINAL_TOKENS, terminalTheme } from "./terminal-theme";

describe("terminalTheme", () => {
  it("reads each xterm colour from its token", () => {
    const theme = terminalTheme((token) => `value of ${token}`);
    expect(theme.background).toBe("value of --code-bg");
    expect(theme.cursorAccent).toBe("value of --code-bg");
    expect(theme.brightMagenta).toBe("value of --term-bright-magenta");
    expect(theme.red).toBe("value of --term-red");
    expect(Object.keys(theme)).toHaveLength(24);
  });

  it("leaves a colour whose token is missing to xterm", () => {
    const theme = terminalTheme((token) => (token === "--code-bg" ? " rgb(1, 2, 3) " : ""));
    expect(theme).toEqual({ background: "rgb(1, 2, 3)", cursorAccent: "rgb(1, 2, 3)" });
  });

  it("every token it reads is defined in the stylesheet", () => {
    const css = fs.readFileSync(path.join(__dirname, "../app/globals.css"), "utf8");
    for (const token of new Set(Object.values(TERMINAL_TOKENS))) expect(css, token).toContain(`${token}:`);
  });
});
