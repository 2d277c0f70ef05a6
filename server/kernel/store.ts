// RunStore: everything the run loop persists. The Prisma backend is the
// default; the in-memory backend is the benchmark baseline and a test fake.
import type { Scenario } from "@/server/models";
import type { CheckpointState } from "./checkpoint";
import type { NewRunEvent, RunEventRecord, RunEventType } from "./events";
import type { RunState } from "./states";

export interface RunRecord {
  id: string;
  goal: string;
  agentName: string;
  agentVersion: number;
  status: RunState;
  model: string;
  scenario: Scenario | null;
  maxSteps: number;
  createdById: string;
  teamId: string | null;
  /** Compute tier (T0-T4); absent in runs made by older tests. */
  tier?: string;
  /** The task's complexity score, 0..1, when the run was given one (model routing, tier thresholds). */
  complexity?: number | null;
}

export interface StoredCheckpoint {
  id: string;
  seq: number;
  state: CheckpointState;
}

export interface StepCommit {
  events: NewRunEvent[];
  checkpoint: CheckpointState;
  /** Number of the new checkpoint (previous + 1). */
  seq: number;
}

export interface TransitionPatch {
  reason?: string;
  error?: { code: string; message: string };
  /** Only while the run's status reason starts with this (the disk watcher resumes only runs paused for space). */
  ifReasonStartsWith?: string;
}

export interface RunStore {
  getRun(runId: string): Promise<RunRecord | null>;
  /** Run ids in the given states (and whose status reason starts with `reasonPrefix`, when given), oldest first. */
  runIdsIn(states: RunState[], reasonPrefix?: string): Promise<string[]>;
  /**
   * Compare-and-set of the run's state, with its run.state event, atomically.
   * Returns false when the run was not in one of `from`.
   */
  transition(runId: string, from: RunState[], to: RunState, patch?: TransitionPatch, actor?: string): Promise<boolean>;
  appendEvents(runId: string, events: NewRunEvent[]): Promise<RunEventRecord[]>;
  /**
   * Events that may wait a few milliseconds to ride the next transaction on
   * the store's connection instead of paying for one of their own (the SQLite
   * store; the others write them at once). They are written before any event
   * the store writes for the run after them, and listeners hear of them once
   * they are stored; a crash can lose them (docs/performance.md#the-durable-step).
   */
  appendEventsSoon(runId: string, events: NewRunEvent[]): Promise<void>;
  /** Events, checkpoint and the run's counters in one transaction. */
  commitStep(runId: string, step: StepCommit): Promise<StoredCheckpoint>;
  latestCheckpoint(runId: string): Promise<StoredCheckpoint | null>;
  listEvents(runId: string, after: number, limit: number): Promise<RunEventRecord[]>;
  /** The run's events of one type after `after`, in order (an index makes this cheap before every model call). */
  eventsOfType(runId: string, type: RunEventType, after: number): Promise<RunEventRecord[]>;
}

export type EventListener = (runId: string, events: RunEventRecord[]) => void;
