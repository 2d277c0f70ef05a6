// The kernel loop (docs/architecture.md#the-path-of-a-run): build context ->
// ask the model -> run the tool calls -> record, with a checkpoint after every
// model turn and every tool result. Resume continues from the last checkpoint;
// the replay cache makes sure no tool with side effects runs twice.
import type { Message, ModelRouter, ResolvedModel, RoutingDecision, ToolCallPart, TextPart } from "@/server/models";
import { UnknownModelError, countPromptTokens, isContextLengthError, personMessage } from "@/server/models";
import { failpoint } from "@/server/config";
import { isDbBusy, isLeaseLost, isTransientDbError } from "@/server/db";
import { DEFAULT_DISK_RESERVE_BYTES, DiskFullError, diskFullReason, isDiskFull, type DiskGuard } from "./disk";
import { DEFAULT_MAX_FAILING_STEPS, DEFAULT_MAX_REPEATS, consecutiveRepeats, loopSuspected, stepsWithoutProgress } from "@/server/limits";
import {
  ReplayUnsafeError,
  type ToolContext,
  type ToolRegistry,
  type ToolRunner,
  type WaitingRequest,
  type Workspace,
} from "@/server/tools";
import type { TerminalProvider } from "@/server/compute";
import { initialState, type CheckpointState, type PendingToolCall, type Task } from "./checkpoint";
import {
  SESSION_REASON_TEXT,
  buildSeed,
  messageTokens,
  sessionBudgetShare,
  sessionOf,
  toolTokens,
  withMessages,
  type SessionReason,
} from "./sessions";
import { event, type NewRunEvent, type RoutingSummary, type TransientRunMessage } from "./events";
import { ModelCallError, callModel, modelName, type TurnResult } from "./model-call";
import { runSecretNames } from "./run-secrets";
import type { AgentSpec, SpecSource } from "./specs";
import type { RunRecord, RunStore, StoredCheckpoint } from "./store";
import { STOPPED_BY_REVIEWER, reviewerStopIn, reviewerStopReason } from "./reviewer-stop";

/** The HITL broker as the kernel sees it (server/hitl). */
export interface HumanWaits {
  /** Called after a run went to waiting_human: requeues it if its request was answered meanwhile. */
  afterWaiting(runId: string, requestId: string): Promise<void>;
}

/** Compute tiers (server/tiers) as the kernel sees them: a run's tier moves while it executes. */
export interface RunTiers {
  /** The run's tier now. */
  tierOf(run: RunRecord): string;
  /** The parts of a tool call's context the tier decides (tier, desktop, upgrade_tier's access; T0: no sandbox). */
  toolContext(run: RunRecord, toolCallId: string): Partial<ToolContext>;
  /** Before the first turn of an execution: what the agent must be told (its desktop did not survive a restart). */
  notice(run: RunRecord): Promise<{ text: string; events: NewRunEvent[] } | null>;
  /** Why the run must pause before its next step (T3: its machine's connection dropped), or null. */
  held?(runId: string): string | null;
}

/** Limits checked before each model call (server/limits): budgets. */
export interface ModelCallLimits {
  beforeModelCall(runId: string): Promise<{ ok: boolean; code?: string; reason?: string }>;
}

/**
 * Self-improvement (server/improve) as the kernel sees it: the runtime tools
 * and skills in a run's scope, looked up at every turn, so a tool hot-loaded
 * mid-run is offered from the next turn on.
 */
export interface RunExtensions {
  /** Names of the extra tools the run's agent may call now (runtime tools, load_skill). */
  toolsFor(run: RunRecord, spec: AgentSpec): string[];
  /** Text added to the system prompt (the skills in scope), or null. */
  promptFor?(run: RunRecord, spec: AgentSpec): Promise<string | null>;
}

/** A memory loaded into a run's prompt, as the run page lists it. */
export interface LoadedMemoryRef {
  id: string;
  title: string;
  kind: string;
  scope: string;
  /** "scenario": saved by a run playing its launcher's script. */
  origin?: string;
  tokens: number;
}

/**
 * Memory (server/memory) as the kernel sees it: the remember and recall
 * tools, and the memories loaded into the system prompt once per session.
 */
export interface RunMemories {
  toolsFor(run: RunRecord, spec: AgentSpec): string[];
  promptFor(
    run: { id: string; teamId: string | null; goal: string; agentName: string; createdById: string },
    spec: Pick<AgentSpec, "guardrails">,
    /** At most this many tokens, whatever the agent's own budget (a share of the model's context window). */
    capTokens?: number,
  ): Promise<{ text: string | null; loaded: LoadedMemoryRef[]; omitted: number; budgetTokens: number }>;
}

/** At most this share of the model's context window goes to memories, whatever the agent's budget. */
const MEMORY_WINDOW_SHARE = 0.1;

/**
 * Hosted agents (server/hosted): a spec naming a program is run by it over ACP
 * instead of by model steps. `step` returns when the agent's turn ended (the
 * checkpoint says done) or the run was asked to pause, cancel or stop; `pause`
 * when a person must decide how it goes on.
 */
