// evaluate: the cascade (actor > team > tool > environment > default deny),
// first match within a level, every matcher kind, paths, lists and globs.
import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY, decideCall, evaluate, parsePolicy, ruleNumber, type CompiledPolicy, type PolicyInput } from "./index";

function compile(source: string, version = 7): CompiledPolicy {
  const r = parsePolicy(source, version);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.policy;
}

const ALICE = { id: "user-alice", email: "alice@example.com" };
const BOB = { id: "user-bob", email: "bob@example.com" };

function call(over: Partial<PolicyInput> = {}): PolicyInput {
  return { actor: BOB, team: null, tool: "shell", args: { command: "ls" }, tier: "T1", ...over };
}

describe("the cascade", () => {
  // One rule per level, each matching the same call; they are written in the
  // reverse of the cascade order so document order cannot be what decides.
  const CASCADE = `rules:
  - name: env
    tier: T1
    decision: deny
  - name: tool
    tool: shell
    decision: ask
  - name: team
    team: payments
    decision: allow
  - name: actor
    actor: alice@example.com
    decision: deny
`;
  const p = compile(CASCADE);

  it("an actor rule beats team, tool and environment rules", () => {
    expect(evaluate(p, call({ actor: ALICE, team: "payments" }))).toMatchObject({
      effect: "deny",
      level: "actor",
      rule: 3,
      ruleName: "actor",
    });
  });
  it("a team rule beats tool and environment rules", () => {
    expect(evaluate(p, call({ team: "payments" }))).toMatchObject({ effect: "allow", level: "team", rule: 2 });
  });
  it("a tool rule beats an environment rule", () => {
    expect(evaluate(p, call())).toMatchObject({ effect: "ask", level: "tool", rule: 1 });
  });
  it("an environment rule beats the default", () => {
    expect(evaluate(p, call({ tool: "write_file" }))).toMatchObject({ effect: "deny", level: "environment", rule: 0 });
    const allowT2 = compile("rules:\n  - { tier: T2, decision: allow }\n");
    expect(evaluate(allowT2, call({ tier: "T2" }))).toMatchObject({ effect: "allow", level: "environment" });
  });
  it("nothing matching is denied by default, naming the policy version", () => {
    expect(evaluate(p, call({ tool: "write_file", tier: "T3" }))).toEqual({
      effect: "deny",
      level: "default",
      rule: null,
      reason: "no rule matched: default deny",
      policyVersion: 7,
    });
    expect(evaluate(compile("rules: []\n"), call()).effect).toBe("deny");
  });
  it("a rule that does not match lets the next level decide", () => {
    // Alice's rule is only about shell; for write_file her team's rule decides.
    const q = compile(`rules:
  - { actor: alice@example.com, tool: shell, decision: deny }
  - { team: payments, decision: allow }
`);
    expect(evaluate(q, call({ actor: ALICE, team: "payments" }))).toMatchObject({ effect: "deny", level: "actor" });
    expect(evaluate(q, call({ actor: ALICE, team: "payments", tool: "write_file" }))).toMatchObject({ effect: "allow", level: "team" });
    expect(evaluate(q, call({ actor: ALICE, team: null, tool: "write_file" }))).toMatchObject({ effect: "deny", level: "default" });
  });
});

describe("within a level", () => {
  it("the first matching rule in document order decides", () => {
    const p = compile(`rules:
  - { name: specific, tool: shell, args: { command: { prefix: git } }, decision: ask }
  - { name: general, tool: shell, decision: allow }
  - { name: never reached, tool: shell, decision: deny }
`);
    expect(evaluate(p, call({ args: { command: "git status" } }))).toMatchObject({ effect: "ask", rule: 0 });
    expect(evaluate(p, call({ args: { command: "ls" } }))).toMatchObject({ effect: "allow", rule: 1, ruleName: "general" });
  });

  it("a rule matches only when every scope it names matches", () => {
    const p = compile(`rules:
  - { actor: user-alice, team: payments, tool: shell, tier: T2, decision: allow }
`);
    expect(evaluate(p, call({ actor: ALICE, team: "payments", tier: "T2" })).effect).toBe("allow");
    expect(evaluate(p, call({ actor: BOB, team: "payments", tier: "T2" })).effect).toBe("deny");
    expect(evaluate(p, call({ actor: ALICE, team: "other", tier: "T2" })).effect).toBe("deny");
    expect(evaluate(p, call({ actor: ALICE, team: null, tier: "T2" })).effect).toBe("deny");
    expect(evaluate(p, call({ actor: ALICE, team: "payments", tool: "read_file", tier: "T2" })).effect).toBe("deny");
    expect(evaluate(p, call({ actor: ALICE, team: "payments", tier: "T1" })).effect).toBe("deny");
  });
});

