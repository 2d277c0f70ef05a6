// Tool-sequence matching, a pure core (Evals: trajectory scorers).
//
// E = the expected steps e1..en, A = the run's tool calls a1..am in the order
// the run made them. A step matches a call (e ~ a) when the call's tool is
// the step's and every argument matcher of the step holds on the call's
// argument of that name (arguments the step does not name are free).
//
//   strict     A is exactly E: m = n and ei ~ ai for every i.
//              score = #{i : ei ~ ai} / max(n, m)
//   unordered  A is E in any order (the same multiset): m = n and the calls
//              pair one-to-one with the steps, each pair matching.
//              score = largest such pairing / max(n, m)
//   subset     E is an ordered subsequence of A: every step appears among the
//              calls in E's order, not necessarily adjacent; other calls may
//              come before, between and after.
//              score = longest ordered matching of steps to calls / n
//   superset   A is an ordered subsequence of E: every call is one of the
//              steps, in E's order; steps may be left out, but no call falls
//              outside them (a run with no calls passes).
//              score = longest ordered matching / m (1 when m = 0)
//
// A mode passes when its score is 1.
import { canonicalJson } from "@/server/tools";
import { quote } from "./common";
import type { LinearPattern } from "@/server/patterns";

export const SEQUENCE_MODES = ["strict", "unordered", "subset", "superset"] as const;
export type SequenceMode = (typeof SEQUENCE_MODES)[number];

export type ArgMatcher =
  { any: true } | { equals: unknown } | { contains: string; ignoreCase: boolean } | { matches: LinearPattern; source: string };

export interface ExpectedStep {
  tool: string;
  args: Record<string, ArgMatcher>;
}

export interface Call {
  tool: string;
  args: unknown;
}

export interface SequenceVerdict {
  score: number;
  passed: boolean;
  /** What matched or where it went wrong, in a person's words. */
  detail: string;
}

function argMatches(m: ArgMatcher, present: boolean, value: unknown): boolean {
  if (!present) return false;
  if ("any" in m) return true;
  if ("equals" in m) return canonicalJson(value) === canonicalJson(m.equals);
  if (typeof value !== "string") return false;
  if ("contains" in m) return m.ignoreCase ? value.toLowerCase().includes(m.contains.toLowerCase()) : value.includes(m.contains);
  return m.matches.test(value);
}

export function stepMatches(step: ExpectedStep, call: Call): boolean {
  if (step.tool !== call.tool) return false;
  const args = call.args && typeof call.args === "object" && !Array.isArray(call.args) ? (call.args as Record<string, unknown>) : {};
  return Object.entries(step.args).every(([name, m]) => argMatches(m, Object.hasOwn(args, name), args[name]));
}

export function describeStep(step: ExpectedStep): string {
  const args = Object.entries(step.args).map(([name, m]) =>
    "any" in m
      ? `${name}: any`
      : "equals" in m
        ? `${name} = ${quote(m.equals, 40)}`
        : "contains" in m
          ? `${name} ∋ ${quote(m.contains, 40)}`
          : `${name} ~ /${m.source}/`,
  );
  return args.length ? `${step.tool} (${args.join(", ")})` : step.tool;
}

/** The longest ordered matching of steps to calls (a longest common subsequence under ~). */
function longestOrdered(steps: ExpectedStep[], calls: Call[]): number {
  let prev = new Uint32Array(calls.length + 1);
  for (const step of steps) {
    const row = new Uint32Array(calls.length + 1);
    for (let j = 1; j <= calls.length; j++) {
      row[j] = stepMatches(step, calls[j - 1]) ? prev[j - 1] + 1 : Math.max(prev[j], row[j - 1]);
    }
    prev = row;
  }
  return prev[calls.length];
}

/** The largest one-to-one pairing of steps and calls (augmenting paths; sizes are small). */
function largestPairing(steps: ExpectedStep[], calls: Call[]): { size: number; stepOf: Int32Array } {
  const edges = steps.map((s) => calls.flatMap((c, j) => (stepMatches(s, c) ? [j] : [])));
  const stepOf = new Int32Array(calls.length).fill(-1);
  const augment = (i: number, seen: Uint8Array): boolean => {
    for (const j of edges[i]) {
      if (seen[j]) continue;
      seen[j] = 1;
      if (stepOf[j] < 0 || augment(stepOf[j], seen)) {
        stepOf[j] = i;
        return true;
      }
    }
    return false;
  };
  let size = 0;
  for (let i = 0; i < steps.length; i++) if (augment(i, new Uint8Array(calls.length))) size++;
  return { size, stepOf };
}

