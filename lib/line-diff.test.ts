import { describe, expect, it } from "vitest";
import { diffLines, foldUnchanged, type DiffLine } from "./line-diff";

const show = (lines: DiffLine[]) => lines.map((l) => `${l.kind === "same" ? " " : l.kind === "added" ? "+" : "-"}${l.text}`);

/** Length of the longest common subsequence, by the textbook table (small inputs only). */
function lcs(a: string[], b: string[]): number {
  const t = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) t[i][j] = a[i - 1] === b[j - 1] ? t[i - 1][j - 1] + 1 : Math.max(t[i - 1][j], t[i][j - 1]);
  return t[a.length][b.length];
}

function seeded(seed: number) {
  return () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

describe("diffLines", () => {
  it.each([
    ["equal texts", "a\nb\nc", "a\nb\nc", [" a", " b", " c"]],
    ["an added line", "a\nc", "a\nb\nc", [" a", "+b", " c"]],
    ["a removed line", "a\nb\nc", "a\nc", [" a", "-b", " c"]],
    ["a changed line", "a\nb\nc", "a\nB\nc", [" a", "-b", "+B", " c"]],
    ["from nothing", "", "a\nb", ["+a", "+b"]],
    ["to nothing", "a\nb", "", ["-a", "-b"]],
    ["a trailing newline is not a line", "a\n", "a", [" a"]],
    ["Windows line ends", "a\r\nb", "a\nb", [" a", " b"]],
  ])("%s", (_, before, after, expected) => {
    const r = diffLines(before, after);
    expect(r.ok && show(r.lines)).toEqual(expected);
  });

  it("numbers the lines of each side and counts the changes", () => {
    const r = diffLines(
      "rules:\n  - tool: shell\n    decision: ask\n",
      "rules:\n  - tool: shell\n    decision: deny\n  - tool: x\n    decision: allow\n",
    );
    if (!r.ok) throw new Error("expected a diff");
    expect(r.added).toBe(3);
    expect(r.removed).toBe(1);
    expect(r.lines.find((l) => l.text === "    decision: ask")).toEqual({ kind: "removed", text: "    decision: ask", oldNo: 3 });
    expect(r.lines.find((l) => l.text === "  - tool: x")).toEqual({ kind: "added", text: "  - tool: x", newNo: 4 });
  });

  it("is a shortest edit script that rebuilds both sides, on random texts", () => {
    const rand = seeded(7);
    for (let round = 0; round < 300; round++) {
      const alphabet = "abcde".slice(0, 2 + Math.floor(rand() * 4));
      const make = () => Array.from({ length: Math.floor(rand() * 14) }, () => alphabet[Math.floor(rand() * alphabet.length)]);
      const a = make();
      const b = make();
      const r = diffLines(a.join("\n"), b.join("\n"));
      if (!r.ok) throw new Error("expected a diff");
      expect(r.lines.filter((l) => l.kind !== "added").map((l) => l.text)).toEqual(a);
      expect(r.lines.filter((l) => l.kind !== "removed").map((l) => l.text)).toEqual(b);
      expect(r.lines.filter((l) => l.kind === "same").length).toBe(lcs(a, b));
    }
  });

  it("answers too large for a 100,000-line text instead of comparing it", () => {
    const huge = Array.from({ length: 100_000 }, (_, i) => `line ${i}`).join("\n");
    const r = diffLines("rules: []", huge);
    expect(r).toMatchObject({ ok: false, reason: "too-large" });
    expect(!r.ok && r.message).toContain("too large to compare");
  });

  it("stops when two texts differ by more lines than the edit limit", () => {
    const texts = (n: number) =>
      [Array.from({ length: n }, (_, i) => `a${i}`).join("\n"), Array.from({ length: n }, (_, i) => `b${i}`).join("\n")] as const;
    expect(diffLines(...texts(3_000))).toMatchObject({ ok: false, reason: "too-large" });
    expect(diffLines(...texts(400), { maxEdits: 500 })).toMatchObject({ ok: false, reason: "too-large" });
    // Within the default limit: every line replaced.
    const full = diffLines(...texts(400));
    expect(full.ok && [full.added, full.removed]).toEqual([400, 400]);
  });
});

describe("foldUnchanged", () => {
  it("keeps three lines of context around a change and folds the rest", () => {
    const before = Array.from({ length: 20 }, (_, i) => `l${i}`);
    const after = [...before];
    after[10] = "changed";
    const r = diffLines(before.join("\n"), after.join("\n"));
    if (!r.ok) throw new Error("expected a diff");
    const rows = foldUnchanged(r.lines);
    expect(rows.map((row) => (row.kind === "skipped" ? `…${row.count}` : row.text))).toEqual([
      "…7",
      "l7",
      "l8",
      "l9",
      "l10",
      "changed",
      "l11",
      "l12",
      "l13",
      "…6",
    ]);
  });

  it("does not fold a run that is barely longer than its context", () => {
    const r = diffLines("x\na\nb\nc\nd\ne\nf\ng\ny", "X\na\nb\nc\nd\ne\nf\ng\nY");
    if (!r.ok) throw new Error("expected a diff");
    expect(foldUnchanged(r.lines).some((row) => row.kind === "skipped")).toBe(false);
  });
});