describe("scopes", () => {
  it("actor by email (any case) or by user id, or a list", () => {
    const p = compile(`rules:
  - { actor: ALICE@Example.com, decision: allow }
  - { actor: [nobody, user-bob], decision: ask }
`);
    expect(evaluate(p, call({ actor: ALICE })).effect).toBe("allow");
    expect(evaluate(p, call({ actor: { id: "user-alice" } })).effect).toBe("deny"); // no email, id does not match
    expect(evaluate(p, call({ actor: { id: "user-bob" } })).effect).toBe("ask");
  });

  it("team by name or a list; no team matches no team rule", () => {
    const p = compile("rules:\n  - { team: [payments, growth], decision: allow }\n");
    expect(evaluate(p, call({ team: "growth" })).effect).toBe("allow");
    expect(evaluate(p, call({ team: "Growth" })).effect).toBe("deny");
    expect(evaluate(p, call({ team: null })).effect).toBe("deny");
  });

  it("tool by name, glob, ? or a list; * matches every tool", () => {
    const p = compile(`rules:
  - { tool: "browser_*", decision: allow }
  - { tool: [read_file, "list_?iles"], decision: ask }
  - { tool: "*", tier: T9, decision: deny }
`);
    expect(evaluate(p, call({ tool: "browser_click" })).effect).toBe("allow");
    expect(evaluate(p, call({ tool: "browser_" })).effect).toBe("allow");
    expect(evaluate(p, call({ tool: "my_browser_click" })).level).toBe("default");
    expect(evaluate(p, call({ tool: "list_files" })).effect).toBe("ask");
    expect(evaluate(p, call({ tool: "read_file" })).effect).toBe("ask");
    expect(evaluate(p, call({ tool: "read_files" })).level).toBe("default");
    expect(evaluate(p, call({ tool: "anything", tier: "T9" }))).toMatchObject({ effect: "deny", level: "tool", rule: 2 });
  });

  it("glob characters other than * and ? are literal", () => {
    const p = compile(`rules:\n  - { tool: "a.b(c)*", decision: allow }\n`);
    expect(evaluate(p, call({ tool: "a.b(c)x" })).effect).toBe("allow");
    expect(evaluate(p, call({ tool: "aXb(c)x" })).effect).toBe("deny");
  });

  it("tier by name (any case), list or glob; environment is the same key", () => {
    const p = compile(`rules:
  - { environment: [t0, T1], decision: allow }
  - { tier: "T3*", decision: ask }
`);
    expect(evaluate(p, call({ tier: "T0" })).effect).toBe("allow");
    expect(evaluate(p, call({ tier: "T1" })).effect).toBe("allow");
    expect(evaluate(p, call({ tier: "T3-gpu" })).effect).toBe("ask");
    expect(evaluate(p, call({ tier: "T2" })).effect).toBe("deny");
  });
});