const callName = (calls: Call[], j: number) => `call ${j + 1} (${calls[j].tool})`;

function strict(steps: ExpectedStep[], calls: Call[]): SequenceVerdict {
  let same = 0;
  let first = -1;
  for (let i = 0; i < Math.min(steps.length, calls.length); i++) {
    if (stepMatches(steps[i], calls[i])) same++;
    else if (first < 0) first = i;
  }
  const score = same / Math.max(steps.length, calls.length);
  if (score === 1) return { score, passed: true, detail: `the ${calls.length} tool calls are exactly the expected sequence` };
  const why =
    first >= 0
      ? `${callName(calls, first)} does not match step ${first + 1}, ${describeStep(steps[first])}`
      : calls.length < steps.length
        ? `the run made ${calls.length} tool calls; step ${calls.length + 1}, ${describeStep(steps[calls.length])}, never came`
        : `the run made ${calls.length} tool calls, ${calls.length - steps.length} more than the ${steps.length} expected; the first extra is ${callName(calls, steps.length)}`;
  return { score, passed: false, detail: why };
}

function unordered(steps: ExpectedStep[], calls: Call[]): SequenceVerdict {
  const { size, stepOf } = largestPairing(steps, calls);
  const score = size / Math.max(steps.length, calls.length);
  if (score === 1) return { score, passed: true, detail: `the ${calls.length} tool calls are the expected ones, in some order` };
  const paired = new Set(stepOf);
  const missing = steps.flatMap((s, i) => (paired.has(i) ? [] : [describeStep(s)]));
  const extra = calls.flatMap((_, j) => (stepOf[j] < 0 ? [callName(calls, j)] : []));
  const parts = [
    missing.length ? `no call for ${missing.slice(0, 5).join("; ")}` : "",
    extra.length ? `unexpected ${extra.slice(0, 5).join(", ")}` : "",
  ];
  return { score, passed: false, detail: parts.filter(Boolean).join("; ") };
}

function subset(steps: ExpectedStep[], calls: Call[]): SequenceVerdict {
  const score = longestOrdered(steps, calls) / steps.length;
  if (score === 1)
    return { score, passed: true, detail: `all ${steps.length} expected steps appear in order among the ${calls.length} tool calls` };
  // Taking the earliest match for each step in turn finds the first step that cannot be placed.
  let j = 0;
  let i = 0;
  for (; i < steps.length; i++, j++) {
    while (j < calls.length && !stepMatches(steps[i], calls[j])) j++;
    if (j >= calls.length) break;
  }
  const after = i === 0 ? "" : ` after the call that matched step ${i}`;
  return { score, passed: false, detail: `step ${i + 1}, ${describeStep(steps[i])}, does not appear${after}` };
}

function superset(steps: ExpectedStep[], calls: Call[]): SequenceVerdict {
  if (calls.length === 0) return { score: 1, passed: true, detail: "the run made no tool calls, so none fell outside the expected steps" };
  const score = longestOrdered(steps, calls) / calls.length;
  if (score === 1) return { score, passed: true, detail: `each of the ${calls.length} tool calls is one of the expected steps, in order` };
  let i = 0;
  let j = 0;
  for (; j < calls.length; j++, i++) {
    while (i < steps.length && !stepMatches(steps[i], calls[j])) i++;
    if (i >= steps.length) break;
  }
  return { score, passed: false, detail: `${callName(calls, j)} is not one of the expected steps in order` };
}

export function matchSequence(mode: SequenceMode, steps: ExpectedStep[], calls: Call[]): SequenceVerdict {
  switch (mode) {
    case "strict":
      return strict(steps, calls);
    case "unordered":
      return unordered(steps, calls);
    case "subset":
      return subset(steps, calls);
    case "superset":
      return superset(steps, calls);
  }
}
