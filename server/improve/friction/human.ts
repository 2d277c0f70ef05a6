// Reading human requests back from the event log. `human.requested` does not
// say which gate slot asked (the kernel leaves `slot` out), so the slot is
// inferred from the tool and the title the HITL gate writes; a `slot` in the
// payload wins when there is one.
import { signaturePart } from "./normalize";

export type RequestSlot = "policy" | "consent" | "ask_human" | "loop" | "replay" | (string & {});

/** What of a human.requested payload tells its slot. */
export interface RequestedPayload {
  title?: string;
  tool?: string;
  slot?: string;
}

/** Titles of server/hitl/gate.ts's loop requests: "<tool> ran N times in a row with the same arguments", "No progress for N steps: ...". */
const REPEAT_TITLE_END = " times in a row with the same arguments";
const NO_PROGRESS_TITLE_START = "No progress for ";
const REPLAY_TITLE_START = "Unknown whether ";

export function slotOf(p: RequestedPayload): RequestSlot {
  if (typeof p.slot === "string") return p.slot;
  if (p.tool === "ask_human") return "ask_human";
  if (loopReason(p.title) !== null) return "loop";
  if (p.title?.startsWith(REPLAY_TITLE_START)) return "replay";
  // A policy approval or a tool's consent question: the call's result tells them apart (ruleOf).
  return "policy";
}

/** Why the doom-loop guard asked: the same call repeated, or every call failing. */
export function loopReason(title: string | undefined): "repeat" | "no_progress" | null {
  if (!title) return null;
  if (title.endsWith(REPEAT_TITLE_END)) return "repeat";
  if (title.startsWith(NO_PROGRESS_TITLE_START)) return "no_progress";
  return null;
}

interface GatePolicy {
  effect?: unknown;
  level?: unknown;
  rule?: unknown;
  reason?: unknown;
}

/**
 * The policy rule that put a call before a person, as a signature part:
 * `rule:<level>:<name>` when the rule is named (the reason reads
 * `rule 3 "name" (team level) ...`), else `rule:<level>:#<n>` (1-based, as
 * people read it; it shifts when the policy is edited), or null when the
 * policy did not ask (the request was the tool's own consent question).
 */
export function ruleOf(policy: GatePolicy | undefined): string | null {
  if (!policy || policy.effect !== "ask") return null;
  const level = typeof policy.level === "string" ? signaturePart(policy.level, 16) : "_";
  if (typeof policy.rule !== "number") return `rule:${level}:default`;
  const name = typeof policy.reason === "string" ? ruleName(policy.reason) : null;
  return `rule:${level}:${name ?? `#${policy.rule + 1}`}`;
}

/** The JSON-quoted rule name right after `rule <n> ` in a policy reason, or null. */
function ruleName(reason: string): string | null {
  if (!reason.startsWith("rule ")) return null;
  let i = 5;
  while (i < reason.length && reason.charCodeAt(i) >= 48 && reason.charCodeAt(i) <= 57) i++;
  if (reason[i] !== " " || reason[i + 1] !== '"') return null;
  const start = i + 1;
  for (let j = start + 1; j < Math.min(reason.length, start + 200); j++) {
    if (reason[j] === "\\") j++;
    else if (reason[j] === '"') {
      try {
        const name = JSON.parse(reason.slice(start, j + 1));
        return typeof name === "string" && name ? name.replaceAll("|", "/") : null;
      } catch {
        return null;
      }
    }
  }
  return null;
}
