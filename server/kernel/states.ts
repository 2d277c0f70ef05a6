// Run state machine (docs/runs.md#run-states):
// queued -> running <-> paused | waiting_human -> succeeded | failed | canceled
// A person may send an ended run back to the queue: a message continues it,
// Retry takes a failed one up from its last good checkpoint (server/kernel/steering.ts).
export const RUN_STATES = ["queued", "running", "paused", "waiting_human", "succeeded", "failed", "canceled"] as const;
export type RunState = (typeof RUN_STATES)[number];

export const TERMINAL_STATES: readonly RunState[] = ["succeeded", "failed", "canceled"];
export const ACTIVE_STATES: readonly RunState[] = ["queued", "running", "paused", "waiting_human"];

const TRANSITIONS: Record<RunState, readonly RunState[]> = {
  queued: ["running", "paused", "canceled", "failed"],
  running: ["paused", "waiting_human", "succeeded", "failed", "canceled"],
  paused: ["queued", "canceled"],
  waiting_human: ["queued", "canceled", "failed"],
  succeeded: ["queued"],
  failed: ["queued"],
  canceled: ["queued"],
};

export class InvalidTransitionError extends Error {
  constructor(
    public readonly from: string,
    public readonly to: string,
  ) {
    super(`A run cannot go from ${from} to ${to}`);
    this.name = "InvalidTransitionError";
  }
}

export function isRunState(v: unknown): v is RunState {
  return typeof v === "string" && (RUN_STATES as readonly string[]).includes(v);
}

export function canTransition(from: RunState, to: RunState): boolean {
  return TRANSITIONS[from].includes(to);
}

export function assertTransition(from: RunState, to: RunState): void {
  if (!canTransition(from, to)) throw new InvalidTransitionError(from, to);
}

/** States from which `to` can be reached, for compare-and-set updates. */
export function sourcesOf(to: RunState): RunState[] {
  return RUN_STATES.filter((s) => TRANSITIONS[s].includes(to));
}

export function isTerminal(s: RunState): boolean {
  return TERMINAL_STATES.includes(s);
}
