import { describe, expect, it } from "vitest";
import { THEME_SCRIPT, THEME_STORAGE_KEY, parseThemeChoice, resolveTheme } from "./theme";

describe("parseThemeChoice", () => {
  it.each([
    ["light", "light"],
    ["dark", "dark"],
    ["system", "system"],
    [null, "system"],
    [undefined, "system"],
    ["", "system"],
    ["DARK", "system"],
    ["<script>", "system"],
    [1, "system"],
  ])("%j is %s", (raw, want) => expect(parseThemeChoice(raw)).toBe(want));
});

describe("resolveTheme", () => {
  it("system follows the system preference", () => {
    expect(resolveTheme("system", true)).toBe("dark");
    expect(resolveTheme("system", false)).toBe("light");
  });
  it("an explicit choice wins over the system", () => {
    expect(resolveTheme("light", true)).toBe("light");
    expect(resolveTheme("dark", false)).toBe("dark");
  });
});

describe("THEME_SCRIPT", () => {
  // The script runs against a tiny stand-in for the browser's globals.
  function run(stored: string | null, storageThrows = false) {
    const attrs: Record<string, string> = {};
    const localStorage = {
      getItem(key: string) {
        if (storageThrows) throw new Error("blocked");
        return key === THEME_STORAGE_KEY ? stored : null;
      },
    };
    const document = { documentElement: { setAttribute: (k: string, v: string) => (attrs[k] = v) } };
    new Function("localStorage", "document", THEME_SCRIPT)(localStorage, document);
    return attrs;
  }

  it("applies a stored light or dark choice to <html>", () => {
    expect(run("dark")).toEqual({ "data-theme": "dark" });
    expect(run("light")).toEqual({ "data-theme": "light" });
  });
  it("leaves system (or anything unknown) to the media query", () => {
    expect(run(null)).toEqual({});
    expect(run("system")).toEqual({});
    expect(run('"><img src=x>')).toEqual({});
  });
  it("does not throw when storage is blocked", () => {
    expect(run("dark", true)).toEqual({});
  });
});