export interface HostedAgents {
  step(
    run: RunRecord,
    spec: AgentSpec,
    cp: StoredCheckpoint,
    deps: KernelDeps,
    control: RunControl,
  ): Promise<{ cp: StoredCheckpoint; pause?: string }>;
}

export interface KernelDeps {
  /** Hosted agents; absent: a spec naming a program fails to run. */
  hosted?: HostedAgents;
  /** Runtime tools and skills; absent: agents have only their spec's tools. */
  extensions?: RunExtensions;
  /** MCP tools an admin gave the run's agent or team (server/mcp); absent: none. */
  mcp?: Pick<RunExtensions, "toolsFor">;
  /** Memory that outlives a run (server/memory); absent: no remember/recall and no memories in prompts. */
  memory?: RunMemories;
  humans?: HumanWaits;
  limits?: ModelCallLimits;
  /** Terminal pods (T1) for runs whose agent uses the shell; absent = plain child processes. */
  terminals?: TerminalProvider;
  /** Compute tiers: upgrades, the desktop (T2), T0 without a sandbox; absent = every run stays on its tier. */
  tiers?: RunTiers;
  store: RunStore;
  specs: SpecSource;
  router: ModelRouter;
  registry: ToolRegistry;
  tools: ToolRunner;
  workspaceFor(runId: string): Workspace;
  /**
   * Records the workspace's files after a tool call that may have changed them
   * (a tree id; server/tools snapshotWorkspace). Absent: no snapshots, and no fork
   * starts with the workspace of a step.
   */
  snapshot?(workspace: Workspace): Promise<string>;
  publishTransient(message: TransientRunMessage): void;
  log: { info(msg: string): void; error(msg: string, err?: unknown): void };
  /** The data directory's free space, checked before every step (docs/operations.md#a-full-disk); absent: never checked. */
  disk?: DiskGuard;
}

/** How the pool steers a run that is executing. */
export interface RunControl {
  signal: AbortSignal;
  cancelRequested(): boolean;
  pauseRequested(): boolean;
  /** Aborted when the run is asked to pause: a tool that only waits may end early (the step still ends before the pause). */
  pauseSignal?: AbortSignal;
  /** The server is stopping: leave the run as it is; it resumes on the next start. */
  stopping(): boolean;
  /** True when the run was found `running` at start-up (the last server stopped mid-run). */
  recovered: boolean;
  /** Several machines: this worker took the run over (from `fromWorker`, null when it was handed back). */
  takeover?: { fromWorker: string | null; byWorker: string };
  /** Several machines: another worker has taken the run; stop without writing anything more. */
  leaseLost?(): boolean;
  /**
   * The signal for the next tool call: aborted by cancel, or by a person who
   * interrupts the call to have their message read now. Absent: `signal`.
   */
  toolSignal?(): AbortSignal;
  /** The tool call that got toolSignal() ended. */
  toolEnded?(): void;
}

/**
 * Several machines: `lost`, another worker took the run over and this one
 * wrote nothing more; `interrupted`, the database went away under a write,
 * and the run resumes from its last checkpoint on whichever worker takes it.
 */
export type DriveOutcome =
  "succeeded" | "failed" | "canceled" | "paused" | "waiting_human" | "stopped" | "skipped" | "lost" | "interrupted" | "requeued";

/**
 * How long the runs' steps may hold the event loop, together, before they let other work in. A
 * step's awaits on the database and on in-process tools resolve without giving the loop up, so a
 * long run making fast tool calls held it for a second at a time and every request to the server
 * waited (docs/performance.md#a-long-run-holds-the-server).
 */
const LOOP_SLICE_MS = 10;
let sliceStart = performance.now();
let nextTurn: Promise<void> | null = null;

/** Resolves on the event loop's next turn, after the I/O waiting for it; every yielding run shares it. */
function loopTurn(): Promise<void> {
  return (nextTurn ??= new Promise<void>((resolve) =>
    setImmediate(() => {
      nextTurn = null;
      sliceStart = performance.now();
      resolve();
    }),
  ));
}

/**
 * Before a step: waits while this turn of the event loop has had its share of steps. The runs share
 * one slice per turn (each taking its own would give 64 runs 640 ms between two looks at the
 * network). The runs that waited resume together, in the order they waited, and each goes on until
 * the slice is used: a turn holds the loop for about the slice and a step per running run.
 */
async function yieldLoop(): Promise<void> {
  while (performance.now() - sliceStart >= LOOP_SLICE_MS) await loopTurn();
}

