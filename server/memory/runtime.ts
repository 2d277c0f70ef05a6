// Memory as the kernel sees it (RunMemory): the tools it offers and the
// memories section of a run's system prompt, read once per session.
import type { AgentSpec } from "@/server/kernel";
import { memoriesFor, DEFAULT_MEMORY_TOKENS } from "./prompt";
import type { MemoryStore } from "./store";
import { MEMORY_TOOL_NAMES } from "./tools";
import type { LoadedMemory } from "./types";

export interface RunMemoryPrompt {
  /** The section for the system prompt, or null when nothing was loaded. */
  text: string | null;
  /** What was loaded: the payload of the run's memory.loaded event (with budgetTokens and omitted). */
  loaded: LoadedMemory[];
  omitted: number;
  budgetTokens: number;
}

export interface RunMemory {
  /** The memory tools the run's agent may call: remember and recall. */
  toolsFor(run: { agentName: string }, spec: Pick<AgentSpec, "guardrails">): string[];
  /**
   * The memories to load into the run's system prompt (call once per session;
   * each loaded memory counts as used), within the agent's budget and at most `capTokens`.
   */
  promptFor(
    run: { id: string; teamId: string | null; goal: string; agentName: string; createdById?: string | null },
    spec: Pick<AgentSpec, "guardrails">,
    capTokens?: number,
  ): Promise<RunMemoryPrompt>;
}

/** The agent spec's memory budget: guardrails.memoryTokens, 1,500 by default, 0 loads none. */
export function memoryBudget(spec: Pick<AgentSpec, "guardrails">): number {
  const v = spec.guardrails?.memoryTokens;
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.floor(v) : DEFAULT_MEMORY_TOKENS;
}

export function createRunMemory(store: MemoryStore): RunMemory {
  return {
    toolsFor: () => [...MEMORY_TOOL_NAMES],
    async promptFor(run, spec, capTokens) {
      const budgetTokens = Math.min(memoryBudget(spec), capTokens ?? Infinity);
      const section = await memoriesFor(store, {
        agentName: run.agentName,
        teamId: run.teamId,
        ownerId: run.createdById ?? null,
        runId: run.id,
        goal: run.goal,
        budgetTokens,
      });
      return { ...section, budgetTokens };
    },
  };
}
