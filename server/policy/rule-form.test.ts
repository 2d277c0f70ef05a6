// The rule form and the YAML edit the same document: document → rules → YAML
// gives the same policy, form edits keep what they do not touch (comments,
// spacing, quoting) byte for byte, and reordering moves a rule with its comments.
import { parseDocument } from "yaml";
import { describe, expect, it } from "vitest";
import { addRule, moveRule, policyYaml, removeRule, updateRule } from "@/lib/policy-rule-edits";
import { readRules, type RuleFields, type RuleView } from "@/lib/policy-rules";
import { ASK_KINDS, ASK_ROLES, DEFAULT_POLICY, EFFECTS, parsePolicy, policyGrammar } from "./index";
import { PolicySchema } from "./schema";

const ORDER = policyGrammar().ruleKeys;
const js = (source: string) => parseDocument(source).toJS() as { rules: unknown[] };
const normalized = (source: string) => PolicySchema.parse(js(source));

function rulesOf(source: string): RuleView[] {
  const read = readRules(source);
  if (!read.ok) throw new Error(read.message);
  return read.rules;
}

const fields = ({ otherKeys: _o, lines: _l, ...rest }: RuleView): RuleFields => rest;

const EVERYTHING = `# a comment at the top
rules:
  # before the first rule
  - name: everything
    actor: [alice@example.com, user-1]
    team: payments
    tool: ["browser_*", shell] # two tools
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

  - { tier: T3, decision: deny } # flow style
`;

describe("the policy grammar", () => {
  it("comes from the schema", () => {
    const g = policyGrammar();
    expect(g.decisions).toEqual([...EFFECTS]);
    expect(g.askKinds).toEqual([...ASK_KINDS]);
    expect(g.askRoles).toEqual([...ASK_ROLES]);
    expect(g.askDefaults).toEqual({ kind: "approve", role: "approver" });
    expect(g.matchers).toEqual(["equals", "pattern", "prefix", "contains", "oneOf"]);
    expect(g.ruleKeys.slice(0, 4)).toEqual(["name", "actor", "team", "tool"]);
  });
});

describe("document → rules → YAML", () => {
  it.each([
    ["the default policy", DEFAULT_POLICY],
    ["every key, matcher and ask field", EVERYTHING],
  ])("%s gives the same policy", (_what, source) => {
    const rules = rulesOf(source);
    const written = policyYaml(rules.map(fields), ORDER);
    expect(parsePolicy(written).ok).toBe(true);
    expect(normalized(written)).toEqual(normalized(source));
    expect(rulesOf(written).map(fields)).toEqual(rules.map(fields));
  });

  it("the default policy's rules read as the form shows them", () => {
    const [first, , , builtIn] = rulesOf(DEFAULT_POLICY);
    expect(first).toMatchObject({
      name: "deploys, pushes and forced deletes need approval",
      tool: ["shell"],
      decision: "ask",
      ask: { kind: "approve", role: "approver", ttl: "" },
    });
    expect(first.args).toEqual([{ name: "command", kind: "pattern", values: [expect.stringContaining("git push")] }]);
    expect(builtIn.tool).toContain("upgrade_tier");
    expect(rulesOf(EVERYTHING)[0]).toMatchObject({ tierKey: "environment", tier: ["T1", "T2"], team: ["payments"] });
  });
});

