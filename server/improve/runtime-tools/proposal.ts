// A runtime tool as the improver proposes it (docs/runtime-tools.md): a
// name, a JSON schema for its arguments, JavaScript for the sandbox, the
// capabilities it needs, its replay class and its trigger cases. Everything
// here is the agent's and hostile: checked before anything is stored.
import { z } from "zod";
import { patternViolation, schemaPatternProblems, withoutPatterns } from "@/server/patterns";
import { RUNTIME_CAPABILITIES } from "../sandbox";

export const RUNTIME_TOOL_NAME = /^[a-z][a-z0-9_]{2,47}$/;
export const MAX_SOURCE_BYTES = 64 * 1024;
export const MAX_CASES = 20;
const MAX_SCHEMA_BYTES = 16 * 1024;
const MAX_CASE_BYTES = 64 * 1024;

const Expectation = z.union([
  z.object({ ok: z.literal(true), output: z.unknown().optional() }).strict(),
  z.object({ ok: z.literal(false), errorIncludes: z.string().max(500).optional() }).strict(),
]);

export const TriggerCase = z
  .object({
    name: z.string().trim().min(1, "a case needs a name").max(200),
    args: z.record(z.string(), z.unknown()),
    expect: Expectation,
  })
  .strict();
export type TriggerCase = z.infer<typeof TriggerCase>;

export const RuntimeToolProposal = z
  .object({
    name: z.string().regex(RUNTIME_TOOL_NAME, "name is 3 to 48 lower-case letters, digits and _, starting with a letter"),
    description: z.string().trim().min(10, "describe what the tool does and when to use it (10 characters or more)").max(1000),
    argsSchema: z.record(z.string(), z.unknown()),
    source: z
      .string()
      .min(1, "source is empty")
      .max(MAX_SOURCE_BYTES, `source is larger than ${MAX_SOURCE_BYTES / 1024} KiB`),
    replayClass: z.enum(["pure", "idempotent_with_key", "unsafe_on_replay"]).default("unsafe_on_replay"),
    capabilities: z
      .array(z.enum(RUNTIME_CAPABILITIES as unknown as [string, ...string[]]))
      .max(4)
      .default([]),
    cases: z
      .array(TriggerCase)
      .min(1, "a runtime tool needs at least one trigger case")
      .max(MAX_CASES, `at most ${MAX_CASES} trigger cases`),
  })
  .strict();
export type RuntimeToolProposal = z.infer<typeof RuntimeToolProposal>;

/**
 * The arguments' validator: the schema's shape through zod, its patterns in
 * linear time (never compiled as JavaScript regexes), or the problems with it.
 */
export function argsValidator(schema: Record<string, unknown>): { parser: z.ZodType<Record<string, unknown>> } | { problems: string[] } {
  if (JSON.stringify(schema).length > MAX_SCHEMA_BYTES) return { problems: [`argsSchema is larger than ${MAX_SCHEMA_BYTES / 1024} KiB`] };
  if (schema.type !== "object") return { problems: ['argsSchema must be an object schema ("type": "object")'] };
  const patterns = schemaPatternProblems(schema);
  if (patterns.length) return { problems: patterns };
  let shape: z.ZodType;
  try {
    shape = z.fromJSONSchema(withoutPatterns(schema) as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (err) {
    return { problems: [`argsSchema cannot be used: ${(err as Error).message}`] };
  }
  const parser = shape.superRefine((value, ctx) => {
    const broken = patternViolation(schema, value);
    if (broken) ctx.addIssue({ code: "custom", message: broken });
  }) as z.ZodType<Record<string, unknown>>;
  return { parser };
}

/** Every problem with a proposal beyond its shape: the schema, each case's arguments against it, sizes. */
export function proposalProblems(p: RuntimeToolProposal, reserved: (name: string) => boolean): string[] {
  const problems: string[] = [];
  if (reserved(p.name)) problems.push(`${p.name} is the name of a built-in tool; choose another`);
  const validator = argsValidator(p.argsSchema);
  if ("problems" in validator) return [...problems, ...validator.problems];
  p.cases.forEach((c, i) => {
    if (JSON.stringify(c).length > MAX_CASE_BYTES) problems.push(`case ${i + 1} (${c.name}) is larger than ${MAX_CASE_BYTES / 1024} KiB`);
    const parsed = validator.parser.safeParse(c.args);
    if (!parsed.success)
      problems.push(
        `case ${i + 1} (${c.name}): its args do not match argsSchema: ${parsed.error.issues.map((x) => `${x.path.join(".") || "args"}: ${x.message}`).join("; ")}`,
      );
  });
  return problems;
}
