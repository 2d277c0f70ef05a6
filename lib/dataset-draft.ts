// Evals datasets as the pages edit them: the scoring as rows of form fields
// (each scorer's settings as JSON text), items as text fields, and the
// server's problems placed beside the scorer or field they are about.
import type { Role } from "@/server/identity";
import type { Issues } from "@/lib/field-errors";

/** One scorer as the form holds it. `uid` keeps React's rows steady while scorers are added and removed. */
export interface ScorerDraft {
  uid: number;
  kind: string;
  /** As typed; empty means the default, 1. */
  weight: string;
  required: boolean;
  /** The kind's own settings, as JSON text of an object. */
  settings: string;
}

export interface ScoringDraft {
  scorers: ScorerDraft[];
  /** As typed: 0 to 1. */
  threshold: string;
}

export interface StoredScoringView {
  scorers: Array<Record<string, unknown>>;
  threshold: number;
}

/** Settings a scorer row edits in its own fields, so not in the JSON. */
const OWN_FIELDS = ["kind", "weight", "required"] as const;

let nextUid = 1;
export const newUid = () => nextUid++;

export function scorerDraftOf(config: Record<string, unknown>): ScorerDraft {
  const { kind, weight, required, ...settings } = config;
  return {
    uid: newUid(),
    kind: typeof kind === "string" ? kind : "",
    weight: weight === undefined ? "" : String(weight),
    required: required === true,
    settings: Object.keys(settings).length ? JSON.stringify(settings, null, 2) : "{}",
  };
}

export function scoringDraftOf(scoring: StoredScoringView): ScoringDraft {
  return { scorers: scoring.scorers.map(scorerDraftOf), threshold: String(scoring.threshold) };
}

/** A new scorer row of a kind, its settings prefilled with the names the kind needs (values to fill in). */
export function newScorerDraft(kind: string, settings: Array<{ name: string; required: boolean }> = []): ScorerDraft {
  const needed = settings.filter((s) => s.required);
  const body = needed.length ? JSON.stringify(Object.fromEntries(needed.map((s) => [s.name, null])), null, 2) : "{}";
  return { uid: newUid(), kind, weight: "", required: false, settings: body };
}

/** Where the problems of a scoring go: beside each scorer (by index), the threshold, or the scoring as a whole. */
export interface ScoringProblems {
  scorers: Record<number, string[]>;
  threshold: string[];
  general: string[];
}

export const NO_SCORING_PROBLEMS: ScoringProblems = { scorers: {}, threshold: [], general: [] };

export function countScoringProblems(p: ScoringProblems): number {
  return Object.values(p.scorers).reduce((n, list) => n + list.length, 0) + p.threshold.length + p.general.length;
}

/** A number as typed, or the text itself for the server to refuse in words ("weight is a number"). */
function numberOrText(text: string): number | string {
  const t = text.trim();
  return t !== "" && Number.isFinite(Number(t)) ? Number(t) : t;
}

/**
 * The scoring to send, or the problems the browser can see itself (settings
 * that are not JSON, not an object, or repeat a field the row has). Every
 * other check is the server's.
 */
export function scoringOf(draft: ScoringDraft): { scoring: StoredScoringView | null; problems: ScoringProblems } {
  const scorers: Record<number, string[]> = {};
  const configs: Array<Record<string, unknown>> = [];
  draft.scorers.forEach((s, i) => {
    const own: string[] = [];
    let settings: unknown = {};
    if (s.settings.trim()) {
      try {
        settings = JSON.parse(s.settings);
      } catch (err) {
        own.push(`the settings are not valid JSON (${(err as Error).message})`);
      }
    }
    if (own.length === 0 && (typeof settings !== "object" || settings === null || Array.isArray(settings)))
      own.push('the settings are a JSON object, e.g. { "calls": 20 }');
    else if (own.length === 0) {
      for (const f of OWN_FIELDS) if (f in (settings as object)) own.push(`${f} has its own field; take it out of the settings`);
    }
    if (own.length) scorers[i] = own;
    const config: Record<string, unknown> = { kind: s.kind, ...(own.length ? {} : (settings as Record<string, unknown>)) };
    if (s.weight.trim() !== "") config.weight = numberOrText(s.weight);
    if (s.required) config.required = true;
    configs.push(config);
  });
  const problems = { scorers, threshold: [], general: [] };
  if (Object.keys(scorers).length) return { scoring: null, problems };
  return { scoring: { scorers: configs, threshold: numberOrText(draft.threshold) as number }, problems };
}

const SCORER_PROBLEM = /^scorer (\d+)(?: \([^)]*\))?: (.+)$/s;

/**
 * The server's problems with a scoring (error.data.issues, path "scoring"):
 * "scorer 2 (calls_at_most): calls is …" goes beside scorer 2, the pass
 * threshold's beside the threshold, the rest above the list.
 */
export function scoringProblemsOf(messages: string[]): ScoringProblems {
  const out: ScoringProblems = { scorers: {}, threshold: [], general: [] };
  for (const m of messages) {
    const scorer = SCORER_PROBLEM.exec(m);
    if (scorer) (out.scorers[Number(scorer[1]) - 1] ??= []).push(scorer[2]);
    else if (/threshold/.test(m)) out.threshold.push(m);
    else out.general.push(m);
  }
  return out;
}

/** A dataset form's problems by field ("name", "description", "teamId"), its scoring's placed, and the rest. */
export interface DatasetProblems {
  fields: Record<string, string[]>;
  scoring: ScoringProblems;
  other: string[];
}