/** Why a run failed, with its code: the kernel ends the run with it. */
export class RunFailure extends Error {
  constructor(
    public readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function driveRun(runId: string, deps: KernelDeps, control: RunControl): Promise<DriveOutcome> {
  const { store } = deps;
  const run = await store.getRun(runId);
  if (!run) return "skipped";
  if (run.status === "queued") {
    if (!(await store.transition(runId, ["queued"], "running"))) return "skipped";
  } else if (run.status !== "running") {
    return "skipped";
  }

  let outcome: DriveOutcome | null = null;
  try {
    await attachTerminal(deps, run);
    await deps.workspaceFor(runId).ensure();
    let cp = await store.latestCheckpoint(runId);
    if (!cp) {
      cp = await store.commitStep(runId, { events: [], checkpoint: initialState(run.agentName, run.goal), seq: 1 });
    } else if (control.takeover) {
      const { fromWorker, byWorker } = control.takeover;
      const reason = fromWorker
        ? `Worker ${fromWorker} stopped executing this run; worker ${byWorker} continues from the last checkpoint`
        : `Worker ${byWorker} continues from the last checkpoint`;
      await store.appendEvents(runId, [
        event("run.resumed", { fromCheckpoint: cp.seq, step: cp.state.step, reason, fromWorker, byWorker }),
      ]);
    } else if (control.recovered) {
      await store.appendEvents(runId, [
        event("run.resumed", {
          fromCheckpoint: cp.seq,
          step: cp.state.step,
          reason: "The server restarted; continuing from the last checkpoint",
        }),
      ]);
    }
    cp = await tierNotice(deps, run, cp);
    // A hosted agent (docs/hosted-agents.md) runs the whole run; it hands off to no one, so its entry spec decides.
    const entry = await specOf(deps, run, cp.state.agent);
    const hostedSpec = entry.hosted ? entry : null;

    for (;;) {
      await yieldLoop();
      if (control.leaseLost?.()) return (outcome = "lost");
      if (control.cancelRequested()) return (outcome = await end(deps, run, "canceled", "Canceled by an operator"));
      if (control.stopping()) return (outcome = "stopped");
      // Every step already ended with a checkpoint, so pausing here keeps INV-4.
      const held = deps.tiers?.held?.(runId);
      if (held) return (outcome = (await store.transition(runId, ["running"], "paused", { reason: held })) ? "paused" : "skipped");
      if (control.pauseRequested()) {
        return (outcome = (await store.transition(runId, ["running"], "paused", { reason: "Paused by an operator" }))
          ? "paused"
          : "skipped");
      }
      // Room for the step's events, checkpoint and snapshot, or the run pauses before it writes any.
      await deps.disk?.check();
      const state: CheckpointState = cp.state;
      if (state.done) {
        // A person wrote while the model was finishing: it reads the message before the run ends.
        if ((await unread(deps, run.id, state)).length) {
          cp = { ...cp, state: { ...state, done: undefined } };
          continue;
        }
        const ended = state.done.outcome;
        outcome = await end(
          deps,
          run,
          ended,
          state.done.reason ?? (ended === "succeeded" ? "The agent finished" : undefined),
          state.done.byReviewer,
        );
        // ...or as it ended (the sender saw it running): back to the queue, to read it.
        if (
          (await unread(deps, run.id, state)).length &&
          (await store.transition(runId, [ended], "queued", {
            reason: "A person's message arrived as the run ended; it goes on to read it",
          }))
        ) {
          outcome = "requeued";
        }
        return outcome;
      }
      if (state.pending.length > 0) {
        const stepped = await toolStep(deps, run, cp, control);
        if ("cancel" in stepped) return (outcome = await end(deps, run, "canceled", stepped.cancel));
        if ("waiting" in stepped) {
          outcome = await waitForHuman(deps, run, stepped.waiting);
          return outcome;
        }
        cp = stepped;
        continue;
      }
      if (hostedSpec) {
        if (!deps.hosted) throw new RunFailure("HOSTED_UNAVAILABLE", "Hosted agents are not available on this server");
        const stepped = await deps.hosted.step(run, hostedSpec, cp, deps, control);
        cp = stepped.cp;
        if (stepped.pause) {
          return (outcome = (await store.transition(runId, ["running"], "paused", { reason: stepped.pause })) ? "paused" : "skipped");
        }
        continue;
      }
      if (state.step >= run.maxSteps) {
        throw new RunFailure("STEP_LIMIT", `The run reached its limit of ${run.maxSteps} model calls`);
      }
      const allowed = await deps.limits?.beforeModelCall(runId);
      if (allowed && !allowed.ok) throw new RunFailure(allowed.code ?? "BUDGET_EXCEEDED", allowed.reason ?? "A budget would be exceeded");
      cp = await modelStep(deps, run, cp, control);
    }
  } catch (err) {
    // Another worker has the run: whatever this one was doing, it writes nothing more.
    if (isLeaseLost(err) || control.leaseLost?.()) {
      deps.log.info(
        `run ${runId}: another worker has taken this run over; this worker stops executing it (${(err as Error)?.message ?? err})`,
      );
      return (outcome = "lost");
    }
    // Several machines: a database that went away, or kept the run's rows locked (a frozen process's
    // transaction), is no fault of the run; it resumes from its checkpoint (docs/several-machines.md#frozen-workers).
    if (control.leaseLost && isTransientDbError(err)) {
      const what = isDbBusy(err)
        ? "another database session kept the run's rows locked mid-step"
        : "the database connection was lost mid-step";
      deps.log.error(`run ${runId}: ${what}; the run resumes from its last checkpoint`, err);
      return (outcome = "interrupted");
    }
    if (control.cancelRequested()) return end(deps, run, "canceled", "Canceled by an operator");
    if (control.stopping() && control.signal.aborted) return "stopped";
    // No room to write: the step rolled back whole; the run pauses and resumes when space returns.
    if (isDiskFull(err)) {
      const reason = diskFullReason(err instanceof DiskFullError ? err.space : null, deps.disk?.reserveBytes ?? DEFAULT_DISK_RESERVE_BYTES);
      deps.log.error(`run ${runId}: ${reason}`, err instanceof DiskFullError ? undefined : err);
      const paused = await store.transition(runId, ["running"], "paused", { reason }).catch(() => false);
      // Not even the pause could be written: the pool takes the run up again when space returns.
      return (outcome = paused ? "paused" : "interrupted");
    }
    // Ctrl+C in a terminal signals the server's whole process group: a child
    // (git creating the workspace, say) can die of it a moment before the
    // server itself hears the signal. Left as it is, the run resumes on the next start.
    if (killedBySignal(err) && (await stopsSoon(control))) return "stopped";
    const failure =
      err instanceof RunFailure
        ? { code: err.code, message: err.message }
        : err instanceof ReplayUnsafeError
          ? { code: "ReplayUnsafeError", message: err.message }
          : err instanceof UnknownModelError
            ? { code: "UNKNOWN_MODEL", message: err.message }
            : { code: "INTERNAL_ERROR", message: `Rein hit an internal error: ${(err as Error)?.message ?? String(err)}` };
    if (failure.code === "INTERNAL_ERROR") deps.log.error(`run ${runId} failed`, err);
    await store.transition(runId, ["running"], "failed", { reason: failure.message, error: failure });
    return (outcome = "failed");
  } finally {
    // The pod goes with the run. A paused run keeps it (a person may take over
    // the shell); a stopping server disposes of all pods itself.
    if (outcome !== "stopped" && outcome !== "paused") await deps.terminals?.release(runId).catch(() => {});
  }
}

/** Gives a run whose agent uses the shell its terminal pod, and logs how it went. */
async function attachTerminal(deps: KernelDeps, run: RunRecord) {
  // T0 has no terminal; T3's is on its machine and T4's on its device, started by the tiers (docs/desktops-and-tiers.md#t3-remote-machines).
  const tier = deps.tiers?.tierOf(run);
  if (!deps.terminals || tier === "T0" || tier === "T3" || tier === "T4") return;
  // Only agents that use the shell need a pod at once (a hosted agent's terminals are the pod's); a later one attaches on first use.
  const spec = await deps.specs.get(run.agentName, run.agentVersion);
  if (!spec?.tools.includes("shell") && !spec?.hosted) return;
  if (deps.terminals.get(run.id)) return; // resumed after a pause: it kept its pod
  const why = deps.terminals.unavailable();
  if (why) {
    await deps.store.appendEvents(run.id, [event("terminal.unavailable", { reason: why })]);
    return;
  }
  const dir = deps.workspaceFor(run.id).root;
  const { pod, fromPool, startMs } = await deps.terminals.attach(run.id, dir);
  await deps.store.appendEvents(run.id, [
    event("terminal.attached", { podId: pod.id, sandbox: pod.sandbox, fromPool, startMs: Math.round(startMs * 10) / 10 }),
  ]);
}

/** The agent hears what happened to its tier's environment before its next turn (INV-4: a checkpoint of its own). */
async function tierNotice(deps: KernelDeps, run: RunRecord, cp: StoredCheckpoint): Promise<StoredCheckpoint> {
  const notice = cp.state.done ? null : await deps.tiers?.notice(run);
  if (!notice) return cp;
  const checkpoint = { ...cp.state, inbox: [...(cp.state.inbox ?? []), notice.text] };
  return deps.store.commitStep(run.id, { events: notice.events, checkpoint, seq: cp.seq + 1 });
}

function terminalFor(deps: KernelDeps, runId: string): ToolContext["terminal"] {
  if (!deps.terminals) return undefined;
  const why = deps.terminals.unavailable();
  if (why) return { unavailable: why };
  const pod = deps.terminals.get(runId);
  if (pod) return pod;
  // The pod stopped (a limit, a crash): a new one over the same workspace.
  return {
    async exec(command, options) {
      const { pod: fresh } = await deps.terminals!.attach(runId, deps.workspaceFor(runId).root);
      return fresh.exec(command, options);
    },
  };
}

/** A child process of the server that died of SIGINT, SIGTERM or SIGHUP (execFile's error carries the signal). */
function killedBySignal(err: unknown): boolean {
  const signal = (err as { signal?: unknown } | null)?.signal;
  return signal === "SIGINT" || signal === "SIGTERM" || signal === "SIGHUP";
}

/** Whether the server starts stopping within a moment (it heard the same signal as the child). */
async function stopsSoon(control: RunControl, withinMs = 2_000): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (!control.stopping() && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  return control.stopping();
}

/** People's messages the conversation does not hold yet (server/kernel/steering.ts writes them). */
function unread(deps: KernelDeps, runId: string, state: CheckpointState) {
  return deps.store.eventsOfType(runId, "user.message", state.messageCursor ?? 0);
}

/**
 * How the model's last turn ends the run: it finished, it gave up (a stop
 * reason), or it gave up right after a person rejected its call, which a
 * person decided: canceled, "Stopped by a reviewer — <name>: <comment>".
 */
function doneOf(history: Message[], stopReason: string | undefined): NonNullable<CheckpointState["done"]> {
  if (!stopReason) return { outcome: "succeeded", reason: "The agent finished" };
  const stop = reviewerStopIn(history);
  return stop ? { outcome: "canceled", reason: reviewerStopReason(stop), byReviewer: true } : { outcome: "failed", reason: stopReason };
}

async function end(
  deps: KernelDeps,
  run: RunRecord,
  outcome: "succeeded" | "failed" | "canceled",
  reason?: string,
  byReviewer = false,
): Promise<DriveOutcome> {
  const error =
    outcome === "failed"
      ? { code: "AGENT_STOPPED", message: reason ?? "The agent stopped" }
      : byReviewer && reason
        ? { code: STOPPED_BY_REVIEWER, message: reason }
        : undefined;
  await deps.store.transition(run.id, ["running"], outcome, { reason, error });
  return outcome;
}

async function specOf(deps: KernelDeps, run: RunRecord, name: string): Promise<AgentSpec> {
  const spec = name === run.agentName ? await deps.specs.get(name, run.agentVersion) : await deps.specs.get(name);
  if (!spec) throw new RunFailure("UNKNOWN_AGENT", `The agent spec "${name}" no longer exists`);
  return spec;
}

/** The tools the agent may call at this step: its spec's, and those in its scope now. */
function toolsOf(deps: KernelDeps, run: RunRecord, spec: AgentSpec): string[] {
  const extra = [
    ...(deps.extensions?.toolsFor(run, spec) ?? []),
    ...(deps.mcp?.toolsFor(run, spec) ?? []),
    ...(deps.memory?.toolsFor(run, spec) ?? []),
  ];
  return extra.length ? [...spec.tools, ...extra.filter((t) => !spec.tools.includes(t))] : spec.tools;
}

function systemPrompt(spec: AgentSpec, state: CheckpointState, extra: string | null): string {
  const parts = [spec.instructions];
  if (extra) parts.push(extra);
  if (state.memories?.text) parts.push(state.memories.text);
  if (state.tasks.length) parts.push("Task list:\n" + state.tasks.map((t) => `- [${t.status}] ${t.title}`).join("\n"));
  if (state.notes.length) parts.push("Progress notes:\n" + state.notes.join("\n"));
  if (spec.handoffs.length) parts.push(`You may hand off to: ${spec.handoffs.join(", ")}.`);
  return parts.join("\n\n");
}

async function modelStep(deps: KernelDeps, run: RunRecord, cp: StoredCheckpoint, control: RunControl): Promise<StoredCheckpoint> {
  const state = cp.state;
  const spec = await specOf(deps, run, state.agent);
  const resolved = resolveFor(deps, run, spec);
  const step = state.step + 1;
  const incoming = await unread(deps, run.id, state);
  const added: Message[] = [
    ...(state.inbox ?? []).map((text) => ({ role: "user" as const, content: text })),
    ...incoming.map((e) => {
      const m = e.payload as { text: string; byName: string };
      return personMessage(m.byName, m.text);
    }),
  ];
  const history: Message[] = [...state.messages, ...added];
  const extra = (await deps.extensions?.promptFor?.(run, spec)) ?? null;
  const session = sessionOf(state);
  const window = contextWindowOf(resolved);
  const { memories, events: memoryEvents } = await memoriesOf(deps, run, spec, state, session.number, window);
  const system: Message = { role: "system", content: systemPrompt(spec, { ...state, memories }, extra) };
  const prompt: Message[] = [system, ...history];
  const tools = deps.registry.specs(toolsOf(deps, run, spec));

  // A long run starts a fresh session rather than outgrow the model's context
  // window; at least one turn per session, so a seed over the budget is tried once.
  const budgetShare = sessionBudgetShare(spec);
  const historyTokens = session.tokens + messageTokens(added);
  const promptTokens = countPromptTokens([system]) + historyTokens + toolTokens(tools);
  const canStartSession = session.startedStep < state.step;
  if (window && canStartSession && promptTokens > budgetShare * window) {
    return startSession(deps, run, cp, { reason: "budget", window, budgetShare, promptTokens });
  }
  let turnResult: TurnResult;
  try {
    turnResult = await callModel(
      { router: deps.router, appendEvents: (events) => deps.store.appendEvents(run.id, events), publishTransient: deps.publishTransient },
      resolved,
      { runId: run.id, step, agent: spec.name, options: { prompt, tools, abortSignal: control.signal } },
    );
  } catch (err) {
    if (err instanceof ModelCallError && isContextLengthError(err.cause)) {
      if (canStartSession)
        return startSession(deps, run, cp, { reason: "context_refused", window: window ?? null, budgetShare, promptTokens });
      throw new RunFailure(
        "CONTEXT_TOO_LARGE",
        `The model refused the prompt for its length (${promptTokens} tokens) at the start of a fresh session: what the session starts from (the goal, task list and notes) is already too long for this model. ${err.message}`,
      );
    }
    if (err instanceof ModelCallError) throw new RunFailure("MODEL_ERROR", err.message);
    throw err;
  }
  const { text, calls, usage, finishReason, stopReason, served } = turnResult;

  const content: Array<TextPart | ToolCallPart> = [...(text ? [{ type: "text" as const, text }] : []), ...calls];
  const pending: PendingToolCall[] = calls.map((c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, args: c.input }));
  const said: Message = { role: "assistant", content };
  const next: CheckpointState = {
    ...state,
    inbox: undefined,
    ...(incoming.length ? { messageCursor: incoming[incoming.length - 1].seq } : {}),
    messages: [...history, said],
    session: { ...session, tokens: historyTokens + messageTokens([said]) },
    ...(memories ? { memories } : {}),
    pending,
    step,
    usage: {
      inputTokens: state.usage.inputTokens + usage.inputTokens,
      outputTokens: state.usage.outputTokens + usage.outputTokens,
      cachedInputTokens: state.usage.cachedInputTokens + usage.cachedInputTokens,
    },
    done: pending.length === 0 ? doneOf(history, stopReason) : undefined,
  };
  const turn = event(
    "model.turn",
    {
      step,
      agent: spec.name,
      model: modelName(served),
      modelLabel: served.label,
      scripted: served.scripted,
      text,
      toolCalls: calls.map((c) => ({ toolCallId: c.toolCallId, tool: c.toolName, args: c.input })),
      finishReason,
      usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, cachedInputTokens: usage.cachedInputTokens },
      durationMs: turnResult.durationMs,
      ...(resolved.routing ? { routing: routingSummary(resolved.routing) } : {}),
      ...(turnResult.failovers ? { failovers: turnResult.failovers } : {}),
      ...(incoming.length ? { messages: incoming.map((e) => e.seq) } : {}),
    },
    { actor: `agent:${spec.name}`, key: `model:${step}` },
  );
  return deps.store.commitStep(run.id, { events: [...memoryEvents, turn], checkpoint: next, seq: cp.seq + 1 });
}

