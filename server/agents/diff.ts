// What changed between two versions of an agent: each field with a label a
// person reads, and the instructions line by line (a longest-common-
// subsequence diff; large inputs fall back to "all removed, all added" for
// the part between their common start and end, so it stays quick).
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import type { AgentSpecFields } from "./input";
import { getAgent } from "./views";

export interface FieldChange {
  field: string;
  label: string;
  before: string;
  after: string;
}

export interface DiffLine {
  kind: "same" | "add" | "del";
  text: string;
}

export interface AgentDiff {
  changes: FieldChange[];
  instructions: DiffLine[];
}

const LABELS: Array<[string, string, (s: AgentSpecFields) => unknown]> = [
  ["description", "Description", (s) => s.description],
  ["model", "Model", (s) => s.model],
  ["taskClass", "Task class", (s) => s.taskClass],
  ["complexity", "Complexity", (s) => s.complexity],
  ["tier", "Tier", (s) => s.tier],
  ["tools", "Tools", (s) => s.tools],
  ["handoffs", "Hands off to", (s) => s.handoffs],
  ["secrets", "Secrets", (s) => s.secrets],
  ["guardrails.callCap", "Call cap", (s) => s.guardrails.callCap],
  ["guardrails.costCeilingUsd", "Cost ceiling (USD)", (s) => s.guardrails.costCeilingUsd],
  ["guardrails.maxRepeats", "Repeat limit", (s) => s.guardrails.maxRepeats],
  ["guardrails.maxFailingSteps", "Failing-step limit", (s) => s.guardrails.maxFailingSteps],
  ["guardrails.sessionBudget", "Session budget (share of the context window)", (s) => s.guardrails.sessionBudget],
  ["guardrails.memoryTokens", "Memory budget (tokens)", (s) => s.guardrails.memoryTokens],
  ["guardrails.memoryConfirm", "Saved memories need confirmation", (s) => s.guardrails.memoryConfirm],
];

function shown(value: unknown): string {
  if (value === undefined || value === null) return "(not set)";
  if (Array.isArray(value)) return value.length ? value.join(", ") : "(none)";
  return String(value);
}

export function diffFields(before: AgentSpecFields, after: AgentSpecFields): FieldChange[] {
  return LABELS.flatMap(([field, label, get]) => {
    const a = shown(get(before));
    const b = shown(get(after));
    return a === b ? [] : [{ field, label, before: a, after: b }];
  });
}

/** Beyond this many cells the middle part is not aligned line by line. */
const MAX_CELLS = 4_000_000;

export function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split("\n");
  const b = after.split("\n");
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const head = a.slice(0, start).map((text): DiffLine => ({ kind: "same", text }));
  const tail = a.slice(endA).map((text): DiffLine => ({ kind: "same", text }));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  return [...head, ...lcs(midA, midB), ...tail];
}

function lcs(a: string[], b: string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_CELLS)
    return [...a.map((text): DiffLine => ({ kind: "del", text })), ...b.map((text): DiffLine => ({ kind: "add", text }))];
  // len[i][j]: the longest common subsequence of a[i..] and b[j..].
  const width = m + 1;
  const len = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      len[i * width + j] = a[i] === b[j] ? len[(i + 1) * width + j + 1] + 1 : Math.max(len[(i + 1) * width + j], len[i * width + j + 1]);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ kind: "same", text: a[i] });
      i++;
      j++;
    } else if (len[(i + 1) * width + j] >= len[i * width + j + 1]) {
      out.push({ kind: "del", text: a[i++] });
    } else {
      out.push({ kind: "add", text: b[j++] });
    }
  }
  while (i < n) out.push({ kind: "del", text: a[i++] });
  while (j < m) out.push({ kind: "add", text: b[j++] });
  return out;
}

export async function diffVersions(db: Db, actor: Actor, name: string, from: number, to: number): Promise<AgentDiff> {
  const before = await getAgent(db, actor, name, from);
  const after = await getAgent(db, actor, name, to);
  return { changes: diffFields(before, after), instructions: diffLines(before.instructions, after.instructions) };
}
