// A tool call's verdict, with shell commands read as what they run: the
// command line as written and every simple command in it (shell.ts) are put
// to the rules, and the strictest answer wins (deny, then ask, then a veto
// window, then allow), naming the part that decided. A command whose program
// cannot be known before it runs is asked about when a rule that asks or
// denies could apply to it. A long command line is read off the event loop,
// with a time limit (reader.ts).
import { evaluate } from "./evaluate";
import { readCommandLine } from "./reader";
import { LEVELS, type CompiledPolicy, type PolicyInput, type PolicyVerdict } from "./types";

/** Spellings, and characters of them, matched between two turns of the event loop. */
const YIELD_EVERY_VIEWS = 128;
const YIELD_EVERY_CHARS = 16 * 1024;

function rank(v: PolicyVerdict): number {
  if (v.effect === "deny") return 3;
  if (v.effect === "ask") return v.ask?.kind === "veto" ? 1 : 2;
  return 0;
}

/**
 * Whether some command could meet a rule that asks or denies: the cascade read
 * with every argument condition possibly true. Under a policy that allows
 * every shell call, a program known only when it runs is no reason to ask.
 */
function couldStop(policy: CompiledPolicy, input: PolicyInput): boolean {
  for (const level of LEVELS) {
    for (const rule of policy.levels[level]) {
      if (!rule.inScope(input)) continue;
      if (rule.effect !== "allow") return true;
      if (!rule.byArgs) return false; // this rule allows every command
    }
  }
  return true; // the default denies
}

export interface DecideOptions {
  /** How long reading a long command line may take before it is asked about (default READ_LIMIT_MS). */
  readLimitMs?: number;
}

/**
 * The argument every reading of a shell call carries: the whole command line as the agent wrote
 * it, so a rule can match that line and nothing else (docs/human-requests-and-policy.md#matchers).
 * Set here, over anything the agent sent under that name.
 */
export const COMMAND_LINE_ARG = "command_line";

export async function decideCall(policy: CompiledPolicy, input: PolicyInput, opts: DecideOptions = {}): Promise<PolicyVerdict> {
  const command = input.tool === "shell" ? (input.args as { command?: unknown } | null)?.command : undefined;
  if (typeof command !== "string") return evaluate(policy, input);
  const args = { ...(input.args as Record<string, unknown>), [COMMAND_LINE_ARG]: command };
  const whole = evaluate(policy, { ...input, args });
  const analysis = await readCommandLine(command, opts.readLimitMs);
  let best = whole;
  let decidingPart: string | null = null;
  let views = 0;
  let chars = 0;
  for (const part of analysis.parts) {
    for (const view of part.views) {
      // A long line's many spellings (up to 256 kB) are matched in slices, letting the event loop turn between them.
      if (++views > YIELD_EVERY_VIEWS || (chars += view.length) > YIELD_EVERY_CHARS) {
        views = 0;
        chars = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
      const v = evaluate(policy, { ...input, args: { ...args, command: view } });
      if (rank(v) > rank(best)) {
        best = v;
        decidingPart = part.text;
      }
    }
  }
  if (analysis.unresolved && rank(best) < 2 && couldStop(policy, input)) {
    return {
      effect: "ask",
      ask: { kind: "approve", role: "approver" },
      level: "tool",
      rule: null,
      ruleName: "commands that cannot be checked before they run",
      reason: `The command cannot be checked before it runs (${analysis.unresolved}), so a person is asked`,
      policyVersion: policy.version,
    };
  }
  return decidingPart ? { ...best, reason: `${best.reason}, for \`${decidingPart}\` in the command` } : best;
}
