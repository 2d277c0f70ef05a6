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
 *
 * Read from the newest message back, stopping at the first answered call that
 * differs: it runs before every tool call, and reading (and canonicalising) the
 * whole history each time made a long run's steps slower the longer it ran
 * (docs/performance.md#a-long-run-holds-the-server). A call's result comes after
 * it, so walking back, every result is seen before its call.
 */
export function consecutiveRepeats(messages: readonly Message[], call: { toolName: string; args: unknown }): number {
  const key = canonicalJson(call.args);
  const answered = new Set<string>();
  let n = 1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === "tool") {
      for (const r of m.content) answered.add(r.toolCallId);
      continue;
    }
    if (m.role !== "assistant") continue;
    for (let j = m.content.length - 1; j >= 0; j--) {
      const part = m.content[j];
      if (part.type !== "tool-call" || !answered.has(part.toolCallId)) continue;
      if (part.toolName !== call.toolName || canonicalJson(part.input) !== key) return n;
      n++;
    }
  }
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
 * not counted. Read from the newest message back, stopping at the first turn
 * with a call that succeeded.
 */
export function stepsWithoutProgress(messages: readonly Message[]): number {
  const failed = new Map<string, boolean>();
  let n = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === "tool") {
      for (const r of m.content) if (!failed.has(r.toolCallId)) failed.set(r.toolCallId, !!r.isError); // the newest result counts
      continue;
    }
    if (m.role !== "assistant") continue;
    const ids: string[] = [];
    for (const p of m.content) if (p.type === "tool-call") ids.push(p.toolCallId);
    if (ids.length === 0 || ids.some((id) => !failed.has(id))) continue;
    if (!ids.every((id) => failed.get(id))) return n;
    n++;
  }
  return n;
}
