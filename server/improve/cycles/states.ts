// Hack cycles as a state machine (docs/improvements.md#the-hack-cycle): every
// allowed transition in one table, walked exhaustively by the tests.
//
//   DETECT -> ISOLATE -> MODIFY <-> TEST -> GATE -> DEPLOY
//   any state but DEPLOY -> ABANDONED (archived with the reason)
import { DomainError } from "@/server/errors";
export const CYCLE_STATES = ["DETECT", "ISOLATE", "MODIFY", "TEST", "GATE", "DEPLOY", "ABANDONED"] as const;
export type CycleState = (typeof CYCLE_STATES)[number];

const TRANSITIONS: Record<CycleState, readonly CycleState[]> = {
  DETECT: ["ISOLATE", "ABANDONED"],
  ISOLATE: ["MODIFY", "ABANDONED"],
  MODIFY: ["TEST", "ABANDONED"],
  // TEST -> MODIFY: another attempt, while attempts are left.
  TEST: ["MODIFY", "GATE", "ABANDONED"],
  GATE: ["DEPLOY", "ABANDONED"],
  DEPLOY: [],
  ABANDONED: [],
};

/** MODIFY is entered at most this many times per cycle. */
export const MAX_ATTEMPTS = 3;
/** Deployments a single agent session (the run whose friction started the cycles) may get. */
export const MAX_DEPLOYS_PER_SESSION = 2;
/** The time box of a cycle, from DETECT to DEPLOY. */
export const DEFAULT_TIME_BOX_MS = 5 * 60_000;

export const CYCLE_ACTIVE: readonly CycleState[] = ["DETECT", "ISOLATE", "MODIFY", "TEST", "GATE"];
export const CYCLE_ENDED: readonly CycleState[] = ["DEPLOY", "ABANDONED"];

export const isCycleState = (v: unknown): v is CycleState => typeof v === "string" && (CYCLE_STATES as readonly string[]).includes(v);
export const canCycleGo = (from: CycleState, to: CycleState) => TRANSITIONS[from].includes(to);
/** States from which `to` can be reached, for compare-and-set updates. */
export const cycleSourcesOf = (to: CycleState) => CYCLE_STATES.filter((s) => TRANSITIONS[s].includes(to));

export class CycleTransitionError extends DomainError {
  constructor(
    readonly from: string,
    readonly to: string,
    why?: string,
  ) {
    super("CONFLICT", why ?? `A hack cycle cannot go from ${from} to ${to}`);
    this.name = "CycleTransitionError";
  }
}

/**
 * Whether a cycle with `attempts` MODIFY entries so far may go to `to`; the
 * attempt limit is part of the machine, not of whoever drives it.
 */
export function checkCycleTransition(from: CycleState, to: CycleState, attempts: number): void {
  if (!canCycleGo(from, to)) throw new CycleTransitionError(from, to);
  if (to === "MODIFY" && attempts >= MAX_ATTEMPTS) {
    throw new CycleTransitionError(from, to, `The cycle used its ${MAX_ATTEMPTS} attempts; it is abandoned instead of trying again`);
  }
}

/** What a restarted server does with a cycle it finds in each state. */
export type RestartAction =
  { kind: "resume"; from: CycleState } | { kind: "wait" } | { kind: "gate" } | { kind: "abandon"; reason: string } | { kind: "none" };

/**
 * A cycle survives a restart; it resumes, or is abandoned with a reason, and
 * never half-deploys (DEPLOY is one transaction, so a cycle is either
 * deployed or not): docs/improvements.md#the-hack-cycle.
 */
export function onRestart(
  state: CycleState,
  facts: { now: Date; deadlineAt: Date; improverRun: "none" | "active" | "succeeded" | "ended" },
): RestartAction {
  if (CYCLE_ENDED.includes(state)) return { kind: "none" };
  if (facts.now.getTime() > facts.deadlineAt.getTime()) return { kind: "abandon", reason: "Its time box ran out while Rein was down" };
  switch (state) {
    case "DETECT":
    case "ISOLATE":
      // Nothing was written for the improver yet but the cycle row: gather the evidence again.
      return facts.improverRun === "none" ? { kind: "resume", from: state } : { kind: "wait" };
    case "MODIFY":
    case "TEST":
      if (facts.improverRun === "active") return { kind: "wait" };
      if (facts.improverRun === "succeeded") return { kind: "gate" };
      return {
        kind: "abandon",
        reason: facts.improverRun === "none" ? "Its improver run was never started" : "Its improver run ended without passing the gate",
      };
    case "GATE":
      // The gate only reads; running it again is safe.
      return { kind: "gate" };
    case "DEPLOY":
    case "ABANDONED":
      return { kind: "none" };
  }
}
