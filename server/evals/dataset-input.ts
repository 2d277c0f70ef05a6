// The one shape of a dataset and of its items that people and programs write
// (Evals: datasets): the Evals pages, tRPC, REST, the CLI and JSONL files all
// go through these schemas, and problems come back by field, in words.
import { z } from "zod";
import { ScenarioSchema, normalizeScenario, type Scenario } from "@/server/models";
import { parseScorer, parseScoring } from "./scorers";

export const DATASET_NAME_PATTERN = /^[a-z][a-z0-9-]{1,63}$/;
export const ITEM_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const MAX_DATASET_DESCRIPTION = 500;
export const MAX_GOAL = 20_000;
/** An item's expected outcome, as JSON, at most this long. */
export const MAX_EXPECTED_BYTES = 64 * 1024;
/** An item's scenario, as JSON, at most this long. */
export const MAX_SCENARIO_BYTES = 200 * 1024;

/** One thing wrong with a dataset or an item, by the field it belongs to ("scoring", "goal"), in words. */
export interface DatasetProblem {
  field: string;
  message: string;
}

export const DatasetName = z
  .string({ error: "name is required" })
  .regex(DATASET_NAME_PATTERN, "name is 2 to 64 characters of lowercase letters, digits and dashes, starting with a letter");

const Description = z
  .string({ error: "description is text" })
  .max(MAX_DATASET_DESCRIPTION, `description is longer than ${MAX_DATASET_DESCRIPTION} characters`);
const TeamId = z
  .string({ error: "teamId is a team's id, or null for everyone" })
  .min(1, "teamId is a team's id, or null for everyone")
  .nullable();
/** Checked in full by parseScoring; here only its shape. */
const ScoringShape = z.object(
  { scorers: z.unknown(), threshold: z.unknown().optional() },
  { error: "scoring is { scorers: [...], threshold }" },
);

export const DatasetInput = z.strictObject(
  { name: DatasetName, description: Description.default(""), teamId: TeamId.default(null), scoring: ScoringShape },
  {
    error: (i) =>
      i.code === "unrecognized_keys"
        ? `a dataset has no setting ${i.keys.map((k) => `"${k}"`).join(", ")}`
        : "a dataset is { name, description, teamId, scoring }",
  },
);
export type DatasetInput = z.input<typeof DatasetInput>;

export const DatasetPatch = z.strictObject(
  { name: DatasetName.optional(), description: Description.optional(), teamId: TeamId.optional(), scoring: ScoringShape.optional() },
  {
    error: (i) =>
      i.code === "unrecognized_keys"
        ? `a dataset has no setting ${i.keys.map((k) => `"${k}"`).join(", ")}`
        : "a change is some of { name, description, teamId, scoring }",
  },
);
export type DatasetPatch = z.input<typeof DatasetPatch>;

/** The scoring as stored: the scorer configs as given, and the threshold (default 1). */
export interface StoredScoring {
  scorers: Array<Record<string, unknown>>;
  threshold: number;
}

export function checkScoring(raw: {
  scorers: unknown;
  threshold?: unknown;
}): { scoring: StoredScoring; problems: [] } | { scoring: null; problems: DatasetProblem[] } {
  const r = parseScoring(raw);
  if (!r.ok) return { scoring: null, problems: r.problems.map((message) => ({ field: "scoring", message })) };
  return { scoring: { scorers: raw.scorers as StoredScoring["scorers"], threshold: r.scoring.threshold }, problems: [] };
}

export const ItemKey = z
  .string({ error: "key is text" })
  .regex(ITEM_KEY_PATTERN, "key is 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit");

const Goal = z
  .string({ error: "goal is required" })
  .max(MAX_GOAL, `goal is longer than ${MAX_GOAL.toLocaleString("en")} characters`)
  .refine((g) => g.trim().length > 0, "goal is required");
