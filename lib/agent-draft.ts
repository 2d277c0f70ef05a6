// The agent editor's form (docs/agents.md): the spec as the person types it
// (numbers as text), turned into the AgentSpecInput the server checks, and
// the server's problems ({ field: "guardrails.callCap", message }) put back
// under the field they are about.
import type { TaskClass } from "@/server/models";

/** The agent spec as agents.validate / create / save / tryDraft take it. */
export interface AgentSpecFields {
  name: string;
  description: string;
  instructions: string;
  /** "auto" (routing by task class), "<provider>/<model id>" or "scripted/<scenario>". */
  model: string;
  taskClass: TaskClass;
  complexity?: number;
  tools: string[];
  handoffs: string[];
  guardrails: {
    callCap?: number;
    costCeilingUsd?: number;
    maxRepeats?: number;
    maxFailingSteps?: number;
    /** Share of the model's context window a session may fill before a fresh one starts (0.2–0.95). */
    sessionBudget?: number;
    /** Tokens of memories loaded into the prompt (0: none). */
    memoryTokens?: number;
    /** Memories the agent saves wait for a person's confirmation. */
    memoryConfirm?: boolean;
  };
  tier: string;
  secrets: string[];
  /** Who sees the agent: null is everyone. */
  teamId: string | null;
  /** A hosted agent (docs/hosted-agents.md): the program Rein runs instead of its own loop. */
  hosted?: { program: string };
}

export interface Problem {
  field: string;
  message: string;
}

export const AUTO_MODEL = "auto";
export type ModelMode = "model" | "taskClass";

export interface AgentDraft {
  name: string;
  description: string;
  instructions: string;
  modelMode: ModelMode;
  /** The picked model while modelMode is "model" (kept when switching back and forth). */
  model: string;
  taskClass: TaskClass;
  complexity: string;
  tools: string[];
  handoffs: string[];
  callCap: string;
  costCeilingUsd: string;
  maxRepeats: string;
  maxFailingSteps: string;
  /** The session budget as a percentage of the context window ("90"); the spec holds the share (0.9). */
  sessionBudgetPct: string;
  memoryTokens: string;
  /** undefined: not set (the default, no confirmation). */
  memoryConfirm: boolean | undefined;
  tier: string;
  secrets: string[];
  teamId: string | null;
  /** The hosted program's id; "" is Rein's own loop. */
  hostedProgram: string;
}

// The server's defaults, shown as placeholders: the call cap is the kernel's
// default maxSteps, the doom-loop limits are server/limits' (a test keeps them equal).
export { DEFAULT_CALL_CAP } from "@/lib/limits";
export const DEFAULT_MAX_REPEATS = 4;
export const DEFAULT_MAX_FAILING_STEPS = 5;
/** server/agents/input.ts: a session may fill 90% of the window by default, 20–95% when set. */
export const DEFAULT_SESSION_BUDGET_PCT = 90;
export const MIN_SESSION_BUDGET_PCT = 20;
export const MAX_SESSION_BUDGET_PCT = 95;
export const DEFAULT_MEMORY_TOKENS = 1500;
export const MAX_MEMORY_TOKENS = 20_000;

export const DEFAULT_DRAFT: AgentDraft = {
  name: "",
  description: "",
  instructions: "",
  modelMode: "model",
  model: "scripted/demo-coder",
  taskClass: "code",
  complexity: "",
  tools: [],
  handoffs: [],
  callCap: "",
  costCeilingUsd: "",
  maxRepeats: "",
  maxFailingSteps: "",
  sessionBudgetPct: "",
  memoryTokens: "",
  memoryConfirm: undefined,
  tier: "T1",
  secrets: [],
  teamId: null,
  hostedProgram: "",
};

const text = (n: number | undefined) => (n === undefined || n === null ? "" : String(n));

