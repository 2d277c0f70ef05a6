// Which friction is the agent's struggle, for the improver to answer, and
// which is a person's choice, kept only as a signal (docs/improvements.md#friction):
// a person rejecting or editing a call, a policy rule denying it, a budget or
// a step limit a person set, a person taking over, and what the doom-loop
// guard paused start no hack cycle.
import type { FrictionKind } from "./types";

const SIGNAL_ONLY: Record<Exclude<FrictionKind, "repeated_failure" | "unknown_tool">, string> = {
  human_rejected: "a person rejected the call: their decision, not a problem to work around",
  human_edited: "a person edited the call's arguments: their choice, kept as a signal",
  human_takeover: "a person took over: their choice, kept as a signal",
  budget_stop: "a budget or step limit a person set stopped the run",
  doom_loop: "the doom-loop guard paused the run; a runtime tool does not answer it",
};

/** Failure codes that are a limit a person set, even when they repeat. */
const PERSONS_LIMITS: Record<string, string> = {
  POLICY_DENIED: "a policy rule a person wrote denied the call: the improver must not work around it",
  REJECTED_BY_HUMAN: "a person rejected the call: their decision, not a problem to work around",
};

/**
 * Null when the friction is the agent's to overcome (a hack cycle may start
 * for it); otherwise why it is only a signal, in words.
 */
export function signalOnlyBecause(kind: string, signature: string): string | null {
  if (kind === "repeated_failure") {
    // repeated_failure|<tool>|<code>|<message>
    const code = signature.split("|")[2] ?? "";
    return PERSONS_LIMITS[code] ?? null;
  }
  if (kind === "unknown_tool") return null;
  return SIGNAL_ONLY[kind as keyof typeof SIGNAL_ONLY] ?? "not a kind the improver answers";
}
