// What the scripted model plays next: the scenario's turns (or a variant's,
// chosen by the tools offered), with `{{result:<tool>.<path>}}` filled in from
// what an earlier call really returned, so a demo never writes a value it did
// not get.
import type { Message, Scenario, ScenarioTurn, ToolSpec } from "../../types";

const REF = /\{\{result:([a-z0-9_-]+)((?:\.[A-Za-z0-9_]+)*)\}\}/gi;

/**
 * The turns this run plays: those that agree with what the run already did
 * (the tools of each turn so far), preferring the first variant whose tools
 * are all offered now, else the scenario's own. A tool hot-loaded mid-run is
 * taken up only while the run's past still fits the variant that uses it.
 */
export function turnsFor(scenario: Scenario, prompt: Message[], tools: ToolSpec[] | undefined): ScenarioTurn[] {
  const variants = scenario.variants ?? [];
  if (!variants.length) return scenario.turns;
  const played = prompt.flatMap((m) => (m.role === "assistant" ? [m.content.flatMap((p) => (p.type === "tool-call" ? [p.toolName] : [])).join(",")] : []));
  const fits = (turns: ScenarioTurn[]) => played.every((names, i) => (turns[i]?.toolCalls ?? []).map((c) => c.tool).join(",") === names);
  const offered = new Set((tools ?? []).map((t) => t.name));
  const usable = variants.find((v) => fits(v.turns) && v.tools.every((t) => offered.has(t)));
  if (usable) return usable.turns;
  if (fits(scenario.turns)) return scenario.turns;
  return variants.find((v) => fits(v.turns))?.turns ?? scenario.turns;
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