export function draftOf(spec: AgentSpecFields): AgentDraft {
  const auto = spec.model === AUTO_MODEL;
  return {
    name: spec.name,
    description: spec.description,
    instructions: spec.instructions,
    modelMode: auto ? "taskClass" : "model",
    model: auto ? DEFAULT_DRAFT.model : spec.model,
    taskClass: spec.taskClass,
    complexity: text(spec.complexity),
    tools: [...spec.tools],
    handoffs: [...spec.handoffs],
    callCap: text(spec.guardrails.callCap),
    costCeilingUsd: text(spec.guardrails.costCeilingUsd),
    maxRepeats: text(spec.guardrails.maxRepeats),
    maxFailingSteps: text(spec.guardrails.maxFailingSteps),
    sessionBudgetPct:
      spec.guardrails.sessionBudget === undefined || spec.guardrails.sessionBudget === null
        ? ""
        : String(Math.round(spec.guardrails.sessionBudget * 10_000) / 100),
    memoryTokens: text(spec.guardrails.memoryTokens),
    memoryConfirm: spec.guardrails.memoryConfirm ?? undefined,
    tier: spec.tier,
    secrets: [...spec.secrets],
    teamId: spec.teamId,
    hostedProgram: spec.hosted?.program ?? "",
  };
}

type NumberKind = "whole" | "decimal";

/** Blank is "not set"; anything else must be a number of the kind asked for. */
function parseNumber(value: string, kind: NumberKind, example: string): { value?: number; error?: string } {
  const t = value.trim();
  if (!t) return {};
  if (/^-\s*(\d|\.\d)/.test(t)) return { error: "cannot be negative" };
  const ok = kind === "whole" ? /^\d+$/.test(t) : /^(\d+(\.\d*)?|\.\d+)$/.test(t);
  if (!ok) return { error: kind === "whole" ? `must be a whole number, e.g. ${example}` : `must be a number, e.g. ${example}` };
  return { value: Number(t) };
}

/**
 * The spec to send, and the problems the browser finds itself: text where a
 * number belongs. Such a field is left out of the spec, so the server still
 * checks everything else and no problem hides another.
 */
export function specOf(draft: AgentDraft): { spec: AgentSpecFields; problems: Problem[] } {
  const problems: Problem[] = [];
  const num = (field: string, value: string, kind: NumberKind, example: string) => {
    const r = parseNumber(value, kind, example);
    if (r.error) problems.push({ field, message: r.error });
    return r.value;
  };
  const complexity = num("complexity", draft.complexity, "decimal", "0.7");
  const guardrails: AgentSpecFields["guardrails"] = {};
  const callCap = num("guardrails.callCap", draft.callCap, "whole", "80");
  const costCeilingUsd = num("guardrails.costCeilingUsd", draft.costCeilingUsd.replace(/^\$/, ""), "decimal", "2.50");
  const maxRepeats = num("guardrails.maxRepeats", draft.maxRepeats, "whole", "4");
  const maxFailingSteps = num("guardrails.maxFailingSteps", draft.maxFailingSteps, "whole", "5");
  if (callCap !== undefined) guardrails.callCap = callCap;
  if (costCeilingUsd !== undefined) guardrails.costCeilingUsd = costCeilingUsd;
  if (maxRepeats !== undefined) guardrails.maxRepeats = maxRepeats;
  if (maxFailingSteps !== undefined) guardrails.maxFailingSteps = maxFailingSteps;
  const sessionPct = num(
    "guardrails.sessionBudget",
    draft.sessionBudgetPct.replace(/%\s*$/, ""),
    "decimal",
    String(DEFAULT_SESSION_BUDGET_PCT),
  );
  if (sessionPct !== undefined) {
    if (sessionPct < MIN_SESSION_BUDGET_PCT || sessionPct > MAX_SESSION_BUDGET_PCT) {
      problems.push({
        field: "guardrails.sessionBudget",
        message: `must be from ${MIN_SESSION_BUDGET_PCT} to ${MAX_SESSION_BUDGET_PCT} (% of the model's context window)`,
      });
    } else guardrails.sessionBudget = Math.round(sessionPct * 100) / 10_000;
  }
  const memoryTokens = num("guardrails.memoryTokens", draft.memoryTokens.replace(/[,_\s]/g, ""), "whole", String(DEFAULT_MEMORY_TOKENS));
  if (memoryTokens !== undefined) {
    if (memoryTokens > MAX_MEMORY_TOKENS)
      problems.push({ field: "guardrails.memoryTokens", message: `must be at most ${MAX_MEMORY_TOKENS.toLocaleString("en-US")} tokens` });
    else guardrails.memoryTokens = memoryTokens;
  }
  if (draft.memoryConfirm !== undefined) guardrails.memoryConfirm = draft.memoryConfirm;
  // A hosted program brings its own tools and hands off to no one; the draft keeps Rein's in case "None" is chosen again.
  const hosted = draft.hostedProgram ? { program: draft.hostedProgram } : undefined;
  const spec: AgentSpecFields = {
    name: draft.name.trim(),
    description: draft.description,
    instructions: draft.instructions,
    model: draft.modelMode === "taskClass" ? AUTO_MODEL : draft.model,
    taskClass: draft.taskClass,
    ...(complexity !== undefined ? { complexity } : {}),
    tools: hosted ? [] : draft.tools,
    handoffs: hosted ? [] : draft.handoffs,
    guardrails,
    tier: draft.tier,
    secrets: draft.secrets,
    teamId: draft.teamId,
    ...(hosted ? { hosted } : {}),
  };
  return { spec, problems };
}