const Agent = z
  .string({ error: "agent is an agent's name" })
  .regex(DATASET_NAME_PATTERN, "agent is an agent's name: lowercase letters, digits and dashes");
const Expected = z.record(z.string(), z.unknown(), { error: 'expected is an object, e.g. { "outcome": "succeeded" }' });

/** The fields of an item as written; scenario and expected are checked further by itemProblems. */
export const ItemInput = z.strictObject(
  {
    key: ItemKey.optional(),
    goal: Goal,
    agent: Agent.nullable().optional(),
    scenario: z.unknown().optional(),
    expected: Expected.optional(),
  },
  {
    error: (i) =>
      i.code === "unrecognized_keys"
        ? `an item has no field ${i.keys.map((k) => `"${k}"`).join(", ")}`
        : "an item is { key?, goal, agent?, scenario?, expected? }",
  },
);
export type ItemInput = z.input<typeof ItemInput>;

export const ItemPatch = z.strictObject(
  { goal: Goal.optional(), agent: Agent.nullable().optional(), scenario: z.unknown().optional(), expected: Expected.optional() },
  {
    error: (i) =>
      i.code === "unrecognized_keys"
        ? `an item has no field ${i.keys.map((k) => `"${k}"`).join(", ")}`
        : "a change is some of { goal, agent, scenario, expected }",
  },
);
export type ItemPatch = z.input<typeof ItemPatch>;

/** An item's fields as stored (scenario normalized; expected an object). */
export interface ItemFields {
  goal: string;
  agent: string | null;
  scenario: Scenario | null;
  expected: Record<string, unknown>;
}

const where = (path: PropertyKey[]) => path.map(String).join(".");

export function zodProblems(error: z.ZodError): DatasetProblem[] {
  return error.issues.map((i) => {
    const field = where(i.path);
    if (i.code === "unrecognized_keys" || !field) return { field: field || "input", message: i.message };
    return { field, message: i.message.startsWith(field.split(".")[0]) ? i.message : `${field}: ${i.message}` };
  });
}

/** A scenario and an expected outcome checked beyond their shape: the scripted model must play it, expected.scorers must parse. */
export function checkItemParts(raw: { scenario?: unknown; expected?: Record<string, unknown> }): {
  scenario: Scenario | null | undefined;
  problems: DatasetProblem[];
} {
  const problems: DatasetProblem[] = [];
  let scenario: Scenario | null | undefined;
  if (raw.scenario === null) scenario = null;
  else if (raw.scenario !== undefined) {
    if (JSON.stringify(raw.scenario).length > MAX_SCENARIO_BYTES)
      problems.push({ field: "scenario", message: `scenario is longer than ${MAX_SCENARIO_BYTES / 1024} KiB` });
    else {
      const r = ScenarioSchema.safeParse(raw.scenario);
      if (r.success) scenario = normalizeScenario(r.data);
      else
        problems.push(
          ...r.error.issues.map((i) => ({
            field: "scenario",
            message: `scenario${i.path.length ? ` ${where(i.path)}` : ""}: ${i.message}`,
          })),
        );
    }
  }
  if (raw.expected !== undefined) {
    if (JSON.stringify(raw.expected).length > MAX_EXPECTED_BYTES)
      problems.push({ field: "expected", message: `expected is longer than ${MAX_EXPECTED_BYTES / 1024} KiB` });
    const scorers = raw.expected.scorers;
    if (scorers !== undefined) {
      if (!Array.isArray(scorers))
        problems.push({
          field: "expected.scorers",
          message: 'expected.scorers is a list of scorers, e.g. [{ "kind": "file_exists", "path": "README.md" }]',
        });
      else
        scorers.forEach((config, i) => {
          const r = parseScorer(config);
          if (!r.ok) problems.push(...r.problems.map((p) => ({ field: "expected.scorers", message: `expected.scorers ${i + 1}: ${p}` })));
        });
    }
  }
  return { scenario, problems };
}
