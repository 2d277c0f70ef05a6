// Experiments and their trials as state machines (Evals): every allowed
// transition in one table each, walked exhaustively by the tests.
//
// experiment: queued -> running -> succeeded | failed | canceled
// trial:      pending -> running -> scoring -> done | failed; canceled from pending or running
export const EXPERIMENT_STATES = ["queued", "running", "succeeded", "failed", "canceled"] as const;
export type ExperimentState = (typeof EXPERIMENT_STATES)[number];

export const TRIAL_STATES = ["pending", "running", "scoring", "done", "failed", "canceled"] as const;
export type TrialState = (typeof TRIAL_STATES)[number];

const EXPERIMENT_TRANSITIONS: Record<ExperimentState, readonly ExperimentState[]> = {
  queued: ["running", "failed", "canceled"],
  running: ["succeeded", "failed", "canceled"],
  succeeded: [],
  failed: [],
  canceled: [],
};

const TRIAL_TRANSITIONS: Record<TrialState, readonly TrialState[]> = {
  // pending -> failed: the run could not be created (the agent is gone, the launcher was disabled).
  pending: ["running", "failed", "canceled"],
  // running -> scoring: its run ended, however it ended.
  running: ["scoring", "failed", "canceled"],
  scoring: ["done", "failed"],
  done: [],
  failed: [],
  canceled: [],
};

export const isExperimentState = (v: unknown): v is ExperimentState =>
  typeof v === "string" && (EXPERIMENT_STATES as readonly string[]).includes(v);
export const isTrialState = (v: unknown): v is TrialState => typeof v === "string" && (TRIAL_STATES as readonly string[]).includes(v);

export const canExperimentGo = (from: ExperimentState, to: ExperimentState) => EXPERIMENT_TRANSITIONS[from].includes(to);
export const canTrialGo = (from: TrialState, to: TrialState) => TRIAL_TRANSITIONS[from].includes(to);

/** States from which `to` can be reached, for compare-and-set updates (`where: { status: { in } }`). */
export const experimentSourcesOf = (to: ExperimentState) => EXPERIMENT_STATES.filter((s) => EXPERIMENT_TRANSITIONS[s].includes(to));
export const trialSourcesOf = (to: TrialState) => TRIAL_STATES.filter((s) => TRIAL_TRANSITIONS[s].includes(to));

export const EXPERIMENT_ACTIVE: readonly ExperimentState[] = ["queued", "running"];
export const TRIAL_IN_FLIGHT: readonly TrialState[] = ["running", "scoring"];
export const TRIAL_FINISHED: readonly TrialState[] = ["done", "failed", "canceled"];
