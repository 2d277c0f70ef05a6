// Attack suite, issue class 7: a program known only when it runs ($CMD, the {}
// of find -exec, xargs -I) is asked about whenever a rule that asks or denies
// could apply to the call, whatever level or scope the rule has; a policy that
// allows every shell call has no reason to ask.
import { describe, expect, it } from "vitest";
import { decideCall, parsePolicy } from "@/server/policy";

function compile(source: string) {
  const parsed = parsePolicy(source, 1);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.policy;
}

const call = (command: string, actor = "bob@example.com", team: string | null = null) => ({
  actor: { id: actor, email: actor },
  team,
  tool: "shell",
  args: { command },
  tier: "T1",
});
const UNKNOWN = [
  "$CMD production",
  "find . -name deploy.sh -exec {} production \\;",
  "xargs -I{} sh {} production <<< deploy.sh",
  "git -c alias.p=push p origin main",
];

describe("a program known only when it runs", () => {
  it.each(UNKNOWN)("%s asks when an actor-level deny rule could apply", async (command) => {
    const policy = compile(`rules:
  - actor: alice@example.com
    tool: shell
    args: { command: { pattern: '^git push' } }
    decision: deny
  - tool: shell
    decision: allow
`);
    expect((await decideCall(policy, call(command, "alice@example.com"))).effect).toBe("ask");
  });

  it.each(UNKNOWN)("%s asks when a team's ask rule could apply", async (command) => {
    const policy = compile(`rules:
  - team: ops
    tool: shell
    args: { command: { contains: deploy } }
    decision: ask
  - tool: shell
    decision: allow
`);
    expect((await decideCall(policy, call(command, "bob@example.com", "ops"))).effect).toBe("ask");
  });

  it.each(UNKNOWN)("%s runs where no rule that asks or denies could apply", async (command) => {
    const policy = compile(`rules:
  - actor: alice@example.com
    tool: shell
    args: { command: { pattern: '^git push' } }
    decision: deny
  - tool: shell
    decision: allow
`);
    expect((await decideCall(policy, call(command, "bob@example.com"))).effect).toBe("allow");
    expect((await decideCall(compile(`rules:\n  - tool: shell\n    decision: allow\n`), call(command))).effect).toBe("allow");
  });

  it("a rule that allows every command before an ask rule leaves nothing to ask", async () => {
    const policy = compile(`rules:
  - actor: bob@example.com
    tool: shell
    decision: allow
  - tool: shell
    args: { command: { pattern: '^git push' } }
    decision: ask
  - tool: shell
    decision: allow
`);
    expect((await decideCall(policy, call("$CMD production"))).effect).toBe("allow");
    expect((await decideCall(policy, call("$CMD production", "carol@example.com"))).effect).toBe("ask");
  });
});
