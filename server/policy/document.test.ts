// parsePolicy: every bad document gets a clear error with its line, and
// nothing is compiled from it.
import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY, parsePolicy, type PolicyError } from "./index";

function errorsOf(source: string): PolicyError[] {
  const r = parsePolicy(source);
  if (r.ok) throw new Error("expected the policy to be refused");
  return r.errors;
}

const rule = (body: string) =>
  `rules:\n  - name: first\n    tool: shell\n    decision: allow\n  - ${body.trim().replace(/\n/g, "\n    ")}\n`;

describe("parsePolicy accepts", () => {
  it("the default policy", () => {
    const r = parsePolicy(DEFAULT_POLICY, 1);
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.policy.version).toBe(1);
      expect(r.policy.ruleCount).toBe(11);
      expect(r.policy.levels.tool.map((x) => x.name)).toEqual([
        "deploys, pushes and forced deletes need approval",
        "publishing can be vetoed",
        "code given inline to an interpreter needs approval (the rules cannot read what it runs)",
        "built-in workspace tools",
        "browser tools",
        "self-improvement - the improver's tools, skills and runtime tools",
        "reviewed changes - an agent proposes, its checks and an approver decide",
        "MCP tools an admin turned on",
        "memory - remember and recall",
        "remote A2A agents an admin added",
        "hosted agents' other actions",
      ]);
    }
  });

  it("an empty list of rules (everything is denied) and a draft gets version 0", () => {
    const r = parsePolicy("rules: []\n");
    expect(r.ok && r.policy.ruleCount).toBe(0);
    expect(r.ok && r.policy.version).toBe(0);
  });

  it("every scope, matcher and ask field, with environment as another name for tier", () => {
    const r = parsePolicy(`rules:
  - name: everything
    actor: [alice@example.com, user-1]
    team: payments
    tool: ["browser_*", shell]
    args:
      command: { pattern: "^git" }
      a: plain
      b: { equals: 3 }
      c: { prefix: x }
      d: { contains: y }
      e: { oneOf: [1, two, true] }
      options.force: true
    environment: [T1, T2]
    decision: ask
    ask: { kind: veto, role: admin, ttl: 1h30m }
`);
    expect(r).toMatchObject({ ok: true });
  });

  it("puts each rule in the level of the first scope it names", () => {
    const r = parsePolicy(`rules:
  - { tier: T1, tool: shell, decision: allow }
  - { tool: shell, team: a, decision: allow }
  - { tier: T2, decision: deny }
  - { team: b, actor: x, decision: deny }
`);
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const levelOf = Object.fromEntries(Object.entries(r.policy.levels).flatMap(([level, rules]) => rules.map((x) => [x.index, level])));
    expect(levelOf).toEqual({ 0: "tool", 1: "team", 2: "environment", 3: "actor" });
  });
});

