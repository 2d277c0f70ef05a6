// The friction miner's vocabulary (docs/improvements.md): what a run's event log
// says went wrong, in a shape the caller can group across runs by signature.

export type FrictionKind =
  "repeated_failure" | "doom_loop" | "human_rejected" | "human_edited" | "human_takeover" | "unknown_tool" | "budget_stop";

/** Where in a run the friction shows: the event, and the tool call's span when there is one. */
export interface FrictionEvidence {
  runId: string;
  seq: number;
  toolCallId?: string;
  spanId?: string;
  step?: number;
  /** At most EXCERPT_CHARS of what the error or the person said. */
  excerpt?: string;
}

export interface FrictionObservation {
  kind: FrictionKind;
  /**
   * Stable across runs for "the same problem" (no run ids, steps or temp
   * paths): the caller groups recurring friction by it. Starts with the kind.
   */
  signature: string;
  /** One line a person reads, e.g. "shell failed 3 times (exit 1): awk: line N: not a number". */
  title: string;
  tool?: string;
  /** How many times it happened in this run so far (repeated_failure: failures of this class). */
  count: number;
  evidence: FrictionEvidence[];
}

export interface MinerOptions {
  /** Failures of one class in one run that make a repeated_failure. */
  repeatThreshold: number;
}

export const DEFAULT_MINER_OPTIONS: MinerOptions = { repeatThreshold: 3 };