/** The form's fields, in the order they appear; a problem goes to the first whose path it is or is under. */
export const FIELD_LABELS = {
  name: "Name",
  description: "Description",
  instructions: "Instructions",
  model: "Model",
  taskClass: "Task class",
  complexity: "Complexity",
  hosted: "Hosted program",
  tools: "Tools",
  handoffs: "Hands off to",
  "guardrails.callCap": "Call cap",
  "guardrails.costCeilingUsd": "Cost ceiling",
  "guardrails.maxRepeats": "Max repeats of the same call",
  "guardrails.maxFailingSteps": "Max failing steps",
  "guardrails.sessionBudget": "Session budget",
  "guardrails.memoryTokens": "Memory budget",
  "guardrails.memoryConfirm": "Confirm saved memories",
  guardrails: "Guardrails",
  tier: "Tier",
  secrets: "Secrets",
  teamId: "Visible to",
} as const;

export type FieldKey = keyof typeof FIELD_LABELS;
const FIELD_KEYS = Object.keys(FIELD_LABELS) as FieldKey[];

/** "tools.2" → "tools", "guardrails.callCap" → "guardrails.callCap", "spec.name" → "name"; null when no field fits. */
export function fieldOf(path: string): FieldKey | null {
  const p = path.replace(/^spec\./, "");
  let best: FieldKey | null = null;
  for (const key of FIELD_KEYS) {
    if ((p === key || p.startsWith(`${key}.`) || p.startsWith(`${key}[`)) && (!best || key.length > best.length)) best = key;
  }
  return best;
}

export interface GroupedProblems {
  byField: Partial<Record<FieldKey, string[]>>;
  /** Problems about no field of the form (shown in the summary only). */
  other: string[];
  count: number;
}

/** Every problem, by field, duplicates dropped (the browser and the server may both find one). */
export function groupProblems(problems: Problem[]): GroupedProblems {
  const byField: Partial<Record<FieldKey, string[]>> = {};
  const other: string[] = [];
  let count = 0;
  for (const p of problems) {
    const field = fieldOf(p.field);
    const list = field ? (byField[field] ??= []) : other;
    if (list.includes(p.message)) continue;
    list.push(p.message);
    count++;
  }
  return { byField, other, count };
}

/** Problems the server attached to a failed request as zod-style issues ({ path, message }). */
export function problemsOfIssues(issues: Array<{ path: string; message: string }> | undefined): Problem[] {
  return (issues ?? []).map((i) => ({ field: i.path, message: i.message }));
}

/** Two drafts that would save the same spec. */
export function sameSpec(a: AgentDraft, b: AgentDraft): boolean {
  // Text that is not a number is not in the spec: compare what was typed too.
  const typed = (d: AgentDraft) =>
    [d.complexity, d.callCap, d.costCeilingUsd, d.maxRepeats, d.maxFailingSteps, d.sessionBudgetPct, d.memoryTokens]
      .map((t) => t.trim())
      .join("\n");
  return JSON.stringify(specOf(a).spec) === JSON.stringify(specOf(b).spec) && typed(a) === typed(b);
}

/** How an agent version reads: a tried, unsaved draft has a negative version. */
export function formatAgentVersion(version: number): string {
  return version < 0 ? "draft" : `v${version}`;
}

/** Agent names: 2–64 of a–z, 0–9 and -, starting with a letter (the server says the same). */
export function suggestCopyName(name: string, taken: readonly string[]): string {
  const base = `${name}-copy`.slice(0, 58);
  if (!taken.includes(base)) return base;
  for (let i = 2; ; i++) if (!taken.includes(`${base}-${i}`)) return `${base}-${i}`;
}