/**
 * The memories in the system prompt: loaded at a session's first model call
 * (within the agent's budget, and at most a tenth of the context window),
 * then kept in the checkpoint for the rest of the session. A memory store that
 * fails leaves the prompt without memories; the run goes on.
 */
async function memoriesOf(
  deps: KernelDeps,
  run: RunRecord,
  spec: AgentSpec,
  state: CheckpointState,
  session: number,
  window: number | null,
): Promise<{ memories: CheckpointState["memories"]; events: NewRunEvent[] }> {
  if (!deps.memory || state.memories?.session === session) return { memories: state.memories, events: [] };
  try {
    const cap = window ? Math.floor(window * MEMORY_WINDOW_SHARE) : undefined;
    const loaded = await deps.memory.promptFor(
      { id: run.id, teamId: run.teamId, goal: run.goal, agentName: spec.name, createdById: run.createdById },
      spec,
      cap,
    );
    const events =
      loaded.loaded.length || loaded.omitted
        ? [
            event(
              "memory.loaded",
              { session, memories: loaded.loaded, budgetTokens: loaded.budgetTokens, omitted: loaded.omitted },
              { actor: "system", key: `memory:${session}` },
            ),
          ]
        : [];
    return { memories: { session, text: loaded.text }, events };
  } catch (err) {
    deps.log.error(`run ${run.id}: memories could not be loaded; the model call goes on without them`, err);
    return { memories: { session, text: null }, events: [] };
  }
}

