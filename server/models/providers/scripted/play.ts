// What the scripted model plays next: the scenario's turns (or a variant's,
// chosen by the tools offered), with `{{result:<tool>.<path>}}` filled in from
// what an earlier call really returned, so a demo never writes a value it did
// not get.
import type { Message, Scenario, ScenarioTurn, ToolSpec } from "../../types";

const REF = /\{\{result:([a-z0-9_-]+)((?:\.[A-Za-z0-9_]+)*)\}\}/gi;

/**
 * The turns this run plays. At the first turn: the first variant whose tools
 * are all offered. Later, the one whose first turn's calls match what the run
 * already did: a tool hot-loaded mid-run does not switch a run half way.
 */
export function turnsFor(scenario: Scenario, prompt: Message[], tools: ToolSpec[] | undefined): ScenarioTurn[] {
  const variants = scenario.variants ?? [];
  if (!variants.length) return scenario.turns;
  const firstTurn = prompt.find((m) => m.role === "assistant");
  if (firstTurn && firstTurn.role === "assistant") {
    const called = firstTurn.content.flatMap((p) => (p.type === "tool-call" ? [p.toolName] : [])).join(",");
    const names = (turns: ScenarioTurn[]) => (turns[0]?.toolCalls ?? []).map((c) => c.tool).join(",");
    return variants.find((v) => names(v.turns) === called)?.turns ?? scenario.turns;
  }
  const offered = new Set((tools ?? []).map((t) => t.name));
  return variants.find((v) => v.tools.every((t) => offered.has(t)))?.turns ?? scenario.turns;
}

export class MissingResultError extends Error {
  constructor(readonly ref: string) {
    super(`the scenario needs ${ref}, which no earlier tool call returned`);
    this.name = "MissingResultError";
  }
}

/** The turn with every `{{result:…}}` replaced by the value the named tool last returned; throws MissingResultError. */
export function fillTurn(turn: ScenarioTurn, prompt: Message[]): ScenarioTurn {
  if (!JSON.stringify(turn).includes("{{result:")) return turn;
  const fill = (text: string) =>
    text.replace(REF, (ref, tool: string, path: string) => {
      const value = lookup(latestOutput(prompt, tool), path);
      if (value === undefined) throw new MissingResultError(ref);
      return typeof value === "string" ? value : JSON.stringify(value);
    });
  return {
    ...turn,
    ...(turn.text !== undefined ? { text: fill(turn.text) } : {}),
    ...(turn.toolCalls ? { toolCalls: turn.toolCalls.map((c) => ({ ...c, args: fillValue(c.args, fill) as Record<string, unknown> })) } : {}),
  };
}

function fillValue(value: unknown, fill: (s: string) => string): unknown {
  if (typeof value === "string") return fill(value);
  if (Array.isArray(value)) return value.map((v) => fillValue(v, fill));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillValue(v, fill)]));
  return value;
}

/** The output of the named tool's latest successful call in the prompt. */
function latestOutput(prompt: Message[], tool: string): unknown {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const m = prompt[i];
    if (m.role !== "tool") continue;
    const part = [...m.content].reverse().find((p) => p.toolName === tool && !p.isError);
    if (part) return part.output;
  }
  return undefined;
}

function lookup(value: unknown, path: string): unknown {
  let at = value;
  for (const key of path.split(".").filter(Boolean)) {
    if (!at || typeof at !== "object" || !Object.prototype.hasOwnProperty.call(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at ?? undefined;
}