describe("parsePolicy refuses", () => {
  it.each<[string, string, number, string[]]>([
    ["broken YAML indentation", "rules:\n  - tool: shell\n   decision: allow\n", 3, ["YAML"]],
    ["an unclosed flow list", "rules: [\n", 2, ["YAML"]],
    ["a duplicate key", rule("tool: shell\ntool: other\ndecision: allow"), 6, ["YAML", "unique"]],
    [
      "an unknown rule key, suggesting the right one",
      rule("tool: shell\ndecison: allow"),
      6,
      ["rule 2", 'unknown key "decison"', 'did you mean "decision"', "allowed: name, actor"],
    ],
    ["an unknown top-level key", "rules: []\npolicy: strict\n", 2, ['unknown key "policy"', "allowed: rules"]],
    [
      "an unknown ask key",
      rule("tool: shell\ndecision: ask\nask: { kind: approve, timeout: 5m }"),
      7,
      ["rule 2", 'unknown key "timeout"', "allowed: kind, role, ttl"],
    ],
    [
      "a bad regex",
      rule("tool: shell\nargs:\n  command: { pattern: 'git (push' }\ndecision: ask"),
      7,
      ["rule 2, args.command", "not a valid regular expression", "missing closing )"],
    ],
    [
      "a regex that needs backtracking",
      rule("tool: shell\nargs:\n  command: { pattern: '(a)\\1' }\ndecision: ask"),
      7,
      ["rule 2, args.command", "not a valid regular expression", "no backreferences"],
    ],
    ["a bad decision", rule("tool: shell\ndecision: permit"), 6, ["rule 2, decision", 'must be allow, deny or ask, not "permit"']],
    ["a missing decision", rule("tool: shell"), 5, ["rule 2, decision", "missing"]],
    ["a rule without any scope", rule("name: nothing\ndecision: allow"), 5, ["rule 2", "names none of actor, team, tool, tier"]],
    ["ask with an allow", rule("tool: shell\ndecision: allow\nask: { kind: veto }"), 7, ["rule 2, ask", "only goes with decision: ask"]],
    [
      "a bad ask kind",
      rule("tool: shell\ndecision: ask\nask: { kind: maybe }"),
      7,
      ["rule 2, ask.kind", "approve, choose, provide, veto", '"maybe"'],
    ],
    ["a bad ask role", rule("tool: shell\ndecision: ask\nask: { role: boss }"), 7, ["rule 2, ask.role", "operator, approver, admin"]],
    ["a bad ttl", rule("tool: shell\ndecision: ask\nask: { ttl: soon }"), 7, ["rule 2, ask.ttl", "duration like"]],
    ["a zero ttl", rule("tool: shell\ndecision: ask\nask: { ttl: 0 }"), 7, ["ask.ttl"]],
    ["tier and environment together", rule("tier: T1\nenvironment: T2\ndecision: deny"), 6, ["rule 2, environment", "not both"]],
    ["args without a tool", rule("team: a\nargs: { x: 1 }\ndecision: deny"), 6, ["rule 2, args", "need a tool"]],
    [
      "a matcher with two kinds",
      rule("tool: shell\nargs: { command: { prefix: a, contains: b } }\ndecision: deny"),
      6,
      ["rule 2, args.command", "exactly one"],
    ],
    ["an unknown matcher", rule("tool: shell\nargs: { command: { startsWith: a } }\ndecision: deny"), 6, ['unknown matcher "startsWith"']],
    ["an empty oneOf", rule("tool: shell\nargs: { command: { oneOf: [] } }\ndecision: deny"), 6, ["oneOf must be a non-empty list"]],
    ["a list as a matcher", rule("tool: shell\nargs: { command: [a, b] }\ndecision: deny"), 6, ["not a list"]],
    ["a number as a tool", rule("tool: 5\ndecision: deny"), 5, ["rule 2, tool", "tool name or glob"]],
    ["an empty tool list", rule("tool: []\ndecision: deny"), 5, ["rule 2, tool"]],
    ["a rule that is a string", "rules:\n  - allow everything\n", 2, ["rule 1", "must be a mapping"]],
    ["rules that are not a list", "rules: 3\n", 1, ["rules", "must be a list"]],
    ["a document that is a list", "- a\n- b\n", 1, ["must be a mapping with a rules: list"]],
    ["a document without rules", "# nothing here\n", 1, ["empty"]],
  ])("%s", (_what, source, line, parts) => {
    const errors = errorsOf(source);
    const hit = errors.find((e) => parts.every((p) => e.message.includes(p)));
    expect(hit, `no error containing ${JSON.stringify(parts)} in ${JSON.stringify(errors)}`).toBeDefined();
    expect(hit!.line).toBe(line);
  });

  it("reports several errors at once, in line order", () => {
    const errors = errorsOf(`rules:
  - tool: shell
    decision: permit
  - tool: shell
    args: { command: { pattern: "(" } }
    decision: ask
`);
    expect(errors.map((e) => e.line)).toEqual([3, 5]);
  });

  it("a document over the size limit", () => {
    const errors = errorsOf(`rules: []\n#${"x".repeat(200_001)}\n`);
    expect(errors[0].message).toContain("at most");
  });
});
