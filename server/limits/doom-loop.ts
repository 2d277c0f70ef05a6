// The doom-loop guard (docs/human-requests-and-policy.md#the-doom-loop-guard):
// an agent that calls the same tool with the same arguments again and again is
// stopped and a person asked.
import type { Message } from "@/server/models";
import { canonicalJson } from "@/server/tools";

/** A call repeated this many times in a row pauses the run for a person, by default. */
export const DEFAULT_MAX_REPEATS = 4;

/**
 * How many times in a row the run has made this exact call, counting this one:
 * the calls that already have results, in order, then the current one.
 */
export function consecutiveRepeats(messages: readonly Message[], call: { toolName: string; args: unknown }): number {
  const keyOf = (name: string, args: unknown) => `${name}\u0000${canonicalJson(args)}`;
  const answered = new Set<string>();
  for (const m of messages) if (m.role === "tool") for (const r of m.content) answered.add(r.toolCallId);
  const done: string[] = [];
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const part of m.content)
      if (part.type === "tool-call" && answered.has(part.toolCallId)) done.push(keyOf(part.toolName, part.input));
  }
  const key = keyOf(call.toolName, call.args);
  let n = 1;
  for (let i = done.length - 1; i >= 0 && done[i] === key; i--) n++;
  return n;
}

/** Whether this call should stop for a person: at max repeats, and again at every multiple of it. */
export function loopSuspected(repeats: number, maxRepeats = DEFAULT_MAX_REPEATS): boolean {
  return maxRepeats > 0 && repeats >= maxRepeats && repeats % maxRepeats === 0;
}

/** Steps without progress pause the run at this many, by default. */
export const DEFAULT_MAX_FAILING_STEPS = 5;

/**
 * Model turns in a row, most recent last, in which every tool call failed: the
 * agent is busy but gets nowhere. Turns whose calls have not all run yet are
 * not counted.
 */
export function stepsWithoutProgress(messages: readonly Message[]): number {
  const failed = new Map<string, boolean>();
  for (const m of messages) if (m.role === "tool") for (const r of m.content) failed.set(r.toolCallId, !!r.isError);
  let n = 0;
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    const ids = m.content.filter((p) => p.type === "tool-call").map((p) => (p as { toolCallId: string }).toolCallId);
    if (ids.length === 0 || ids.some((id) => !failed.has(id))) continue;
    n = ids.every((id) => failed.get(id)) ? n + 1 : 0;
  }
  return n;
}