/** The smallest context window of the models that may serve the turn (the first candidate and its fallbacks); null when none is known. */
function contextWindowOf(resolved: ResolvedModel): number | null {
  const windows = [resolved, ...(resolved.fallbacks ?? [])]
    .map((r) => r.contextWindow)
    .filter((w): w is number => typeof w === "number" && w > 0);
  return windows.length ? Math.min(...windows) : null;
}

/**
 * The session boundary, one checkpointed step: session.ended and
 * session.started with a new checkpoint whose conversation is only the seed.
 * People's messages not yet read and notes in the inbox carry over to the
 * next model call. A crash before the commit redoes the boundary on resume.
 */
async function startSession(
  deps: KernelDeps,
  run: RunRecord,
  cp: StoredCheckpoint,
  at: { reason: SessionReason; window: number | null; budgetShare: number; promptTokens: number },
): Promise<StoredCheckpoint> {
  const state = cp.state;
  const session = sessionOf(state);
  const number = session.number + 1;
  const seed = await buildSeed({
    number,
    turnsBefore: state.step,
    reason: at.reason,
    budgetShare: at.budgetShare,
    goal: run.goal,
    state,
    workspace: deps.workspaceFor(run.id),
  });
  failpoint("session-boundary");
  const used = (k: keyof CheckpointState["usage"]) => state.usage[k] - session.usageAtStart[k];
  const seedMessage: Message = { role: "user", content: seed.text };
  const events = [
    event(
      "session.ended",
      {
        session: session.number,
        reason: at.reason,
        steps: state.step - session.startedStep,
        contextTokens: at.promptTokens,
        contextWindow: at.window,
        usage: { inputTokens: used("inputTokens"), outputTokens: used("outputTokens"), cachedInputTokens: used("cachedInputTokens") },
      },
      { actor: "system", key: `session-ended:${session.number}` },
    ),
    event(
      "session.started",
      {
        session: number,
        reason: at.reason,
        reasonText: SESSION_REASON_TEXT[at.reason](at.budgetShare),
        step: state.step,
        budgetShare: at.budgetShare,
        contextWindow: at.window,
        seed: seed.summary,
      },
      { actor: "system", key: `session-started:${number}` },
    ),
  ];
  const next: CheckpointState = {
    ...state,
    messages: [seedMessage],
    session: { number, startedStep: state.step, reason: at.reason, tokens: messageTokens([seedMessage]), usageAtStart: { ...state.usage } },
  };
  return deps.store.commitStep(run.id, { events, checkpoint: next, seq: cp.seq + 1 });
}

