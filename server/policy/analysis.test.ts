// unreachableRules: a warning only for a rule that certainly never matches.
import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY, parsePolicy } from "./index";
import { matcherCovers, MAX_ANALYZED_RULES } from "./analysis";

/** The warnings of a policy written as one rule per line (flow mappings). */
function warningsOf(...rules: string[]): string[] {
  const r = parsePolicy(`rules:\n${rules.map((x) => `  - ${x}\n`).join("")}`);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.warnings.map((w) => `line ${w.line}: ${w.message}`);
}

describe("unreachableRules warns", () => {
  it.each([
    [
      "the same tool twice",
      ["{ tool: shell, decision: allow }", "{ tool: shell, decision: deny }"],
      "line 3: rule 2 can never match: rule 1 matches every call it matches and comes before it",
    ],
    [
      "a narrower argument after a broader one",
      ["{ tool: shell, decision: allow }", "{ tool: shell, args: { command: { prefix: rm } }, decision: deny }"],
      "line 3: rule 2 can never match",
    ],
    [
      "a tool glob covering a name",
      ['{ tool: "browser_*", decision: allow }', "{ tool: browser_click, decision: ask }"],
      "line 3: rule 2 can never match",
    ],
    [
      "every tool by *",
      ['{ tool: "*", decision: allow }', "{ tier: T3, decision: deny }"],
      "rule 1 matches every call it matches and is at the tool level, checked before the environment level",
    ],
    [
      "an earlier level in a later line",
      ["{ tier: T1, decision: deny }", '{ tool: "*", decision: allow }'],
      "line 2: rule 1 can never match: rule 2 matches every call it matches and is at the tool level",
    ],
    [
      "actors compare without case",
      ["{ actor: [bob@example.com, alice@example.com], decision: allow }", "{ actor: BOB@example.com, tool: shell, decision: deny }"],
      "line 3: rule 2 can never match",
    ],
    ["tiers compare without case", ["{ tier: t1, decision: allow }", "{ tier: [T1], decision: deny }"], "line 3: rule 2 can never match"],
    [
      "names, a subset of earlier names",
      ["{ tool: [a, b, c], decision: allow }", "{ tool: [c, a], decision: deny }"],
      "line 3: rule 2 can never match",
    ],
    [
      "equals inside an earlier prefix",
      [
        "{ tool: shell, args: { command: { prefix: git } }, decision: ask }",
        "{ tool: shell, args: { command: git push }, decision: deny }",
      ],
      "line 3: rule 2 can never match",
    ],
    [
      "values an earlier pattern accepts",
      [
        "{ tool: shell, args: { command: { pattern: '^(ls|pwd)$' } }, decision: allow }",
        "{ tool: shell, args: { command: { oneOf: [ls, pwd] } }, decision: deny }",
      ],
      "line 3: rule 2 can never match",
    ],
    [
      "a prefix containing an earlier contains",
      [
        "{ tool: shell, args: { command: { contains: rm } }, decision: deny }",
        "{ tool: shell, args: { command: { prefix: sudo rm } }, decision: ask }",
      ],
      "line 3: rule 2 can never match",
    ],
    [
      "an argument inside a plain value",
      ["{ tool: http, args: { body: plain, body.url: x }, decision: allow }"],
      'line 2: rule 1 can never match: argument "body.url" needs "body" to be an object, but "body" must be "plain"',
    ],
    [
      "a named rule, by its name",
      ["{ name: all shell, tool: shell, decision: allow }", "{ name: no rm, tool: shell, decision: deny }"],
      'line 3: rule 2 "no rm" can never match: rule 1 "all shell" matches every call it matches',
    ],
  ])("%s", (_, rules, expected) => {
    const warnings = warningsOf(...rules);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(expected);
  });
});

describe("unreachableRules stays silent when a rule can match", () => {
  it.each([
    ["the default policy", DEFAULT_POLICY.split("\n")],
    ["different tools", ["{ tool: shell, decision: allow }", "{ tool: write_file, decision: deny }"]],
    [
      "a broader rule after a narrower one",
      ["{ tool: shell, args: { command: { prefix: rm } }, decision: deny }", "{ tool: shell, decision: allow }"],
    ],
    ["a later glob an earlier glob may not cover", ['{ tool: "browser_*", decision: allow }', '{ tool: "browser_c*", decision: ask }']],
    ["a later rule with fewer names", ["{ tool: [a], decision: allow }", "{ tool: [a, b], decision: deny }"]],
    [
      "an earlier rule that needs an argument the later one does not",
      ["{ tool: shell, args: { command: ls }, decision: allow }", "{ tool: shell, decision: deny }"],
    ],
    ["team * does not cover runs without a team", ['{ team: "*", decision: allow }', "{ tool: shell, decision: deny }"]],
    [
      "different patterns (their overlap is not certain)",
      [
        "{ tool: shell, args: { command: { pattern: '^git' } }, decision: ask }",
        "{ tool: shell, args: { command: { pattern: '^git push' } }, decision: deny }",
      ],
    ],
    [
      "a contains that a pattern may not contain",
      [
        "{ tool: shell, args: { command: { contains: rm } }, decision: deny }",
        "{ tool: shell, args: { command: { pattern: 'r.m' } }, decision: ask }",
      ],
    ],
    ["an argument inside a value that can be an object", ["{ tool: http, args: { body: { contains: x }, body.url: y }, decision: allow }"]],
    [
      "a different actor at the actor level",
      ["{ actor: alice@example.com, decision: allow }", "{ actor: bob@example.com, tool: shell, decision: deny }"],
    ],
  ])("%s", (name, rules) => {
    const source = name === "the default policy" ? DEFAULT_POLICY : `rules:\n${rules.map((x) => `  - ${x}\n`).join("")}`;
    const r = parsePolicy(source);
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(r.warnings).toEqual([]);
  });

  it("skips the pairwise check for a policy with very many rules", () => {
    const rules = Array.from({ length: MAX_ANALYZED_RULES + 1 }, () => "  - { tool: shell, decision: allow }\n").join("");
    const r = parsePolicy(`rules:\n${rules}`);
    expect(r.ok && r.warnings).toEqual([]);
  });

  it("does not hang on a pattern built to backtrack", () => {
    const evil = "(a+)+$";
    const r = parsePolicy(
      `rules:\n  - { tool: t, args: { x: { pattern: '${evil}' } }, decision: deny }\n  - { tool: t, args: { x: '${"a".repeat(5_000)}!' }, decision: ask }\n`,
    );
    expect(r.ok && r.warnings).toEqual([]);
  });
});

describe("matcherCovers", () => {
  it.each([
    [{ equals: "a" }, { equals: "a" }, true],
    [{ equals: "a" }, { equals: "b" }, false],
    [{ oneOf: ["a", "b"] }, { equals: "b" }, true],
    [{ equals: "a" }, { oneOf: ["a", "b"] }, false],
    [{ prefix: "gi" }, { prefix: "git" }, true],
    [{ prefix: "git" }, { prefix: "gi" }, false],
    [{ contains: "x" }, { contains: "axb" }, true],
    [{ contains: "x" }, { prefix: "y" }, false],
    [{ pattern: "a" }, { pattern: "a" }, true],
    [{ pattern: "a" }, { prefix: "a" }, false],
    [{ prefix: "a" }, { pattern: "^a" }, false],
  ] as const)("%j covers %j: %s", (earlier, later, expected) => {
    expect(matcherCovers(earlier as never, later as never)).toBe(expected);
  });
});
