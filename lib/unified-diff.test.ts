import { describe, expect, it } from "vitest";
import { parseUnifiedDiff } from "./unified-diff";

const MODIFIED = [
  "diff --git a/src/price.mjs b/src/price.mjs",
  "index 1111111..2222222 100644",
  "--- a/src/price.mjs",
  "+++ b/src/price.mjs",
  "@@ -5,3 +5,3 @@ export function applyDiscount(cents, percent) {",
  "   if (!(percent >= 0)) throw new RangeError();",
  "-  return Math.floor(x);",
  "+  return Math.round(x);",
  " }",
  "@@ -20,2 +20,3 @@",
  " a",
  "+b",
  " c",
].join("\n");

const ADDED = [
  "diff --git a/docs/new file.md b/docs/new file.md",
  "new file mode 100644",
  "index 0000000..3333333",
  "--- /dev/null",
  "+++ b/docs/new file.md",
  "@@ -0,0 +1,2 @@",
  "+one",
  "+two",
  "\\ No newline at end of file",
].join("\n");
const DELETED = [
  "diff --git a/old.txt b/old.txt",
  "deleted file mode 100644",
  "index 4444444..0000000",
  "--- a/old.txt",
  "+++ /dev/null",
  "@@ -1 +0,0 @@",
  "-gone",
].join("\n");
const BINARY = [
  "diff --git a/logo.png b/logo.png",
  "new file mode 100644",
  "index 0000000..5555555",
  "Binary files /dev/null and b/logo.png differ",
].join("\n");

describe("parseUnifiedDiff", () => {
  it("splits a diff per file with its status, counts and both sides", () => {
    const files = parseUnifiedDiff(`${MODIFIED}\n${ADDED}\n${DELETED}\n${BINARY}\n`);
    expect(files.map((f) => [f.path, f.status, f.additions, f.deletions, f.binary])).toEqual([
      ["src/price.mjs", "M", 2, 1, false],
      ["docs/new file.md", "A", 2, 0, false],
      ["old.txt", "D", 0, 1, false],
      ["logo.png", "A", 0, 0, true],
    ]);
  });

  it("keeps the real line numbers beside each side, a hunk header in both between hunks", () => {
    const [f] = parseUnifiedDiff(MODIFIED);
    expect(f.original.split("\n")).toEqual([
      "@@ -5,3 +5,3 @@ export function applyDiscount(cents, percent) {",
      "  if (!(percent >= 0)) throw new RangeError();",
      "  return Math.floor(x);",
      "}",
      "@@ -20,2 +20,3 @@",
      "a",
      "c",
    ]);
    expect(f.modified).toContain("return Math.round(x);");
    expect(f.originalLines).toEqual([null, 5, 6, 7, null, 20, 21]);
    expect(f.modifiedLines).toEqual([null, 5, 6, 7, null, 20, 21, 22]);
    expect(f.text.startsWith("diff --git a/src/price.mjs")).toBe(true);
  });

  it("leaves out the no-newline marker and anything before the first file", () => {
    const files = parseUnifiedDiff(`commit header\n${ADDED}`);
    expect(files).toHaveLength(1);
    expect(files[0].modified).toBe("@@ -0,0 +1,2 @@\none\ntwo");
    expect(files[0].modifiedLines).toEqual([null, 1, 2]);
  });

  it("reads a quoted path and returns nothing for an empty or cut diff", () => {
    expect(
      parseUnifiedDiff(
        'diff --git "a/t\\303\\251st.txt" "b/t\\303\\251st.txt"\n--- "a/t\\303\\251st.txt"\n+++ "b/t\\303\\251st.txt"\n@@ -1 +1 @@\n-x\n+y',
      )[0].path,
    ).toBe("tést.txt");
    expect(parseUnifiedDiff("")).toEqual([]);
    expect(parseUnifiedDiff(MODIFIED.slice(0, 120))[0].path).toBe("src/price.mjs");
  });
});