/** Pausing for a person: the checkpoint came first (INV-4), then the state. */
async function waitForHuman(deps: KernelDeps, run: RunRecord, request: WaitingRequest): Promise<DriveOutcome> {
  const moved = await deps.store.transition(run.id, ["running"], "waiting_human", { reason: `Waiting for a person: ${request.title}` });
  if (!moved) return "skipped";
  await deps.humans?.afterWaiting(run.id, request.id);
  return "waiting_human";
}

type ToolStepResult = StoredCheckpoint | { waiting: WaitingRequest } | { cancel: string };

async function toolStep(deps: KernelDeps, run: RunRecord, cp: StoredCheckpoint, control: RunControl): Promise<ToolStepResult> {
  const state = cp.state;
  const call = state.pending[0];
  const spec = await specOf(deps, run, state.agent);
  const actor = `agent:${spec.name}`;
  // The call's event needs no transaction of its own: it rides the next one on the connection,
  // which for an unsafe call is its intent row, written before the call runs.
  await deps.store.appendEventsSoon(run.id, [
    event(
      "tool.call",
      { step: state.step, agent: spec.name, toolCallId: call.toolCallId, tool: call.toolName, args: call.args },
      { actor, key: `call:${call.toolCallId}` },
    ),
  ]);
  const signal = control.toolSignal?.() ?? control.signal;
  const result = await deps.tools
    .run(
      { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args },
      { runId: run.id, nodeId: `${state.step}:${call.toolCallId}`, checkpointId: cp.id },
      {
        runId: run.id,
        toolCallId: call.toolCallId,
        workspace: deps.workspaceFor(run.id),
        terminal: terminalFor(deps, run.id),
        agent: { name: spec.name, handoffs: spec.handoffs },
        actorId: run.createdById,
        teamId: run.teamId,
        tier: run.tier,
        loop: loopOf(state, call, spec),
        signal,
        pauseSignal: control.pauseSignal,
        progress: (p) =>
          deps.publishTransient({ type: "tool.progress", runId: run.id, toolCallId: call.toolCallId, tool: call.toolName, ...p }),
        secrets: await runSecretNames(deps.store, run.id, spec),
        callerCommands: run.scenario !== null,
        ...deps.tiers?.toolContext(run, call.toolCallId),
      },
      toolsOf(deps, run, spec),
    )
    .finally(() => control.toolEnded?.());
  if (result.waitingFor) {
    const request = result.waitingFor;
    // INV-4: the checkpoint is already written (every step ends with one, and
    // this call is still pending in it), so the run only records why it waits.
    // No new checkpoint: the call's replay-cache address must stay the same.
    await deps.store.appendEvents(run.id, [
      event(
        "human.requested",
        {
          requestId: request.id,
          kind: request.kind,
          title: request.title,
          requiredRole: request.requiredRole,
          expiresAt: request.expiresAt,
          tool: call.toolName,
          toolCallId: call.toolCallId,
          ...(request.slot ? { slot: request.slot } : {}),
        },
        { actor, key: `request:${request.id}` },
      ),
    ]);
    return { waiting: request };
  }
  // The window the replay cache exists for: executed, not yet checkpointed.
  if (!result.cached) failpoint("after-tool-executed");
  // A person stopped this call to have their message read now (not a cancel).
  const interrupted = signal !== control.signal && signal.aborted && !control.signal.aborted;
  const outcome: typeof result.outcome =
    interrupted && !result.outcome.ok
      ? { ok: false, error: { code: "INTERRUPTED", message: `Stopped by ${String(signal.reason?.message ?? "a person")}` } }
      : result.outcome;
  const events: NewRunEvent[] = [
    event(
      "tool.result",
      {
        step: state.step,
        toolCallId: call.toolCallId,
        tool: call.toolName,
        ok: outcome.ok,
        ...(outcome.ok ? { output: outcome.output } : { error: outcome.error }),
        cached: result.cached,
        replayClass: result.replayClass,
        durationMs: Math.round(result.durationMs),
        ...(result.origin ? { origin: result.origin } : {}),
        ...(result.gate ? { gate: result.gate } : {}),
      },
      { actor, key: `result:${call.toolCallId}` },
    ),
  ];
  const resultMessage: Message = {
    role: "tool",
    content: [
      {
        type: "tool-result",
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: outcome.ok ? outcome.output : { error: outcome.error },
        isError: !outcome.ok,
      },
    ],
  };
  let next: CheckpointState = { ...withMessages(state, [resultMessage]), pending: state.pending.slice(1) };
  // The rest of the turn waits: the model reads the message first and decides again.
  if (interrupted && next.pending.length)
    next = { ...withMessages(next, skippedResults(next.pending, "Skipped: a person interrupted the turn with a message")), pending: [] };

  if (outcome.ok && call.toolName === "handoff") {
    const out = outcome.output as { handoffTo: string; reason: string };
    events.push(event("handoff", { from: spec.name, to: out.handoffTo, reason: out.reason }, { actor, key: `handoff:${call.toolCallId}` }));
    // The rest of the handing-off agent's turn is dropped; the new agent decides.
    next = {
      ...withMessages(next, skippedResults(next.pending, "Skipped: the run was handed off")),
      agent: out.handoffTo,
      pending: [],
      handoffs: [...state.handoffs, { from: spec.name, to: out.handoffTo, step: state.step }],
    };
  }
  if (result.cancelRun) {
    await deps.store.commitStep(run.id, { events, checkpoint: { ...next, pending: [] }, seq: cp.seq + 1 });
    return { cancel: result.cancelRun };
  }
  // The workspace as this step left it, for a fork from here; a call that only reads changes nothing.
  if (result.replayClass !== "pure") next = { ...next, workspaceTree: (await snapshotOf(deps, run.id)) ?? next.workspaceTree };
  // After a tier change the agent gets a summary of where it was and what it has now (docs/desktops-and-tiers.md#moving-up-upgrade_tier).
  const tierSummary = outcome.ok && call.toolName === "upgrade_tier" ? (outcome.output as { summary?: unknown })?.summary : undefined;
  if (typeof tierSummary === "string") next = { ...next, inbox: [...(next.inbox ?? []), tierSummary] };
  if (outcome.ok && call.toolName === "update_tasks") {
    const out = outcome.output as { tasks: Task[]; notes?: string };
    events.push(event("tasks.updated", { tasks: out.tasks, notes: out.notes }, { actor, key: `tasks:${call.toolCallId}` }));
    next = { ...next, tasks: out.tasks, notes: out.notes ? [...state.notes, out.notes] : state.notes };
  }
  return deps.store.commitStep(run.id, { events, checkpoint: next, seq: cp.seq + 1 });
}

