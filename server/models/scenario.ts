import { z } from "zod";
import type { Scenario } from "./types";

const TurnSchema = z
  .object({
    text: z.string().optional(),
    toolCalls: z
      .array(z.object({ tool: z.string().min(1, "tool name is empty"), args: z.record(z.string(), z.unknown()).default({}) }).strict())
      .optional(),
  })
  .strict()
  .refine((t) => t.text !== undefined || (t.toolCalls && t.toolCalls.length > 0), {
    message: "a turn needs text or at least one tool call",
  });

/** A scenario is a list of turns, or { turns, stopOnError } (SPEC section 7). */
export const ScenarioSchema = z.union([
  z.array(TurnSchema).min(1, "a scenario needs at least one turn").max(500),
  z.object({ turns: z.array(TurnSchema).min(1, "a scenario needs at least one turn").max(500), stopOnError: z.boolean().optional() }).strict(),
]);

export type ScenarioInput = z.input<typeof ScenarioSchema>;

export function normalizeScenario(input: z.output<typeof ScenarioSchema>): Scenario {
  return Array.isArray(input) ? { turns: input } : { turns: input.turns, stopOnError: input.stopOnError };
}

export function parseScenario(value: unknown): Scenario {
  return normalizeScenario(ScenarioSchema.parse(value));
}
