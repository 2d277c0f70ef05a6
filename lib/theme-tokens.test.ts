// The light and dark palettes in app/globals.css: both dark blocks say the same,
// and text keeps its contrast on every surface (body ≥ 7:1, secondary ≥ 4.5:1).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { contrastRatio, luminance } from "./contrast";

const css = fs.readFileSync(path.join(__dirname, "../app/globals.css"), "utf8");

/** The custom properties declared in the first block that follows `selector`. */
function tokens(selector: string): Record<string, string> {
  const start = css.indexOf(`${selector} {`);
  if (start < 0) throw new Error(`no block for ${selector}`);
  const body = css.slice(start, css.indexOf("}", start));
  return Object.fromEntries([...body.matchAll(/(--[\w-]+):\s*([^;]+);/g)].map((m) => [m[1], m[2].trim()]));
}

const light = tokens(":root");
const darkChosen = { ...light, ...tokens(':root[data-theme="dark"]') };
const darkSystem = { ...light, ...tokens(':root:not([data-theme="light"])') };

describe("contrastRatio", () => {
  it("is 21 for black on white, 1 for a colour on itself, either way round", () => {
    expect(contrastRatio("#000000", "#ffffff")).toBeCloseTo(21, 5);
    expect(contrastRatio("#fff", "#000")).toBeCloseTo(21, 5);
    expect(contrastRatio("#3451d1", "#3451d1")).toBe(1);
  });
  it("refuses what is not a hex colour", () => {
    expect(() => luminance("var(--x)")).toThrow(/not a #rrggbb/);
  });
});

describe("design tokens", () => {
  it("the chosen and the system dark theme define the same tokens", () => {
    expect(tokens(':root:not([data-theme="light"])')).toEqual(tokens(':root[data-theme="dark"]'));
  });

  it("dark mode redefines every colour the light theme has for text and surfaces", () => {
    const dark = tokens(':root[data-theme="dark"]');
    for (const name of [
      "--bg",
      "--surface",
      "--surface-2",
      "--surface-3",
      "--border",
      "--text",
      "--text-2",
      "--text-3",
      "--accent",
      "--on-accent",
    ]) {
      expect(dark[name], name).toBeDefined();
      expect(dark[name], name).not.toBe(light[name]);
    }
  });

  for (const [name, palette] of [
    ["light", light],
    ["dark", darkChosen],
    ["dark (system)", darkSystem],
  ] as const) {
    describe(name, () => {
      for (const surface of ["--bg", "--surface", "--surface-2"]) {
        it(`body text is at least 7:1 on ${surface}`, () => {
          expect(contrastRatio(palette["--text"], palette[surface])).toBeGreaterThanOrEqual(7);
        });
        for (const text of ["--text-2", "--text-3", "--accent", "--red", "--green", "--amber", "--blue", "--purple"]) {
          it(`${text} is at least 4.5:1 on ${surface}`, () => {
            expect(contrastRatio(palette[text], palette[surface])).toBeGreaterThanOrEqual(4.5);
          });
        }
      }
      it("text on the accent and red fills is at least 4.5:1", () => {
        expect(contrastRatio(palette["--on-accent"], palette["--accent"])).toBeGreaterThanOrEqual(4.5);
        expect(contrastRatio(palette["--on-accent"], palette["--red"])).toBeGreaterThanOrEqual(4.5);
      });
    });
  }
});
