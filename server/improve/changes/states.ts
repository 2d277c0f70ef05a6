// Change requests (docs/changes.md) as a state machine: every allowed
// transition in one table, walked exhaustively by the tests.
//
//   draft -> checks_running -> checks_failed | awaiting_review
//   checks_failed -> checks_running (re-run) | rejected
//   awaiting_review -> merged | rejected | checks_running (the target moved)
//   merged -> reverted
export const CHANGE_STATES = ["draft", "checks_running", "checks_failed", "awaiting_review", "merged", "rejected", "reverted"] as const;
export type ChangeState = (typeof CHANGE_STATES)[number];

const TRANSITIONS: Record<ChangeState, readonly ChangeState[]> = {
  draft: ["checks_running", "rejected"],
  checks_running: ["checks_failed", "awaiting_review"],
  checks_failed: ["checks_running", "rejected"],
  // Back to checks when the target branch moved: the change is tested on the new base before it merges.
  awaiting_review: ["merged", "rejected", "checks_running"],
  merged: ["reverted"],
  rejected: [],
  reverted: [],
};

export const CHANGE_OPEN: readonly ChangeState[] = ["draft", "checks_running", "checks_failed", "awaiting_review"];

export const isChangeState = (v: unknown): v is ChangeState => typeof v === "string" && (CHANGE_STATES as readonly string[]).includes(v);
export const canChangeGo = (from: ChangeState, to: ChangeState) => TRANSITIONS[from].includes(to);
export const changeSourcesOf = (to: ChangeState) => CHANGE_STATES.filter((s) => TRANSITIONS[s].includes(to));

/** What must hold before a change request merges; every one, checked at the moment of merging. */
export interface MergeFacts {
  state: ChangeState;
  checksPassed: boolean;
  /** The eval gate's verdict when the repository declares a dataset; null when it declares none. */
  evalPassed: boolean | null;
  /** The approve request's state, and who decided it. */
  approval: { state: string; decidedById: string | null } | null;
  /** Who launched the run that wrote the change: they cannot approve their own change. */
  authorLaunchedById: string;
  /** The change still applies on the target's current head (tested there). */
  appliesOnTarget: boolean;
}

/** Why a change cannot merge now, in a person's words; null when it can. */
export function mergeRefusal(f: MergeFacts): string | null {
  if (f.state !== "awaiting_review") return `A change request that is ${f.state.replace("_", " ")} cannot be merged`;
  if (!f.checksPassed) return "Its checks have not passed";
  if (f.evalPassed === false) return "Its eval gate failed against the baseline";
  if (!f.approval || f.approval.state !== "APPROVED") return "No approver has approved it yet";
  if (f.approval.decidedById === f.authorLaunchedById)
    return "The person who launched the run that wrote it approved it; another approver must";
  if (!f.appliesOnTarget) return "The target branch moved and the change no longer applies there; its checks run again on the new base";
  return null;
}
