// The one shape of an agent spec that people and programs write
// (docs/agents.md): the Agents page, tRPC, REST, the CLI and YAML files all go
// through AgentSpecInput, and validateAgentSpec adds the checks that need the
// database. No transforms: what is parsed is what is stored, so a YAML export
// imports back to the same spec.
import { z } from "zod";
import { TASK_CLASSES, type TaskClass } from "@/server/models";

export const MAX_DESCRIPTION = 500;
export const MAX_INSTRUCTIONS = 50_000;
export const MAX_CALL_CAP = 500;
export const MAX_CHANGE_NOTE = 500;
/** An agent may list this many tools, handoffs or secrets at most. */
export const MAX_LIST = 100;

export const AGENT_NAME_PATTERN = /^[a-z][a-z0-9-]{1,63}$/;
const NAME_RULE = "A name is 2 to 64 characters of lowercase letters, digits and dashes, starting with a letter";

/** Names the Agents pages use as addresses (/agents/new). */
const RESERVED_NAMES = new Set(["new", "import"]);

export const AgentName = z
  .string({ error: "Give the agent a name" })
  .regex(AGENT_NAME_PATTERN, NAME_RULE)
  .refine((n) => !RESERVED_NAMES.has(n), { message: `"new" and "import" are words the Agents pages use; choose another name` });

const wholeBetween = (what: string, min: number, max: number) =>
  z
    .number({ error: `${what} is a whole number from ${min} to ${max}` })
    .int(`${what} is a whole number from ${min} to ${max}`)
    .min(min, `${what} is a whole number from ${min} to ${max}`)
    .max(max, `${what} is a whole number from ${min} to ${max}`);

/** 0 switches a doom-loop check off (server/limits). */
const offOrBetween = (what: string, min: number, max: number) => {
  const rule = `${what} is 0 (off) or a whole number from ${min} to ${max}`;
  return z
    .number({ error: rule })
    .int(rule)
    .refine((n) => n === 0 || (n >= min && n <= max), rule);
};

const names = (what: string) =>
  z
    .array(
      z
        .string({ error: `Each ${what} is a name` })
        .min(1, `A ${what} name is empty`)
        .max(200, `A ${what} name is longer than 200 characters`),
      { error: `List the ${what}s` },
    )
    .max(MAX_LIST, `At most ${MAX_LIST} ${what}s`);

export const AgentGuardrails = z.strictObject(
  {
    /** The run's LLM call cap (its maxSteps) unless the launcher gives one; over 50 needs a cost ceiling. */
    callCap: wholeBetween("The call cap", 1, MAX_CALL_CAP).optional(),
    /** The run's cost ceiling in USD (its budgetUsd) unless the launcher gives one. */
    costCeilingUsd: z
      .number({ error: "The cost ceiling is an amount in USD above 0" })
      .positive("The cost ceiling is an amount in USD above 0")
      .max(1_000_000, "The cost ceiling is at most 1,000,000 USD")
      .optional(),
    /** The same tool call this many times in a row pauses the run for a person. */
    maxRepeats: offOrBetween("The repeat limit", 2, 50).optional(),
    /** This many failing steps in a row pause the run for a person. */
    maxFailingSteps: offOrBetween("The failing-step limit", 2, 50).optional(),
    /**
     * A session ends and a fresh one starts, seeded from durable state, when the
     * conversation reaches this share of the model's context window (default 0.9).
     */
    sessionBudget: z
      .number({ error: "The session budget is a share of the context window, from 0.2 to 0.95" })
      .min(0.2, "The session budget is a share of the context window, from 0.2 to 0.95")
      .max(0.95, "The session budget is a share of the context window, from 0.2 to 0.95")
      .optional(),
    /** Tokens of memories loaded into the prompt (default 1,500; 0: no memories are loaded). */
    memoryTokens: wholeBetween("The memory budget", 0, 20_000).optional(),
    /** Memories the agent saves wait for a person's confirmation before they count. */
    memoryConfirm: z.boolean({ error: "Whether saved memories need a person's confirmation is true or false" }).optional(),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `Rein has no guardrail called ${issue.keys.map((k) => `"${k}"`).join(", ")}`
        : "The guardrails are a set of limits",
  },
);

export const AgentSpecInput = z.strictObject(
  {
    name: AgentName,
    description: z
      .string({ error: "The description is text" })
      .max(MAX_DESCRIPTION, `The description is longer than ${MAX_DESCRIPTION} characters`)
      .default(""),
    instructions: z
      .string({ error: "Write the agent's instructions" })
      .max(MAX_INSTRUCTIONS, `The instructions are longer than ${MAX_INSTRUCTIONS.toLocaleString("en")} characters`)
      .refine((s) => s.trim().length > 0, "Write the agent's instructions"),
    /** "auto", "<provider>/<model id>" or "scripted/<scenario>"; the model router must know it. */
    model: z
      .string({ error: "Pick a model, or auto to let the routing rules pick" })
      .min(1, "Pick a model, or auto to let the routing rules pick")
      .max(200, "The model name is longer than 200 characters"),
    taskClass: z
      .enum(TASK_CLASSES as [TaskClass, ...TaskClass[]], { error: `The task class is one of ${TASK_CLASSES.join(", ")}` })
      .default("code"),
    /** How hard its tasks are, 0..1: routing puts models at least this strong first; tiers have thresholds. */
    complexity: z
      .number({ error: "Complexity is a number from 0 to 1" })
      .min(0, "Complexity is a number from 0 to 1")
      .max(1, "Complexity is a number from 0 to 1")
      .optional(),
    tools: names("tool").default([]),
    handoffs: names("handoff").default([]),
    guardrails: AgentGuardrails.default({}),
    tier: z
      .string({ error: "Pick the tier its runs start on" })
      .min(1, "Pick the tier its runs start on")
      .max(10, "Pick the tier its runs start on")
      .default("T1"),
    secrets: names("secret").default([]),
    /** A hosted agent (docs/hosted-agents.md): the program Rein runs over ACP instead of its own loop. */
    hosted: z
      .strictObject(
        {
          program: z
            .string({ error: "Name the hosted program, e.g. claude-code" })
            .min(1, "Name the hosted program, e.g. claude-code")
            .max(100, "The hosted program's name is longer than 100 characters"),
        },
        {
          error: (issue) =>
            issue.code === "unrecognized_keys"
              ? `A hosted agent has no setting called ${issue.keys.map((k) => `"${k}"`).join(", ")}`
              : "A hosted agent names its program: { program: <id> }",
        },
      )
      .optional(),
    /** Who sees and runs it: a team's id, or null for everyone (admins only). */
    teamId: z.string({ error: "Pick a team, or none for everyone" }).min(1, "Pick a team, or none for everyone").nullable().default(null),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `An agent spec has no setting called ${issue.keys.map((k) => `"${k}"`).join(", ")}`
        : "An agent spec is a set of named settings",
  },
);

/** What a person or program sends. */
export type AgentSpecInput = z.input<typeof AgentSpecInput>;
/** The spec with its defaults filled in: what is stored and returned. */
export type AgentSpecFields = z.output<typeof AgentSpecInput>;

/** One thing wrong with a spec, by the field it belongs to ("guardrails.callCap"), in words. */
export interface SpecProblem {
  field: string;
  message: string;
}

export const ChangeNote = z.string().trim().max(MAX_CHANGE_NOTE, `The change note is longer than ${MAX_CHANGE_NOTE} characters`);
