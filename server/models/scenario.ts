import { z } from "zod";
import type { Scenario } from "./types";

const TurnSchema = z
  .object({
    text: z.string().optional(),
    toolCalls: z
      .array(z.object({ tool: z.string().min(1, "tool name is empty"), args: z.record(z.string(), z.unknown()).default({}) }).strict())
      .optional(),
    mayFail: z.boolean().optional(),
  })
  .strict()
  .refine((t) => t.text !== undefined || (t.toolCalls && t.toolCalls.length > 0), {
    message: "a turn needs text or at least one tool call",
  });

const Turns = z.array(TurnSchema).min(1, "a scenario needs at least one turn").max(500, "a scenario has at most 500 turns");

const ScenarioObject = z
  .object({
    turns: Turns,
    stopOnError: z.boolean().optional(),
    variants: z
      .array(
        z
          .object({ tools: z.array(z.string().min(1, "tool name is empty")).min(1, "a variant names at least one tool"), turns: Turns })
          .strict(),
      )
      .max(10, "a scenario has at most 10 variants")
      .optional(),
    onMessage: z.array(TurnSchema).min(1, "onMessage needs at least one turn").max(20, "onMessage has at most 20 turns").optional(),
    contextWindow: z
      .number()
      .int("contextWindow is a whole number of tokens")
      .min(256, "contextWindow is at least 256 tokens")
      .max(10_000_000)
      .optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    // A turn without tool calls ends the run, so only the last one may be text only.
    const check = (turns: Array<{ toolCalls?: unknown[] }>, path: Array<string | number>) =>
      turns.forEach((t, i) => {
        if (i < turns.length - 1 && !t.toolCalls?.length) {
          ctx.addIssue({
            code: "custom",
            path: [...path, i],
            message: `turn ${i + 1} has no tool calls, so the run would end there; only the last turn may be text only`,
          });
        }
      });
    check(s.turns, ["turns"]);
    s.variants?.forEach((v, i) => check(v.turns, ["variants", i, "turns"]));
    if (s.onMessage) check(s.onMessage, ["onMessage"]);
  });

/** A scenario is a list of turns, or { turns, stopOnError } (docs/runs.md#scenarios). */
export const ScenarioSchema = z.preprocess((v) => (Array.isArray(v) ? { turns: v } : v), ScenarioObject);

export type ScenarioInput = z.input<typeof ScenarioObject> | z.input<typeof ScenarioObject>["turns"];

export function normalizeScenario(input: z.output<typeof ScenarioObject>): Scenario {
  return {
    turns: input.turns,
    ...(input.stopOnError !== undefined ? { stopOnError: input.stopOnError } : {}),
    ...(input.variants?.length ? { variants: input.variants } : {}),
    ...(input.onMessage?.length ? { onMessage: input.onMessage } : {}),
    ...(input.contextWindow !== undefined ? { contextWindow: input.contextWindow } : {}),
  };
}

export function parseScenario(value: unknown): Scenario {
  return normalizeScenario(ScenarioSchema.parse(value));
}
