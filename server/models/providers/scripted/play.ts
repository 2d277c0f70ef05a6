// What the scripted model plays next: the scenario's turns (or a variant's,
// chosen by the tools offered), with `{{result:<tool>.<path>}}` filled in from
// what an earlier call really returned, so a demo never writes a value it did
// not get.
import { isPersonMessage, parseSessionSeed } from "../../person-message";
import type { Message, Scenario, ScenarioTurn, ToolSpec } from "../../types";

const REF = /\{\{result:([a-z0-9_-]+)((?:\.[A-Za-z0-9_]+)*)\}\}/gi;

/**
 * The turns this run plays: those that agree with what the run already did
 * (the tools of each turn so far), preferring the first variant whose tools
 * are all offered now, else the scenario's own. A tool hot-loaded mid-run is
 * taken up only while the run's past still fits the variant that uses it.
 */
export function turnsFor(scenario: Scenario, prompt: Message[], tools: ToolSpec[] | undefined): ScenarioTurn[] {
  return pickTurns(scenario, walk(scenario, prompt, tools).played, tools);
}

/** The script's turns played so far, each as its tool names; null: a turn of an earlier session (unseen, taken to fit). */
type Played = Array<string | null>;

function pickTurns(scenario: Scenario, played: Played, tools: ToolSpec[] | undefined): ScenarioTurn[] {
  const variants = scenario.variants ?? [];
  if (!variants.length) return scenario.turns;
  const fits = (turns: ScenarioTurn[]) =>
    played.every((names, i) => names === null || (turns[i]?.toolCalls ?? []).map((c) => c.tool).join(",") === names);
  const offered = new Set((tools ?? []).map((t) => t.name));
  const usable = variants.find((v) => fits(v.turns) && v.tools.every((t) => offered.has(t)));
  if (usable) return usable.turns;
  if (fits(scenario.turns)) return scenario.turns;
  return variants.find((v) => fits(v.turns))?.turns ?? scenario.turns;
}

/** What the scripted model says to a person's message when its scenario has no `onMessage`: the truth. */
export const DEFAULT_REPLIES: ScenarioTurn[] = [
  { text: "I read your message. I am Rein's scripted demo model, so I cannot act on what it asks; I go on with my script." },
];

/** A reply said together with the script's next turn: the last one, text only, with the script not finished. */
function mergesWithScript(replies: ScenarioTurn[], index: number, scriptLeft: boolean): boolean {
  return index === replies.length - 1 && !replies[index].toolCalls?.length && scriptLeft;
}

/**
 * Where a scripted run is, read off its prompt: the script's turns played so
 * far (each as its tool names), and, while it answers a person's message,
 * which of the replies comes next. A fresh session's seed says how many model
 * turns came before it; they count as the script's (replies to messages in
 * earlier sessions included, a limit of a model that reads only its prompt).
 */
function walk(scenario: Scenario, prompt: Message[], tools: ToolSpec[] | undefined): { played: Played; reply: number | null } {
  const replies = scenario.onMessage ?? DEFAULT_REPLIES;
  const seed = prompt.find((m) => m.role !== "system");
  const before = seed ? parseSessionSeed(seed) : null;
  const played: Played = before ? Array.from({ length: before.turnsBefore }, () => null) : [];
  let reply: number | null = null;
  // The goal is no message to answer, even when it looks like one; a fresh
  // session's seed follows turns already played, so a message after it is.
  let started = before !== null;
  for (const m of prompt) {
    if (started && isPersonMessage(m)) reply = 0;
    if (m.role !== "assistant") continue;
    started = true;
    const names = m.content.flatMap((p) => (p.type === "tool-call" ? [p.toolName] : [])).join(",");
    if (reply === null) {
      played.push(names);
      continue;
    }
    if (mergesWithScript(replies, reply, pickTurns(scenario, played, tools).length > played.length)) played.push(names);
    reply = reply + 1 < replies.length ? reply + 1 : null;
  }
  return { played, reply };
}

/**
 * The turn to play now (undefined: the script is over), and the script's turn
 * before it (its `mayFail` tells whether a failure was expected).
 */
export function nextTurn(
  scenario: Scenario,
  prompt: Message[],
  tools: ToolSpec[] | undefined,
): { turn: ScenarioTurn | undefined; previous: ScenarioTurn | undefined } {
  const { played, reply } = walk(scenario, prompt, tools);
  const turns = pickTurns(scenario, played, tools);
  const script = turns[played.length];
  const previous = turns[played.length - 1];
  if (reply === null) return { turn: script, previous };
  const replies = scenario.onMessage ?? DEFAULT_REPLIES;
  const said = replies[reply];
  if (!mergesWithScript(replies, reply, !!script)) return { turn: said, previous };
  return {
    turn: { ...script, text: [said.text, script.text].filter(Boolean).join("\n\n") },
    previous,
  };
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
    ...(turn.toolCalls
      ? { toolCalls: turn.toolCalls.map((c) => ({ ...c, args: fillValue(c.args, fill) as Record<string, unknown> })) }
      : {}),
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
