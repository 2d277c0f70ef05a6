// Attack suite, issue class 7 (parsing bounds): the shell parser reads what an
// agent writes, so a huge, wide or deeply nested command line is not read to
// the end on the event loop: it is asked about, with a reason a person can read.
import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY, decideCall, parsePolicy } from "@/server/policy";

const parsed = parsePolicy(DEFAULT_POLICY, 1);
if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
const policy = parsed.policy;
const decide = (command: string) => decideCall(policy, { actor: { id: "agent" }, team: null, tool: "shell", args: { command }, tier: "T1" });

describe("command lines too big to check are asked about", () => {
  it.each([
    ["10,000 nested $( )", "echo " + "$(".repeat(10_000) + "x" + ")".repeat(10_000), /nested too deeply/],
    ["10,000 nested subshells", "(".repeat(10_000) + "x" + ")".repeat(10_000), /nested too deeply/],
    ["5,000 wrappers around one program", "nohup ".repeat(5_000) + "ls", /too many to check/],
    ["5,000 commands in a list", "ls;".repeat(5_000), /too many to check/],
    ["one command with 5,000 words", "echo " + "a ".repeat(5_000), /too many to check/],
    ["a 1 MB command", "echo " + "a".repeat(1024 * 1024), /longer than 64 kB/],
  ])("%s", (_name, command, reason) => {
    const verdict = decide(command);
    expect(verdict.effect).toBe("ask");
    expect(verdict.reason).toMatch(reason);
    expect(verdict.reason).not.toMatch(/call stack/);
  });

  it("a large file written with a here-document is still read", () => {
    const body = "def f(x):\n    return [y for y in range(x) if y % 2 == 0]\n".repeat(500);
    expect(decide(`cat > f.py <<'EOF'\n${body}EOF\n`).effect).toBe("allow");
  });
});
