// Attack suite, issue class 7 (parsing bounds): the shell parser reads what an
// agent writes, so a huge, wide or deeply nested command line is not read to
// the end: it is asked about, with a reason a person can read. A long line is
// read off the event loop, and one that takes too long is asked about too.
import { afterAll, describe, expect, it, vi } from "vitest";
import * as patterns from "@/server/patterns";
import { closeCommandReaders, DEFAULT_POLICY, decideCall, parsePolicy } from "@/server/policy";

// Counts the globs and patterns the policy compiles, passing each call through.
vi.mock("@/server/patterns", async (actual) => {
  const real = await actual<typeof import("@/server/patterns")>();
  return { ...real, linearPattern: vi.fn(real.linearPattern) };
});

const parsed = parsePolicy(DEFAULT_POLICY, 1);
if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
const policy = parsed.policy;
const decide = (command: string, readLimitMs?: number) =>
  decideCall(policy, { actor: { id: "agent" }, team: null, tool: "shell", args: { command }, tier: "T1" }, { readLimitMs });

afterAll(() => closeCommandReaders());

describe("command lines too big to check are asked about", () => {
  it.each([
    ["10,000 nested $( )", "echo " + "$(".repeat(10_000) + "x" + ")".repeat(10_000), /nested too deeply/],
    ["10,000 nested subshells", "(".repeat(10_000) + "x" + ")".repeat(10_000), /nested too deeply/],
    ["5,000 wrappers around one program", "nohup ".repeat(5_000) + "ls", /too many to check/],
    ["5,000 commands in a list", "ls;".repeat(5_000), /too many to check/],
    ["one command with 5,000 words", "echo " + "a ".repeat(5_000), /too many to check/],
    ["a 1 MB command", "echo " + "a".repeat(1024 * 1024), /longer than 64 kB/],
  ])("%s", async (_name, command, reason) => {
    // The bounds decide here, not the time limit: a busy machine may read slowly.
    const verdict = await decide(command, 60_000);
    expect(verdict.effect).toBe("ask");
    expect(verdict.reason).toMatch(reason);
    expect(verdict.reason).not.toMatch(/call stack/);
  });

  it("a large file written with a here-document is still read", async () => {
    const body = "def f(x):\n    return [y for y in range(x) if y % 2 == 0]\n".repeat(500);
    expect((await decide(`cat > f.py <<'EOF'\n${body}EOF\n`)).effect).toBe("allow");
  });
});

/** Turns of the event loop while the decision is pending: none when the line is read on the loop in one go. */
async function turnsWhile(decision: () => ReturnType<typeof decide>) {
  let turns = 0;
  let pending = true;
  const spin = () => {
    turns++;
    if (pending) setImmediate(spin);
  };
  setImmediate(spin);
  const verdict = await decision();
  pending = false;
  return { verdict, turns };
}

describe("a command line slow to read", () => {
  // 64 kB of one-word commands: the parser takes hundreds of milliseconds over it, far past a 50 ms limit.
  const slow = "a;".repeat(32_000);

  it("is asked about when reading it takes too long, and the event loop keeps turning meanwhile", async () => {
    const { verdict, turns } = await turnsWhile(() => decide(slow, 50));
    expect(turns).toBeGreaterThanOrEqual(5);
    expect(verdict.effect).toBe("ask");
    expect(verdict.reason).toMatch(/the command took too long to check/);
  });

  it("a short line of many commands is read off the event loop too: what costs is their number, not the length", async () => {
    const { verdict, turns } = await turnsWhile(() => decide("ls;".repeat(300), 60_000));
    expect(turns).toBeGreaterThanOrEqual(5);
    expect(verdict.effect).toBe("allow");
  });

  it("a reader stopped for taking too long is replaced: the next long line is read", async () => {
    expect((await decide(slow, 50)).reason).toMatch(/took too long/);
    const body = "def f(x):\n    return [y for y in range(x) if y % 2 == 0]\n".repeat(100);
    expect((await decide(`cat > f.py <<'EOF'\n${body}EOF\n`, 60_000)).effect).toBe("allow");
    const push = await decide(`${"ls; ".repeat(100)}git push origin main`, 60_000);
    expect(push.effect).toBe("ask");
    expect(push.reason).toMatch(/for `git push origin main`/);
  });
});

describe("a policy of many rules", () => {
  it("is checked for rules that can never match without compiling a glob again for each pair of rules", () => {
    // Each rule's globs are met by every later rule: compiled per pair, 300 rules took seconds on the event loop.
    const rules = Array.from(
      { length: 300 },
      (_, i) => `  - tool: "t${i}*"\n    team: ["a*", "b${i}"]\n    tier: "T*"\n    decision: allow\n`,
    ).join("");
    const compile = vi.mocked(patterns.linearPattern);
    compile.mockClear();
    const result = parsePolicy(`rules:\n${rules}`, 1);
    expect(result.ok).toBe(true);
    // Three globs a rule when it is compiled, and at most one more each for the check.
    expect(compile.mock.calls.length).toBeLessThanOrEqual(300 * 4);
  });
});
