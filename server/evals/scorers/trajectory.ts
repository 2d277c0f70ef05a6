// Trajectory scorers: which tools the run used, and the sequence of its calls
// (modes and their exact definitions: sequence.ts).
import { z } from "zod";
import { plural, quote, regexProblem, safeRegex } from "./common";
import { SEQUENCE_MODES, matchSequence, type ArgMatcher } from "./sequence";
import { defineScorer, type ScoringInput } from "./types";

export const MAX_SEQUENCE_STEPS = 200;

const ToolName = z.string({ error: 'a tool is named by a string, e.g. "shell"' }).trim().min(1, "a tool name is empty").max(200);
const ToolList = (what: string) =>
  z.array(ToolName, { error: `tools is a list of tool names ${what}` }).min(1, `tools needs at least one tool ${what}`);

/** Only calls that succeeded count when `onlySucceeded`; otherwise every call the run made. */
const OnlySucceeded = z.boolean().default(false);
const callsOf = (input: ScoringInput, onlySucceeded: boolean) => (onlySucceeded ? input.toolCalls.filter((c) => c.ok) : input.toolCalls);

/**
 * An argument matcher: "any" (the argument is there, any value), { equals:
 * value } (the same JSON value), { contains: "text" } (a string containing
 * it), { matches: "regex" } (a string a linear-time regex finds a match in).
 */
export function toArgMatcher(raw: unknown): ArgMatcher | string {
  if (raw === "any") return { any: true };
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
    return `an argument matcher is "any", { "equals": value }, { "contains": "text" } or { "matches": "regex" }; got ${quote(raw, 40)}`;
  }
  const m = raw as Record<string, unknown>;
  const keys = Object.keys(m).filter((k) => k !== "ignoreCase");
  if (keys.length !== 1 || !["equals", "contains", "matches"].includes(keys[0])) {
    return `an argument matcher has exactly one of equals, contains or matches; got ${quote(Object.keys(m).join(", ") || "{}", 60)}`;
  }
  if (m.ignoreCase !== undefined && (typeof m.ignoreCase !== "boolean" || keys[0] === "equals"))
    return "ignoreCase is true or false, beside contains or matches";
  const ignoreCase = m.ignoreCase === true;
  if (keys[0] === "equals") return m.equals === undefined ? "equals needs a value" : { equals: m.equals };
  const value = m[keys[0]];
  if (typeof value !== "string" || !value) return `${keys[0]} needs a non-empty text`;
  if (keys[0] === "contains") return { contains: value, ignoreCase };
  const problem = regexProblem(value, ignoreCase);
  return problem ?? { matches: safeRegex(value, ignoreCase), source: value };
}

const Matcher = z.unknown().transform((raw, ctx) => {
  const m = toArgMatcher(raw);
  if (typeof m === "string") {
    ctx.addIssue({ code: "custom", message: m });
    return z.NEVER;
  }
  return m;
});

/** A step: a tool name, or { tool, args: { name: matcher } }. */
const Step = z.preprocess(
  (raw) => (typeof raw === "string" ? { tool: raw } : raw),
  z.strictObject({ tool: ToolName, args: z.record(z.string(), Matcher).default({}) }, { error: "a step is a tool name or { tool, args }" }),
);

export const toolsUsed = defineScorer({
  kind: "tools_used",
  settings: z.object({ tools: ToolList("the run must use"), onlySucceeded: OnlySucceeded }),
  async score(input, config) {
    const used = new Set(callsOf(input, config.onlySucceeded).map((c) => c.tool));
    const missing = config.tools.filter((t) => !used.has(t));
    const score = (config.tools.length - missing.length) / config.tools.length;
    const detail = missing.length ? `the run never used ${missing.join(", ")}` : `the run used ${config.tools.join(", ")}`;
    return { score, passed: missing.length === 0, detail };
  },
});

export const toolsNotUsed = defineScorer({
  kind: "tools_not_used",
  settings: z.object({ tools: ToolList("the run must not use"), onlySucceeded: OnlySucceeded }),
  async score(input, config) {
    const calls = callsOf(input, config.onlySucceeded);
    const used = config.tools.filter((t) => calls.some((c) => c.tool === t));
    const score = (config.tools.length - used.length) / config.tools.length;
    const times = (t: string) => plural(calls.filter((c) => c.tool === t).length, "time");
    const detail = used.length
      ? `the run used ${used.map((t) => `${t} (${times(t)})`).join(", ")}`
      : `the run used none of ${config.tools.join(", ")}`;
    return { score, passed: used.length === 0, detail };
  },
});

export const toolSequence = defineScorer({
  kind: "tool_sequence",
  settings: z.object({
    mode: z.enum(SEQUENCE_MODES, { error: `mode is one of ${SEQUENCE_MODES.join(", ")}` }).default("strict"),
    steps: z
      .array(Step, { error: "steps is a list of tool names or { tool, args }" })
      .min(1, "a tool sequence needs at least one tool")
      .max(MAX_SEQUENCE_STEPS, `a tool sequence has at most ${MAX_SEQUENCE_STEPS} steps`),
    onlySucceeded: OnlySucceeded,
  }),
  async score(input, config) {
    return matchSequence(config.mode, config.steps, callsOf(input, config.onlySucceeded));
  },
});
