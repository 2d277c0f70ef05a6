// The per-run event log's vocabulary. Events are appended, never changed.
import type { RunState } from "./states";
import type { Task } from "./checkpoint";

export interface UsageSummary {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

/** The router's decision for a turn (docs/models.md#routing), kept on the event and its span. */
export interface RoutingSummary {
  taskClass: string;
  pool: string | null;
  strategy: string;
  complexity: number;
  candidates: string[];
  skipped: Array<{ model: string; reason: string }>;
  reason: string;
}

export type RunEventPayloads = {
  /** `secrets`: names of the secrets the run was launched with (never values). */
  /** `parent`: the run this one re-runs (or forks from checkpoint `seq`). */
  "run.created": {
    goal: string;
    agent: string;
    agentVersion: number;
    model: string;
    modelLabel: string;
    scripted: boolean;
    scenarioGiven: boolean;
    secrets?: string[];
    parent?: { runId: string; kind: "rerun" | "fork"; seq?: number; step?: number };
  };
  "run.state": { from: RunState | null; to: RunState; reason?: string; error?: { code: string; message: string } };
  /**
   * `by` is the user id; `byName` what people see. `continue`: a message sent
   * an ended run back to work; `retry`: a failed run goes again from its last
   * good checkpoint (`changes` says what the person raised first);
   * `interrupt`: the tool call in flight was stopped so a message is read now.
   */
  "run.control": {
    action: "pause" | "resume" | "cancel" | "continue" | "retry" | "interrupt";
    by: string;
    byName: string;
    from?: RunState;
    changes?: string[];
  };
  /**
   * A person's message to the agent (the message box): it joins the
   * conversation before the next model call, and that turn's model.turn lists
   * its seq in `messages`. `interrupt`: they asked to stop the call in flight.
   */
  "user.message": { text: string; by: string; byName: string; interrupt?: boolean };
  /** `fromWorker`/`byWorker`: several machines, when another worker takes a run over (RunnerProcess ids). */
  "run.resumed": { fromCheckpoint: number; step: number; reason: string; fromWorker?: string | null; byWorker?: string };
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
    /** Why this model served the turn (configured models; absent for scripted ones). */
    routing?: RoutingSummary;
    /** Failed attempts on other candidates before this one answered. */
    failovers?: number;
    /** Seqs of the people's messages (user.message) this turn read first. */
    messages?: number[];
    /** The model name a hosted agent asked the model gateway for; routing chose `model` (docs/gateway.md#which-model-answers). */
    requestedModel?: string;
  };
  /**
   * A model call that failed (the provider's error, or a broken stream); usage
   * when the provider reported it. `failoverTo` names the candidate that got
   * the turn next; `cooldownMs` how long the failed deployment rests.
   */
  "model.error": {
    step: number;
    agent: string;
    model: string;
    error: string;
    durationMs: number;
    usage?: UsageSummary;
    errorKind?: string;
    status?: number;
    retryAfterMs?: number;
    cooldownMs?: number;
    failoverTo?: string;
    noFailover?: string;
  };
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
    /** Where the tool comes from when it is not Rein's own: "mcp" for an MCP server's tool. */
    origin?: "mcp";
    /** How the policy decided and which person answered, when they were asked. */
    /** `args`: what the call ran with when a person edited its arguments before approving it. */
    gate?: {
      policy?: { effect: string; level: string; rule: number | null; reason: string; version: number };
      requestId?: string;
      decidedBy?: string;
      args?: unknown;
    };
  };
  /** The run waits for a person (docs/human-requests-and-policy.md#reference-human-requests). */
  "human.requested": {
    requestId: string;
    kind: string;
    title: string;
    requiredRole: string;
    expiresAt: string;
    tool: string;
    toolCallId: string;
    slot?: string;
  };
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
  /** The server's screen of the terminal failed on some output and was replaced by a fresh one. */
  "terminal.reset": { podId: string; reason: string };
  /** The agent asked to move the run to a bigger compute tier (upgrade_tier; docs/desktops-and-tiers.md#moving-up-upgrade_tier). */
  "tier.requested": { from: string; to: string; reason: string; toolCallId?: string };
  /**
   * The run moved between tiers: up on an upgrade (`durationMs` to provision and
   * probe the target), down when the tier sat idle or the run ended.
   */
  "tier.changed": {
    from: string;
    to: string;
    reason: string;
    trigger: "upgrade" | "idle" | "run_end";
    durationMs: number;
    fromPool?: boolean;
    desktopId?: string;
    toolCallId?: string;
    /** T3: the machine, and the workspace copied there (push) or back (pull). */
    machineId?: string;
    machineName?: string;
    /** T4: the person's device. */
    deviceId?: string;
    deviceName?: string;
    sync?: { direction: "push" | "pull"; files: number; bytes: number; ms: number; skipped: number };
    /** Leaving a tier with a price: the time spent on it at its hourly cost (Settings › Tiers). */
    costUsd?: number;
  };
  /** An upgrade was refused; `code` says why (TIER_DISABLED, COMPLEXITY_BELOW_THRESHOLD, ...). */
  "tier.refused": { from: string; to: string; code: string; message: string; toolCallId?: string };
  /** The run's tier lost its environment (a restart): the agent is told; a fresh one starts on next use. */
  "tier.lost": { tier: string; reason: string };
  /** A fresh environment for the tier the run is on (its desktop after a restart or a crash). */
  "tier.restored": {
    tier: string;
    reason: string;
    durationMs: number;
    fromPool: boolean;
    desktopId?: string;
    machineId?: string;
    machineName?: string;
    deviceId?: string;
    deviceName?: string;
  };
  /** T3: the machine's workspace copied back after a shell command, or the run's sent before one (docs/desktops-and-tiers.md#t3-remote-machines). */
  "tier.synced": {
    tier: string;
    toolCallId?: string;
    /** pull (the default): the machine's copy came back; push: the run's copy went to the machine. */
    direction?: "push" | "pull";
    files: number;
    bytes: number;
    ms: number;
    skipped: number;
  };
  /** A line a person typed at the shell prompt while they controlled the terminal; `by` is the user id. */
  "terminal.input": { text: string; by: string; byName: string; approximate?: boolean };
  /** A person took over the run's terminal (the run pauses) or handed it back (it resumes). */
  "terminal.control": { action: "takeover" | "handback"; by: string; byName: string; reason?: string };
  /** A person took over the run's desktop (the run pauses) or handed it back (it resumes). */
  "desktop.control": { action: "takeover" | "handback"; by: string; byName: string; reason?: string };
  "tasks.updated": { tasks: Task[]; notes?: string };
  /**
   * A session of a long run ended (docs/steering.md#long-runs-and-fresh-sessions):
   * `reason` budget (the conversation reached `budgetShare` of the context window)
   * or context_refused (the provider refused the prompt); its own token use and
   * steps.
   */
  "session.ended": {
    session: number;
    reason: string;
    steps: number;
    contextTokens: number;
    contextWindow: number | null;
    usage: UsageSummary;
  };
  /** Memories loaded into the system prompt for this session (server/memory), within `budgetTokens`; `omitted` did not fit. */
  "memory.loaded": {
    session: number;
    memories: Array<{ id: string; title: string; kind: string; scope: string; origin?: string; tokens: number }>;
    budgetTokens: number;
    omitted: number;
  };
  /** A fresh session started, seeded only from durable state (what the seed held, counted). */
  "session.started": {
    session: number;
    reason: string;
    reasonText: string;
    step: number;
    budgetShare: number;
    contextWindow: number | null;
    seed: {
      tasks: number;
      tasksDone: number;
      tasksFailed: number;
      notes: number;
      commits: number;
      openErrors: number;
      tokens: number;
      preludeVersion: number;
    };
  };
  /** Rein saw this run struggle (docs/improvements.md): friction recorded from its telemetry, and the hack cycle it started, if any. */
  "friction.recorded": { frictionId: string; kind: string; title: string; count: number; tool?: string; cycleId?: string };
  /** A hack cycle moved (recorded on its improver run): DETECT → ISOLATE → MODIFY ⇄ TEST → GATE → DEPLOY, or ABANDONED. */
  "improve.cycle": {
    cycleId: string;
    from: string | null;
    to: string;
    reason?: string;
    attempt?: number;
    improvementId?: string;
    name?: string;
  };
  /**
   * An installed extension's hook saw one of this run's events
   * (docs/extensions.md): what its handlers answered (JSON, cut short) or why
   * they failed. Hooks only observe; this record is all they leave on the run.
   */
  "extension.hook": {
    extension: string;
    version: string;
    event: string;
    seq: number;
    ok: boolean;
    durationMs: number;
    answer?: string;
    error?: string;
  };
  /** Skills in the run's scope that did not fit the prompt's skills budget (docs/skills.md): named once per run, never dropped silently. */
  "skills.omitted": { names: string[]; budgetTokens: number };
  /** MCP tools in the agent's scope that did not fit the MCP tool token budget (Settings › MCP servers): named once per run, never dropped silently. */
  "mcp.tools_omitted": { budget: number; used: number; given: number; left: Array<{ tool: string; tokens: number }> };
  /** The change request this run writes moved (docs/changes.md): proposed, checked, approved and merged, rejected, reverted. */
  "change.state": { changeId: string; from: string; to: string; title: string; reason?: string };
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

/** Live-only messages: text as it streams (the durable model.turn follows), a long tool call's progress (its tool.result follows). */
export type TransientRunMessage =
  | { type: "model.delta"; runId: string; step: number; agent: string; delta: string }
  | { type: "tool.progress"; runId: string; toolCallId: string; tool: string; progress: number; total?: number; message?: string };

export function event<T extends RunEventType>(
  type: T,
  payload: RunEventPayloads[T],
  extra: { actor?: string; key?: string } = {},
): NewRunEvent<T> {
  return { type, payload, ...extra };
}