describe("argument matchers", () => {
  const on = (matcher: string) => compile(`rules:\n  - tool: shell\n    args: { v: ${matcher} }\n    decision: allow\n`);
  const allows = (p: CompiledPolicy, v: unknown) => evaluate(p, call({ args: { v } })).effect === "allow";

  it("a plain string equals", () => {
    const p = on("main");
    expect(allows(p, "main")).toBe(true);
    expect(allows(p, "main2")).toBe(false);
  });
  it("equals, also for numbers and booleans by their JSON text", () => {
    expect(allows(on("{ equals: origin }"), "origin")).toBe(true);
    expect(allows(on("{ equals: 3 }"), 3)).toBe(true);
    expect(allows(on("{ equals: 3 }"), "3")).toBe(true);
    expect(allows(on("{ equals: 3 }"), 4)).toBe(false);
    expect(allows(on("true"), true)).toBe(true);
    expect(allows(on("true"), false)).toBe(false);
    expect(allows(on("null"), null)).toBe(true);
  });
  it("pattern is an unanchored JS regex", () => {
    const p = on(`{ pattern: '\\bgit\\s+push\\b' }`);
    expect(allows(p, "cd x && git  push origin")).toBe(true);
    expect(allows(p, "git pushy")).toBe(false);
    expect(allows(on(`{ pattern: "^ls$" }`), "ls -la")).toBe(false);
  });
  it("prefix and contains", () => {
    expect(allows(on("{ prefix: npm }"), "npm test")).toBe(true);
    expect(allows(on("{ prefix: npm }"), "pnpm test")).toBe(false);
    expect(allows(on("{ contains: '--force' }"), "git push --force")).toBe(true);
    expect(allows(on("{ contains: '--force' }"), "git push")).toBe(false);
  });
  it("oneOf", () => {
    const p = on("{ oneOf: [main, 2, false] }");
    expect(allows(p, "main")).toBe(true);
    expect(allows(p, 2)).toBe(true);
    expect(allows(p, false)).toBe(true);
    expect(allows(p, "dev")).toBe(false);
  });
  it("objects and lists are matched against their JSON text", () => {
    expect(allows(on(`{ contains: '"force":true' }`), { force: true })).toBe(true);
    expect(allows(on(`{ pattern: '^\\["a",' }`), ["a", "b"])).toBe(true);
  });
  it("a missing argument never matches, even an equals on null", () => {
    const p = on("null");
    expect(evaluate(p, call({ args: {} })).effect).toBe("deny");
    expect(evaluate(p, call({ args: "not an object" })).effect).toBe("deny");
    expect(evaluate(p, call({ args: null })).effect).toBe("deny");
  });
  it("dotted paths reach into objects (and lists by index)", () => {
    const p = compile(`rules:
  - tool: git
    args:
      options.force: true
      refs.0: { prefix: "refs/heads/" }
    decision: deny
`);
    const git = (args: unknown) => evaluate(p, call({ tool: "git", args })).effect;
    expect(git({ options: { force: true }, refs: ["refs/heads/main"] })).toBe("deny");
    expect(git({ options: { force: false }, refs: ["refs/heads/main"] })).toBe("deny"); // default deny, not the rule
    expect(evaluate(p, call({ tool: "git", args: { options: { force: false }, refs: ["refs/heads/main"] } })).level).toBe("default");
    expect(evaluate(p, call({ tool: "git", args: { options: { force: true }, refs: ["refs/heads/main"] } })).level).toBe("tool");
    expect(evaluate(p, call({ tool: "git", args: { "options.force": true, refs: ["refs/heads/x"] } })).level).toBe("default");
    expect(evaluate(p, call({ tool: "git", args: { options: { force: true } } })).level).toBe("default");
  });
  it("every matcher of a rule must match", () => {
    const p = compile(`rules:
  - { tool: shell, args: { command: { prefix: git }, cwd: repo }, decision: allow }
`);
    expect(evaluate(p, call({ args: { command: "git log", cwd: "repo" } })).effect).toBe("allow");
    expect(evaluate(p, call({ args: { command: "git log", cwd: "other" } })).effect).toBe("deny");
    expect(evaluate(p, call({ args: { command: "ls", cwd: "repo" } })).effect).toBe("deny");
  });
  it("does not reach into inherited properties", () => {
    const p = compile(`rules:\n  - { tool: shell, args: { constructor.name: Object }, decision: allow }\n`);
    expect(evaluate(p, call({ args: {} })).effect).toBe("deny");
  });
});

