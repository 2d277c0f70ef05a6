// The policy document's grammar, checked with zod. Every rule names at least
// one scope (actor, team, tool, tier); its level is the first one it names.
import { z } from "zod";
import { patternProblem } from "@/server/patterns";
import { ASK_KINDS, ASK_ROLES, EFFECTS } from "./types";

export const MAX_POLICY_CHARS = 200_000;

/** Keys each mapping may hold, for "unknown key" messages and suggestions. */
export const TOP_KEYS = ["rules"] as const;
export const RULE_KEYS = ["name", "actor", "team", "tool", "args", "tier", "environment", "decision", "ask"] as const;
export const ASK_KEYS = ["kind", "role", "ttl"] as const;
export const MATCHER_KEYS = ["equals", "pattern", "prefix", "contains", "oneOf"] as const;

type Scalar = string | number | boolean | null;

/** A normalized argument matcher; non-string values compare by their JSON text. */
export type MatcherSpec = { equals: string } | { pattern: string } | { prefix: string } | { contains: string } | { oneOf: string[] };

const isScalar = (v: unknown): v is Scalar => v === null || ["string", "number", "boolean"].includes(typeof v);
const textOf = (v: Scalar) => (typeof v === "string" ? v : JSON.stringify(v));
const show = (v: unknown) => (v === undefined ? "nothing" : JSON.stringify(v));

function names(what: string) {
  const one = z
    .string({ error: `must be ${what} or a list of them` })
    .trim()
    .min(1, "must not be empty");
  return z.union([one, z.array(one).min(1, "must list at least one")], { error: `must be ${what} or a list of them` });
}

const Matcher = z.unknown().transform((v, ctx): MatcherSpec => {
  const fail = (message: string) => {
    ctx.addIssue({ code: "custom", message });
    return z.NEVER;
  };
  if (isScalar(v)) return { equals: textOf(v) };
  if (typeof v !== "object" || Array.isArray(v)) {
    return fail(
      `must be a value or one of {equals}, {pattern}, {prefix}, {contains}, {oneOf}, not ${Array.isArray(v) ? "a list" : show(v)}`,
    );
  }
  const keys = Object.keys(v as object);
  const unknown = keys.filter((k) => !(MATCHER_KEYS as readonly string[]).includes(k));
  if (unknown.length)
    return fail(
      `unknown matcher ${unknown.map((k) => `"${k}"`).join(", ")}${suggest(unknown[0], MATCHER_KEYS)}; use one of equals, pattern, prefix, contains, oneOf`,
    );
  if (keys.length !== 1)
    return fail(
      `a matcher has exactly one of equals, pattern, prefix, contains, oneOf (found ${keys.length === 0 ? "none" : keys.join(", ")})`,
    );
  const key = keys[0] as (typeof MATCHER_KEYS)[number];
  const value = (v as Record<string, unknown>)[key];
  if (key === "oneOf") {
    if (!Array.isArray(value) || value.length === 0 || !value.every(isScalar)) return fail("oneOf must be a non-empty list of values");
    return { oneOf: value.map(textOf) };
  }
  if (key === "equals") {
    if (!isScalar(value)) return fail(`equals must be a single value, not ${show(value)}`);
    return { equals: textOf(value) };
  }
  if (typeof value !== "string" || value === "") return fail(`${key} must be a non-empty string, not ${show(value)}`);
  if (key === "pattern") {
    const problem = patternProblem(value);
    if (problem) return fail(`pattern ${JSON.stringify(value)} is not a valid regular expression: ${problem}`);
  }
  return { [key]: value } as MatcherSpec;
});

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
const Duration = z.union([z.number(), z.string()]).transform((v, ctx) => {
  const seconds =
    typeof v === "number"
      ? v
      : /^(\d+[smhd])+$/.test(v.trim())
        ? [...v.trim().matchAll(/(\d+)([smhd])/g)].reduce((s, m) => s + Number(m[1]) * UNITS[m[2]], 0)
        : NaN;
  if (!Number.isInteger(seconds) || seconds <= 0) {
    ctx.addIssue({ code: "custom", message: `must be a duration like 90s, 30m, 24h or 7d, not ${show(v)}` });
    return z.NEVER;
  }
  return seconds;
});

const Ask = z.strictObject(
  {
    kind: z.enum(ASK_KINDS, { error: (i) => `must be ${ASK_KINDS.join(", ")}, not ${show(i.input)}` }).default("approve"),
    role: z.enum(ASK_ROLES, { error: (i) => `must be ${ASK_ROLES.join(", ")}, not ${show(i.input)}` }).default("approver"),
    ttl: Duration.optional(),
  },
  { error: (i) => (i.code === "invalid_type" ? "must be a mapping like { kind: approve, role: approver, ttl: 30m }" : undefined) },
);

export const RuleSchema = z
  .strictObject(
    {
      name: z.string({ error: "must be text" }).trim().min(1, "name must not be empty").max(200).optional(),
      actor: names("an email or user id").optional(),
      team: names("a team name").optional(),
      tool: names('a tool name or glob like "browser_*"').optional(),
      args: z.record(z.string().min(1), Matcher, { error: "must be a mapping of argument names to matchers" }).optional(),
      tier: names("a tier like T1").optional(),
      environment: names("a tier like T1").optional(),
      decision: z.enum(EFFECTS, {
        error: (i) =>
          i.input === undefined ? "missing; every rule needs one: allow, deny or ask" : `must be allow, deny or ask, not ${show(i.input)}`,
      }),
      ask: Ask.optional(),
    },
    { error: (i) => (i.code === "invalid_type" ? "must be a mapping with a decision" : undefined) },
  )
  .superRefine((r, ctx) => {
    if (r.tier !== undefined && r.environment !== undefined) {
      ctx.addIssue({ code: "custom", path: ["environment"], message: "use tier or environment (the same thing), not both" });
    }
    if (r.actor === undefined && r.team === undefined && r.tool === undefined && r.tier === undefined && r.environment === undefined) {
      ctx.addIssue({ code: "custom", path: [], message: "names none of actor, team, tool, tier; a rule needs at least one (its level)" });
    }
    if (r.args !== undefined && r.tool === undefined) {
      ctx.addIssue({ code: "custom", path: ["args"], message: "argument matchers need a tool (the tool whose arguments they check)" });
    }
    if (r.ask !== undefined && r.decision !== "ask") {
      ctx.addIssue({ code: "custom", path: ["ask"], message: `only goes with decision: ask (this rule says ${r.decision})` });
    }
  });
export type RuleSpec = z.output<typeof RuleSchema>;

export const PolicySchema = z.strictObject(
  {
    rules: z.array(RuleSchema, {
      error: (i) => (i.input === undefined ? "missing; the policy needs a rules: list" : "must be a list of rules"),
    }),
  },
  { error: (i) => (i.code === "invalid_type" ? "the policy must be a mapping with a rules: list" : undefined) },
);

/** ' (did you mean "decision"?)' for a near miss, else "". */
export function suggest(word: string, candidates: readonly string[]): string {
  let best: { c: string; d: number } | null = null;
  for (const c of candidates) {
    const d = distance(word.toLowerCase(), c.toLowerCase());
    if (d <= 2 && (!best || d < best.d)) best = { c, d };
  }
  return best ? ` (did you mean "${best.c}"?)` : "";
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length];
}
