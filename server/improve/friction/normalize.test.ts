import { describe, expect, it } from "vitest";
import { errorLine, excerptOf, normalizeMessage, signaturePart } from "./normalize";

describe("normalizeMessage", () => {
  it.each([
    ["numbers", "line 3: not a number", "line N: not a number"],
    ["double-quoted strings", 'line 7: not a number: "Lee, K"', 'line N: not a number: "*"'],
    ["single-quoted and backquoted strings", "could not convert 'Smith, J' in `row[3]`", 'could not convert "*" in "*"'],
    ["an apostrophe inside a word is not a quote", "can't open 'x.csv'", 'can\'t open "*"'],
    ["an unmatched quote stays", "unexpected ' at end", "unexpected ' at end"],
    ["a quote does not run past its line", "a 'b\nc' d", "a 'b c' d"],
    ["absolute, relative and Windows paths", "open /tmp/tmp.Xy12/a.txt, ./src/b.ts, C:\\x\\y", "open <path>, <path>, C:<path>"],
    ["a path keeps the colon after it", "/srv/app/main.py:14: SyntaxError", "<path>:N: SyntaxError"],
    ["hex ids and uuids", "object 9f86d081884c7d65 in 550e8400-e29b-41d4-a716-446655440000", "object <hex> in <hex>"],
    ["0x addresses", "segfault at 0x7ffe1234", "segfault at <hex>"],
    ["hex-looking words without a digit stay", "defaced accepted", "defaced accepted"],
    ["decimals and versions are one N", "took 3.14 s for 1,024 rows on v1.2.3", "took N s for N,N rows on vN"],
    ["digits inside words", "tmp123abc python3", "tmpNabc pythonN"],
    ["long tokens are blobs", "token " + "A".repeat(41), "token <blob>"],
    ["whitespace collapses and trims", "  a \t\r\n  b  ", "a b"],
    ["colour codes and control characters go", "\u001b[31merror\u001b[0m:\u0007 bad", "error: bad"],
    ["a lone escape goes", "a\u001bb", "ab"],
    ["other punctuation and non-ASCII stay", "échec: (x) [y] {z} #!", "échec: (x) [y] {z} #!"],
    ["empty", "", ""],
  ])("%s", (_name, input, expected) => {
    expect(normalizeMessage(input)).toBe(expected);
  });

  it("reads only the first 2 KiB and returns at most 160 characters", () => {
    expect(normalizeMessage("a ".repeat(1000) + "b".repeat(5000))).toBe("a ".repeat(80).trimEnd());
    expect(normalizeMessage(" ".repeat(2048) + "late")).toBe("");
  });

  it("gives the same class to the same error from two runs", () => {
    const a = normalizeMessage(`FileNotFoundError: [Errno 2] No such file or directory: '/tmp/tmp.a8Kq/out/report-2026-03-02.csv'`);
    const b = normalizeMessage(`FileNotFoundError: [Errno 2] No such file or directory: '/tmp/tmp.Zz01/out/report-2026-04-11.csv'`);
    expect(a).toBe(b);
    expect(a).toBe('FileNotFoundError: [Errno N] No such file or directory: "*"');
  });
});

describe("errorLine", () => {
  it.each([
    [
      "the first line that names an error",
      "building\nsrc/a.ts(3,5): error TS2322: no\nerror TS1: later\n",
      "src/a.ts(3,5): error TS2322: no",
    ],
    ["else the last non-empty line", "step 1\nstep 2\nexit status 3\n\n", "exit status 3"],
    [
      "Rein's note about cut output is skipped",
      "working\nsegfault here\n[output continues: 900000 characters, 12 lines in all, over the 25000-token cap; read the rest with read_output]",
      "segfault here",
    ],
    ["Rein's note about dropped output is skipped", "[12 earlier characters dropped]\n", ""],
    ["nothing printed", "", ""],
  ])("%s", (_name, output, expected) => {
    expect(errorLine(output)).toBe(expected);
  });

  it("finds the error at the end of a long output", () => {
    expect(errorLine("progress\n".repeat(100_000) + "killed by OOM\n")).toBe("killed by OOM");
  });
});

describe("excerptOf", () => {
  it.each([
    ["collapses whitespace and control characters", "a\n\n  b\u0000c", "a b c"],
    ["drops colour codes", "\u001b[1mbold\u001b[0m", "bold"],
    ["cuts at 200 characters with an ellipsis", "x".repeat(1000), "x".repeat(199) + "…"],
    ["keeps a short text as it is", "awk: line 3: not a number", "awk: line 3: not a number"],
  ])("%s", (_name, input, expected) => {
    expect(excerptOf(input)).toBe(expected);
  });
});

describe("signaturePart", () => {
  it.each([
    ["a tool name stays", "read_file", "read_file"],
    ["separators and spaces become _", "a|b c/d", "a_b_c_d"],
    ["at most 64 characters", "t".repeat(100), "t".repeat(64)],
    ["never empty", "", "_"],
  ])("%s", (_name, input, expected) => {
    expect(signaturePart(input)).toBe(expected);
  });
});