const snapshotFailures = new Set<string>();

/** The workspace's tree now; a failure is logged once per run and leaves the step without a new snapshot. */
async function snapshotOf(deps: KernelDeps, runId: string): Promise<string | undefined> {
  if (!deps.snapshot) return undefined;
  try {
    return await deps.snapshot(deps.workspaceFor(runId));
  } catch (err) {
    if (!snapshotFailures.has(runId)) {
      if (snapshotFailures.size > 1000) snapshotFailures.clear();
      snapshotFailures.add(runId);
      deps.log.error(
        `run ${runId}: the workspace could not be snapshotted; a fork from its later steps starts from an older snapshot`,
        err,
      );
    }
    return undefined;
  }
}

/** Results for the calls of a turn that will not run, so the conversation stays well formed. */
function skippedResults(pending: PendingToolCall[], message: string): Message[] {
  return pending.map((p) => ({
    role: "tool",
    content: [
      {
        type: "tool-result",
        toolCallId: p.toolCallId,
        toolName: p.toolName,
        output: { error: { code: "SKIPPED", message } },
        isError: true,
      },
    ],
  }));
}

/**
 * The doom-loop guard: set when this exact call has been repeated enough to ask
 * a person, or when the turn this call opens follows enough turns in which
 * every tool call failed.
 */
