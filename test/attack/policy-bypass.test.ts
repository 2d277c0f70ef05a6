// Attack suite, issue class 7: the default policy is matched on the parsed
// command, so none of the corpus's ways around it works; benign commands
// stay allowed. A policy with a deny rule for git push is checked too.
import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY, decideCall, parsePolicy } from "@/server/policy";
import { BYPASS_CORPUS, corpusCall } from "./policy-bypass.corpus";

function compile(source: string) {
  const parsed = parsePolicy(source, 1);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.policy;
}

const input = (command: string) => corpusCall(command);

describe("the default policy against the bypass corpus", () => {
  const policy = compile(DEFAULT_POLICY);
  it.each(BYPASS_CORPUS.map((c) => [JSON.stringify(c.command), c.expect, c] as const))("%s -> %s", async (_name, expected, c) => {
    const verdict = await decideCall(policy, input(c.command));
    expect(verdict.effect, `${verdict.reason}${c.why ? ` (${c.why})` : ""}`).toBe(expected);
  });

  it("names the part of a compound command that asked", async () => {
    const verdict = await decideCall(policy, input("ls && true && git -C . push origin main"));
    expect(verdict.effect).toBe("ask");
    expect(verdict.reason).toMatch(/for `git -C \. push origin main`/);
  });
});

describe("a policy that denies git push", () => {
  const policy = compile(
    `rules:\n  - tool: shell\n    args:\n      command: { pattern: '^git push' }\n    decision: deny\n  - tool: shell\n    decision: allow\n`,
  );
  it.each(
    BYPASS_CORPUS.filter(
      (c) =>
        c.command.includes("git") &&
        c.expect === "ask" &&
        /push/.test(c.command) &&
        !/eval|alias|\$\{|\$CMD|unterminated|^;|GIT_CONFIG|system\(|execSync/i.test(c.command),
    ).map((c) => [c.command]),
  )("%s is denied", async (command) => {
    expect((await decideCall(policy, input(command))).effect).toBe("deny");
  });
});
