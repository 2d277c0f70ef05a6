// The per-run event log's vocabulary. Events are appended, never changed.
import type { RunState } from "./states";
import type { Task } from "./checkpoint";

export interface UsageSummary {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

export type RunEventPayloads = {
  "run.created": { goal: string; agent: string; agentVersion: number; model: string; modelLabel: string; scripted: boolean; scenarioGiven: boolean };
  "run.state": { from: RunState | null; to: RunState; reason?: string; error?: { code: string; message: string } };
  /** `by` is the user id; `byName` what people see. */
  "run.control": { action: "pause" | "resume" | "cancel"; by: string; byName: string };
  "run.resumed": { fromCheckpoint: number; step: number; reason: string };
  "model.turn": {
    step: number;
    agent: string;
    model: string;
    modelLabel: string;
    scripted: boolean;
    text: string;
    toolCalls: Array<{ toolCallId: string; tool: string; args: unknown }>;
    finishReason: string;
    usage: UsageSummary;
    durationMs: number;
  };
  /** A model call that failed (the provider's error, or a broken stream); usage when the provider reported it. */
  "model.error": { step: number; agent: string; model: string; error: string; durationMs: number; usage?: UsageSummary };
  "tool.call": { step: number; agent: string; toolCallId: string; tool: string; args: unknown };
  "tool.result": {
    step: number;
    toolCallId: string;
    tool: string;
    ok: boolean;
    output?: unknown;
    error?: { code: string; message: string };
    cached: boolean;
    replayClass: string | null;
    durationMs: number;
    /** How the policy decided and which person answered, when they were asked. */
    gate?: { policy?: { effect: string; level: string; rule: number | null; reason: string; version: number }; requestId?: string; decidedBy?: string };
  };
  /** The run waits for a person (SPEC section 4). */
  "human.requested": { requestId: string; kind: string; title: string; requiredRole: string; expiresAt: string; tool: string; toolCallId: string; slot?: string };
  /** A person (or the clock, for expiry and veto) closed the request. */
  "human.decided": {
    requestId: string;
    kind: string;
    state: string;
    decision?: string;
    by: string;
    byName: string;
    channel: string;
    comment?: string;
    optionId?: string;
    edited?: boolean;
  };
  /** The request went to the next level of approvers. */
  "human.escalated": { requestId: string; level: number; expiresAt: string };
  handoff: { from: string; to: string; reason: string };
  /** A person's message to the agent, e.g. what they did while it was paused. */
  "human.note": { text: string; by: string; byName: string };
  /** The run got its terminal pod (T1), or could not. */
  "terminal.attached": { podId: string; sandbox: string; fromPool: boolean; startMs: number };
  "terminal.unavailable": { reason: string };
  /** A line a person typed at the shell prompt while they controlled the terminal; `by` is the user id. */
  "terminal.input": { text: string; by: string; byName: string; approximate?: boolean };
  /** A person took over the run's terminal (the run pauses) or handed it back (it resumes). */
  "terminal.control": { action: "takeover" | "handback"; by: string; byName: string; reason?: string };
  "tasks.updated": { tasks: Task[]; notes?: string };
  /** A person saved a file of the workspace in the Files tab; `by` is the user id. */
  "workspace.edit": { path: string; bytes: number; by: string; byName: string; created: boolean };
};

export type RunEventType = keyof RunEventPayloads;

export interface NewRunEvent<T extends RunEventType = RunEventType> {
  type: T;
  payload: RunEventPayloads[T];
  /** Who caused it: a user id, "agent:<name>" or "system". */
  actor?: string;
  /** Idempotency key: appending the same key twice keeps the first. */
  key?: string;
}

export interface RunEventRecord {
  runId: string;
  seq: number;
  type: RunEventType;
  actor: string | null;
  payload: unknown;
  createdAt: Date;
}

/** Live-only messages (text as it streams); the durable model.turn follows. */
export interface TransientRunMessage {
  type: "model.delta";
  runId: string;
  step: number;
  agent: string;
  delta: string;
}

export function event<T extends RunEventType>(type: T, payload: RunEventPayloads[T], extra: { actor?: string; key?: string } = {}): NewRunEvent<T> {
  return { type, payload, ...extra };
}