function loopOf(state: CheckpointState, call: PendingToolCall, spec: AgentSpec): ToolContext["loop"] {
  const limit = (key: string, fallback: number) => (typeof spec.guardrails[key] === "number" ? (spec.guardrails[key] as number) : fallback);
  const repeats = consecutiveRepeats(state.messages, { toolName: call.toolName, args: call.args });
  if (loopSuspected(repeats, limit("maxRepeats", DEFAULT_MAX_REPEATS))) return { repeats, reason: "repeat" };
  const lastTurn = state.messages.findLast((m) => m.role === "assistant");
  const firstOfTurn =
    lastTurn?.role === "assistant" && lastTurn.content.find((p) => p.type === "tool-call")?.toolCallId === call.toolCallId;
  const failing = firstOfTurn ? stepsWithoutProgress(state.messages) : 0;
  if (loopSuspected(failing, limit("maxFailingSteps", DEFAULT_MAX_FAILING_STEPS))) return { repeats: failing, reason: "no_progress" };
  return undefined;
}

/** The model for an agent's turn: the run's own choice for its entry agent, else the agent's spec; routing does the rest. */
function resolveFor(deps: KernelDeps, run: RunRecord, spec: AgentSpec): ResolvedModel {
  const model = spec.name === run.agentName && run.model && !run.scenario ? run.model : spec.model;
  return deps.router.resolve({
    model,
    taskClass: spec.taskClass,
    scenario: run.scenario,
    teamId: run.teamId,
    complexity: run.complexity ?? null,
    needsTools: spec.tools.length > 0,
  });
}

export function routingSummary(r: RoutingDecision): RoutingSummary {
  return {
    taskClass: r.taskClass,
    pool: r.pool,
    strategy: r.strategy,
    complexity: r.complexity,
    candidates: r.candidates,
    skipped: r.skipped,
    reason: r.reason,
  };
}
