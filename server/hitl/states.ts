// Human request state machine (docs/human-requests-and-policy.md#states). Only
// veto requests go EXPIRED -> APPROVED (nobody vetoed in time); veto requests
// have no ladder.
import { HumanRequestError, type DecisionInput, type RequestKind, type RequestState } from "./types";

const TRANSITIONS: Record<RequestState, readonly RequestState[]> = {
  PENDING: ["APPROVED", "REJECTED", "EXPIRED", "ESCALATED", "CANCELED"],
  ESCALATED: ["APPROVED", "REJECTED", "EXPIRED", "CANCELED"],
  EXPIRED: ["APPROVED"],
  APPROVED: [],
  REJECTED: [],
  CANCELED: [],
};

export function canTransitionRequest(kind: RequestKind, from: RequestState, to: RequestState): boolean {
  if (!TRANSITIONS[from].includes(to)) return false;
  if (from === "EXPIRED" && to === "APPROVED") return kind === "veto";
  // A veto has no ladder: it never reaches ESCALATED, so it never leaves it either.
  if (kind === "veto") return from !== "ESCALATED" && to !== "ESCALATED";
  return true;
}

export function assertRequestTransition(kind: RequestKind, from: RequestState, to: RequestState): void {
  if (!canTransitionRequest(kind, from, to)) {
    throw new HumanRequestError("INVALID_TRANSITION", `${article(kind)} ${kind} request cannot go from ${from} to ${to}`);
  }
}

/** States from which `to` is reachable for this kind, for compare-and-set updates. */
export function requestSourcesOf(kind: RequestKind, to: RequestState): RequestState[] {
  return (Object.keys(TRANSITIONS) as RequestState[]).filter((from) => canTransitionRequest(kind, from, to));
}

export function isOpen(state: RequestState): boolean {
  return state === "PENDING" || state === "ESCALATED";
}

/** The answers each kind accepts, and the state each leads to. */
const DECISION_TARGETS: Record<RequestKind, Partial<Record<DecisionInput["decision"], RequestState>>> = {
  approve: { approve: "APPROVED", reject: "REJECTED" },
  choose: { choose: "APPROVED", reject: "REJECTED" },
  provide: { provide: "APPROVED", reject: "REJECTED" },
  veto: { veto: "REJECTED", approve: "APPROVED" },
};

/** The state a decision moves the request to, or a clear error when the kind does not take that answer. */
export function decisionTarget(kind: RequestKind, decision: DecisionInput["decision"]): RequestState {
  const target = DECISION_TARGETS[kind][decision];
  if (!target) {
    const accepted = Object.keys(DECISION_TARGETS[kind]).join(" or ");
    throw new HumanRequestError("INVALID_DECISION", `${article(kind)} ${kind} request is answered with ${accepted}, not ${decision}`);
  }
  return target;
}

function article(kind: RequestKind): string {
  return kind === "approve" ? "An" : "A";
}