export function datasetProblemsOf(issues: Issues | undefined, message: string, fields: readonly string[]): DatasetProblems {
  const out: DatasetProblems = { fields: {}, scoring: NO_SCORING_PROBLEMS, other: [] };
  if (!issues?.length) return { ...out, other: [message] };
  const scoring: string[] = [];
  for (const i of issues) {
    const root = i.path.split(".")[0];
    if (root === "scoring") scoring.push(i.message);
    else if (fields.includes(root)) (out.fields[root] ??= []).push(i.message);
    else out.other.push(i.message);
  }
  return { ...out, scoring: scoringProblemsOf(scoring) };
}

/** Why the person cannot change this dataset, in their words; null when they can. */
export function datasetReadOnlyReason(
  dataset: { builtIn: boolean; archived: boolean; teamId: string | null },
  role: Role | null,
): string | null {
  if (dataset.builtIn) return "Built-in datasets can't be changed. Export it and import the file into a dataset of your own.";
  if (dataset.archived) return "This dataset is archived: an admin can unarchive it to change it.";
  if (dataset.teamId === null) return role === "admin" ? null : "Only admins change a dataset everyone sees.";
  if (role === "operator" || role === "approver" || role === "admin") return null;
  return role
    ? "Changing this dataset needs the operator role in its team; you are a viewer there."
    : "Changing this dataset needs the operator role in its team; you are not in it.";
}

/** An item as its form holds it: JSON parts as text. */
export interface ItemDraft {
  key: string;
  goal: string;
  agent: string;
  scenario: string;
  expected: string;
}

export const EMPTY_ITEM_DRAFT: ItemDraft = { key: "", goal: "", agent: "", scenario: "", expected: '{\n  "outcome": "succeeded"\n}' };

export function itemDraftOf(item: {
  key: string;
  goal: string;
  agent: string | null;
  scenario: unknown;
  expected: Record<string, unknown>;
}): ItemDraft {
  return {
    key: item.key,
    goal: item.goal,
    agent: item.agent ?? "",
    scenario: item.scenario ? JSON.stringify(item.scenario, null, 2) : "",
    expected: JSON.stringify(item.expected, null, 2),
  };
}

export type ItemField = "key" | "goal" | "agent" | "scenario" | "expected";
export const ITEM_FIELDS: readonly ItemField[] = ["key", "goal", "agent", "scenario", "expected"];

function parseJsonField(text: string, what: string): { value?: unknown; problem?: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return { problem: `${what} is not valid JSON (${(err as Error).message})` };
  }
}

/** The item's fields to send (scenario null when empty), or the JSON problems the browser sees itself. */
export function itemOf(draft: ItemDraft): {
  item: { key?: string; goal: string; agent: string | null; scenario: unknown; expected: unknown } | null;
  problems: Partial<Record<ItemField, string[]>>;
} {
  const problems: Partial<Record<ItemField, string[]>> = {};
  const scenario = draft.scenario.trim() ? parseJsonField(draft.scenario, "the scenario") : { value: null };
  const expected = draft.expected.trim() ? parseJsonField(draft.expected, "the expected outcome") : { value: {} };
  if (scenario.problem) problems.scenario = [scenario.problem];
  if (expected.problem) problems.expected = [expected.problem];
  if (scenario.problem || expected.problem) return { item: null, problems };
  return {
    item: {
      ...(draft.key.trim() ? { key: draft.key.trim() } : {}),
      goal: draft.goal,
      agent: draft.agent || null,
      scenario: scenario.value,
      expected: expected.value,
    },
    problems,
  };
}

/** The server's problems with an item by field ("expected.scorers" beside expected); the rest, unplaced. */
export function itemProblemsOf(
  issues: Issues | undefined,
  message: string,
): { fields: Partial<Record<ItemField, string[]>>; other: string[] } {
  if (!issues?.length) return { fields: {}, other: [message] };
  const fields: Partial<Record<ItemField, string[]>> = {};
  const other: string[] = [];
  for (const i of issues) {
    const root = i.path.split(".")[0] as ItemField;
    if (ITEM_FIELDS.includes(root)) (fields[root] ??= []).push(i.message);
    else other.push(i.message);
  }
  return { fields, other };
}

/** How many turns an item's scenario has; null when it has none. */
export function scenarioTurns(scenario: unknown): number | null {
  const turns = (scenario as { turns?: unknown[] } | null)?.turns;
  return Array.isArray(turns) ? turns.length : null;
}

/** "yes (6 turns)": whether an item replays on the scripted model, and how long. */
export function scenarioLabel(turns: number | null): string {
  return turns === null ? "no" : `yes (${turns} turn${turns === 1 ? "" : "s"})`;
}

/** An expected outcome in a line: "succeeded · “Done, tests pass…” · 2 scorers · notes". */
export function expectedSummary(expected: Record<string, unknown>): string {
  const parts: string[] = [];
  const { outcome, text, scorers, ...rest } = expected;
  if (typeof outcome === "string") parts.push(outcome);
  if (typeof text === "string" && text.trim()) {
    const line = text.trim().replace(/\s+/g, " ");
    parts.push(`“${line.length > 60 ? `${line.slice(0, 59)}…` : line}”`);
  }
  if (Array.isArray(scorers)) parts.push(scorers.length === 1 ? "1 scorer" : `${scorers.length} scorers`);
  const others = Object.keys(rest);
  if (others.length) parts.push(others.join(", "));
  return parts.length ? parts.join(" · ") : "nothing expected yet";
}
