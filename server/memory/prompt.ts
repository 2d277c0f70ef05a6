// The memories section of a run's system prompt, within a token budget:
// pinned memories first, then those most relevant to the goal. What does not
// fit is counted, never dropped silently.
import { countTokens } from "@/server/models";
import type { MemoryStore } from "./store";
import type { LoadedMemory, MemoryRunScope, MemoryView } from "./types";

export const MEMORY_HEADER = "Memories from earlier runs (yours and your team's; call recall to search for more):";
export const DEFAULT_MEMORY_TOKENS = 1_500;

const omittedLine = (n: number) => `(${n} more relevant memor${n === 1 ? "y" : "ies"} did not fit; call recall to find them.)`;
/** How a scenario run's memory is framed to a model: a person's scripted words, not an agent's experience. */
export const SCENARIO_ORIGIN_NOTE = "written by a person's scripted scenario, not learned by an agent";
const lineOf = (m: MemoryView) =>
  `- [${m.kind}, ${m.scope}${m.pinned ? ", pinned" : ""}${m.origin === "scenario" ? `, ${SCENARIO_ORIGIN_NOTE}` : ""}] ${m.title}: ${m.text.replace(/\s*\n\s*/g, " ")}`;

export interface MemoriesSection {
  text: string | null;
  loaded: LoadedMemory[];
  omitted: number;
}

/** Lays the memories out in order while they fit the budget (header and closing line included). */
export function memoriesSection(memories: MemoryView[], budgetTokens: number): MemoriesSection {
  if (!memories.length || budgetTokens <= 0) return { text: null, loaded: [], omitted: 0 };
  const reserve = countTokens(`\n${omittedLine(memories.length)}`);
  let used = countTokens(MEMORY_HEADER);
  const lines: string[] = [];
  const loaded: LoadedMemory[] = [];
  let omitted = 0;
  for (const m of memories) {
    const line = lineOf(m);
    const cost = countTokens(`\n${line}`);
    if (used + cost + reserve <= budgetTokens) {
      lines.push(line);
      loaded.push({ id: m.id, title: m.title, kind: m.kind, scope: m.scope, origin: m.origin, tokens: cost });
      used += cost;
    } else omitted++;
  }
  if (!loaded.length) return { text: null, loaded: [], omitted };
  if (omitted) lines.push(omittedLine(omitted));
  return { text: [MEMORY_HEADER, ...lines].join("\n"), loaded, omitted };
}

export interface MemoriesForInput extends MemoryRunScope {
  goal: string;
  budgetTokens: number;
}

/** The prompt loader: picks, lays out, and counts each loaded memory as used. */
export async function memoriesFor(store: MemoryStore, input: MemoriesForInput): Promise<MemoriesSection> {
  if (input.budgetTokens <= 0) return { text: null, loaded: [], omitted: 0 };
  const pinned = await store.pinnedFor(input);
  const relevant = await store.relevantTo(input.goal, input);
  const seen = new Set(pinned.map((m) => m.id));
  const ordered = [...pinned, ...relevant.filter((m) => !seen.has(m.id))];
  const section = memoriesSection(ordered, input.budgetTokens);
  await store.markUsed(section.loaded.map((m) => m.id));
  return section;
}