describe("verdicts", () => {
  it("ask defaults to approve by an approver without a ttl", () => {
    const p = compile("rules:\n  - { tool: shell, decision: ask }\n");
    const v = evaluate(p, call());
    expect(v.ask).toEqual({ kind: "approve", role: "approver" });
    expect(v.reason).toBe("rule 1 (tool level) asks for approval");
  });
  it("ask keeps its kind, role and ttl in seconds", () => {
    const p = compile(`rules:
  - { tool: a, decision: ask, ask: { kind: veto, ttl: 2m } }
  - { tool: b, decision: ask, ask: { kind: choose, role: operator, ttl: 1d2h } }
  - { tool: c, decision: ask, ask: { kind: provide, role: admin, ttl: 45 } }
`);
    expect(evaluate(p, call({ tool: "a" })).ask).toEqual({ kind: "veto", role: "approver", ttlSec: 120 });
    expect(evaluate(p, call({ tool: "b" })).ask).toEqual({ kind: "choose", role: "operator", ttlSec: 93_600 });
    expect(evaluate(p, call({ tool: "c" })).ask).toEqual({ kind: "provide", role: "admin", ttlSec: 45 });
  });
  it("allow and deny carry no ask; the reason names the rule, its level and what it does", () => {
    const p = compile(`rules:
  - { name: risky shell commands need approval, tool: shell, args: { command: { contains: push } }, decision: ask }
  - { name: no secrets, team: payments, tool: read_file, decision: deny }
`);
    expect(evaluate(p, call({ args: { command: "git push" } })).reason).toBe(
      'rule 1 "risky shell commands need approval" (tool level) asks for approval',
    );
    const denied = evaluate(p, call({ team: "payments", tool: "read_file" }));
    expect(denied).toEqual({
      effect: "deny",
      level: "team",
      rule: 1,
      ruleName: "no secrets",
      reason: 'rule 2 "no secrets" (team level) denies the call',
      policyVersion: 7,
    });
  });
  it("the rule number people read (ruleNumber, what the audit log stores) is the one the reason names", () => {
    const p = compile(`rules:
  - { tool: a, decision: allow }
  - { name: second, tool: b, decision: deny }
  - { team: payments, tool: c, decision: ask }
  - { actor: alice@example.com, tool: d, decision: deny }
`);
    const verdicts = [
      call({ tool: "a" }),
      call({ tool: "b" }),
      call({ team: "payments", tool: "c" }),
      call({ actor: ALICE, tool: "d" }),
    ].map((c) => evaluate(p, c));
    expect(verdicts.map(ruleNumber)).toEqual([1, 2, 3, 4]);
    for (const v of verdicts) expect(v.reason).toMatch(new RegExp(`^rule ${ruleNumber(v)} `));
    expect(ruleNumber(evaluate(p, call({ tool: "zzz" })))).toBeNull();
  });
  it("a verdict is a copy: changing it does not change the next one", () => {
    const p = compile("rules:\n  - { tool: shell, decision: ask }\n");
    const v = evaluate(p, call());
    v.effect = "allow";
    v.ask!.kind = "veto";
    expect(evaluate(p, call())).toMatchObject({ effect: "ask", ask: { kind: "approve" } });
  });
});

describe("DEFAULT_POLICY", () => {
  const p = compile(DEFAULT_POLICY, 1);
  // Shell calls are decided as the gate does it: the command line and each command in it (decide.ts).
  const shell = (command: string) => decideCall(p, call({ args: { command } }));

  it.each([
    "read_file",
    "write_file",
    "edit_file",
    "list_files",
    "search",
    "read_output",
    "handoff",
    "update_tasks",
    "ask_human",
    "upgrade_tier",
    "browser_click",
    "browser_navigate",
  ])("allows %s", (tool) => {
    expect(evaluate(p, call({ tool, args: {} }))).toMatchObject({ effect: "allow", level: "tool", policyVersion: 1 });
  });

  it("allows ordinary shell commands", async () => {
    for (const c of ["ls -la", "npm test", "git status", "git commit -m 'push it'", "cat deployment.md", "rm -r build"]) {
      expect((await shell(c)).effect, c).toBe("allow");
    }
  });

  it("asks an approver before deploy scripts, git push and rm -rf", async () => {
    for (const c of [
      "git push origin main",
      "./deploy.sh prod",
      "deploy --all",
      "make && ./deploy",
      "cd app; deploy",
      "rm -rf node_modules",
      "git  push",
    ]) {
      expect(await shell(c), c).toMatchObject({ effect: "ask", ask: { kind: "approve", role: "approver" }, rule: 0 });
    }
  });

  it("opens a 2-minute veto window before publishing", async () => {
    expect(await shell("npm publish")).toMatchObject({ effect: "ask", ask: { kind: "veto", ttlSec: 120 }, rule: 1 });
  });

  it.each([
    "propose_runtime_tool",
    "test_runtime_tool",
    "propose_skill",
    "load_skill",
    "runtime_tool",
    "extension_tool",
    "propose_extension",
  ])("allows the self-improvement tool %s", (tool) => {
    expect(evaluate(p, call({ tool, args: {} }))).toMatchObject({ effect: "allow", level: "tool" });
  });

  it("denies tools it does not know", () => {
    expect(evaluate(p, call({ tool: "http_request", args: {} }))).toMatchObject({ effect: "deny", level: "default" });
  });
});