describe("form edits keep what they do not touch", () => {
  it("writing a rule's own fields back changes nothing", () => {
    for (const source of [DEFAULT_POLICY, EVERYTHING]) {
      rulesOf(source).forEach((rule, i) => {
        const r = updateRule(source, i, fields(rule), ORDER);
        expect(r.source).toBe(source);
        expect(r.lostComments).toEqual([]);
      });
    }
  });

  it("a changed field changes its line only", () => {
    const r = updateRule(DEFAULT_POLICY, 3, { name: "workspace tools" }, ORDER);
    const before = DEFAULT_POLICY.split("\n");
    const after = r.source.split("\n");
    expect(after.length).toBe(before.length);
    expect(after.filter((line, i) => line !== before[i])).toEqual(["  - name: workspace tools"]);
  });

  it("a decision other than ask drops the ask, and a new key goes where the schema puts it", () => {
    const r = updateRule(DEFAULT_POLICY, 0, { decision: "deny", actor: ["bob@example.com"] }, ORDER);
    const rule = js(r.source).rules[0] as Record<string, unknown>;
    expect(Object.keys(rule)).toEqual(["name", "actor", "tool", "args", "decision"]);
    expect(rule.decision).toBe("deny");
    expect(parsePolicy(r.source).ok).toBe(true);
  });

  it("reordering moves a rule with its comments and back again gives the same text", () => {
    const moved = moveRule(EVERYTHING, 1, 0);
    expect(moved.lostComments).toEqual([]);
    expect(js(moved.source).rules).toEqual([js(EVERYTHING).rules[1], js(EVERYTHING).rules[0]]);
    expect(moved.source).toContain("- { tier: T3, decision: deny } # flow style");
    expect(moveRule(moved.source, 0, 1).source).toBe(EVERYTHING);

    const down = moveRule(DEFAULT_POLICY, 0, 4);
    const names = rulesOf(down.source).map((r) => r.name);
    expect(names[4]).toBe("deploys, pushes and forced deletes need approval");
    expect(names[0]).toBe("publishing can be vetoed");
    expect(down.lostComments).toEqual([]);
    expect(parsePolicy(down.source).ok).toBe(true);
    expect(moveRule(down.source, 4, 0).source).toBe(DEFAULT_POLICY);
  });

  it("adding a rule appends it, and removing it gives the same text", () => {
    const rule: RuleFields = {
      name: "no pushes",
      actor: [],
      team: [],
      tool: ["shell"],
      tierKey: "tier",
      tier: [],
      args: [{ name: "command", kind: "prefix", values: ["git push"] }],
      decision: "deny",
      ask: null,
    };
    const added = addRule(DEFAULT_POLICY, rule, ORDER);
    expect(added.index).toBe(11);
    expect(added.source.startsWith(DEFAULT_POLICY)).toBe(true);
    expect(added.source.slice(DEFAULT_POLICY.length)).toBe(
      "\n  - name: no pushes\n    tool: shell\n    args:\n      command: { prefix: git push }\n    decision: deny\n",
    );
    expect(fields(rulesOf(added.source)[11])).toEqual(rule);
    expect(removeRule(added.source, 11).source).toBe(DEFAULT_POLICY);
    // Into an empty list, which becomes a block list.
    expect(addRule("rules: []\n", rule, ORDER).source).toBe(
      "rules:\n  - name: no pushes\n    tool: shell\n    args:\n      command: { prefix: git push }\n    decision: deny\n",
    );
  });

  it("says which comment an edit could not keep", () => {
    const r = updateRule(EVERYTHING, 0, { tool: ["shell"] }, ORDER);
    expect(r.lostComments).toEqual(["two tools"]);
    expect(removeRule(EVERYTHING, 1).lostComments).toEqual(["flow style"]);
  });

  it("switches between tier and environment without writing both", () => {
    const r = updateRule(EVERYTHING, 0, { tierKey: "tier" }, ORDER);
    expect(r.source).toContain("    tier: [ T1, T2 ]\n");
    expect(r.source).not.toContain("environment");
  });
});

describe("what the form cannot show", () => {
  it.each([
    ["broken YAML", "rules:\n  - tool: shell\n   decision: allow\n", 3],
    ["a rule that is text", "rules:\n  - allow everything\n", 2],
    ["a list as the document", "- a\n", 1],
  ])("%s: says why, with the line", (_what, source, line) => {
    const read = readRules(source);
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.line).toBe(line);
  });

  it("an empty document or rules: [] is an empty list", () => {
    expect(readRules("")).toMatchObject({ ok: true, rules: [] });
    expect(readRules("rules: []\n")).toMatchObject({ ok: true, rules: [] });
  });

  it("keys the form does not know are listed and kept", () => {
    const source = "rules:\n  - tool: shell\n    decison: allow\n";
    expect(rulesOf(source)[0].otherKeys).toEqual(["decison"]);
    expect(updateRule(source, 0, { decision: "deny" }, ORDER).source).toBe(
      "rules:\n  - tool: shell\n    decision: deny\n    decison: allow\n",
    );
  });
});
