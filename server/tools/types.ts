// ToolRunner (I1) interface: docs/architecture.md#the-path-of-a-run, and
// replay classes in docs/runs.md#replay-safety.
import type { Page } from "playwright-core";
import type { z } from "zod";
import type { Workspace } from "./workspace";

export type ReplayClass = "pure" | "idempotent_with_key" | "unsafe_on_replay";
export type PersistenceClass = "none" | "workspace" | "external";

/** What the agent knows about itself while a tool runs. */
export interface AgentInfo {
  name: string;
  handoffs: string[];
}

/** The run's terminal pod, as the shell tool sees it (server/compute). */
export interface TerminalAccess {
  /** `env`: variables for this command only (the run's secrets), never typed into the terminal. */
  exec(
    command: string,
    options: { timeoutMs: number; signal?: AbortSignal; spillPath?: string; env?: Record<string, string> },
  ): Promise<{ exitCode: number; output: string }>;
}

/** The run's operative desktop (T2), as the browser tools see it (server/compute). */
export interface DesktopAccess {
  /** The page the agent works in, in the desktop's visible Chromium. */
  page(): Promise<Page>;
  /** Rein's own address as the desktop reaches it: a path ("/demo-site/form") opens there. */
  baseUrl?: string;
}

export interface ToolContext {
  runId: string;
  workspace: Workspace;
  /**
   * The run's terminal: `exec` runs in the sandboxed PTY; `unavailable` says why
   * the run has none (the shell tool then refuses). Absent: no compute tier is
   * configured (unit tests), and the shell runs as a plain child process.
   */
  terminal?: TerminalAccess | { unavailable: string };
  /**
   * The run's desktop (T2) for the browser tools; `unavailable` says why the
   * run has none. Absent: the run has no desktop (the tools tell the agent to
   * call upgrade_tier).
   */
  desktop?: DesktopAccess | { unavailable: string };
  agent: AgentInfo;
  /** The user the run acts for. */
  actorId: string;
  /** The run's team (policy scope), if it has one. */
  teamId?: string | null;
  /** The run's compute tier (policy scope). */
  tier?: string;
  /**
   * Set by the kernel's doom-loop guard: this exact call has now been made
   * `repeats` times in a row, or the last `steps` model turns all failed.
   */
  loop?: { repeats: number; reason: "repeat" | "no_progress" };
  signal: AbortSignal;
  /**
   * Aborted when the run is asked to pause (an operator's Pause, a person
   * taking over). The run still pauses after this step; a tool that only
   * waits (browser_wait) ends its wait early instead of holding the person up.
   */
  pauseSignal?: AbortSignal;
  /** Progress a long call reports (an MCP server's notifications): shown live on the run's timeline. */
  progress?: (p: { progress: number; total?: number; message?: string }) => void;
  /** The model's id for this call (tier events are keyed by it, so a replayed call records once). */
  toolCallId?: string;
  /** Compute tiers (server/tiers): what upgrade_tier uses; absent where no tiers are configured. */
  tiers?: TierAccess;
  /** A person's answer to the consent this call asked for (ToolDefinition.consent). */
  consent?: ConsentAnswer;
  /** Names of the secrets this run's tools may use (its agent spec's and its launch's); set by the kernel. */
  secrets?: string[];
  /** The run plays a scenario its launcher gave: its commands are the caller's (secret scopes tell apart). */
  callerCommands?: boolean;
  /**
   * Those secrets as variables for a process the tool starts (the shell),
   * recording their use; set by the ToolRunner. Values never go back in the
   * tool's output: the ToolRunner redacts them.
   */
  secretEnv?: () => Promise<Record<string, string>>;
}

/** Secrets as the ToolRunner sees them (server/secrets). */
export interface ToolSecretAccess {
  /** Learns the current values of these secrets (and the provider keys) for redaction; records no use. */
  refresh(names: string[]): Promise<void>;
  /** NAME=value for a tool's process; records the use. Refused for a secret the run's scope does not allow. */
  environment(names: string[], run?: { agent: string; teamId: string | null; callerCommands: boolean }): Promise<Record<string, string>>;
  /** Every known value replaced with [secret:NAME]. */
  redact<T>(value: T): T;
}

/** A request to enter a compute tier, as upgrade_tier makes it. */
export interface TierRequest {
  runId: string;
  toolCallId: string;
  tier: string;
  reason: string;
}

/** Compute tiers as the upgrade_tier tool sees them (server/tiers implements it). */
export interface TierAccess {
  /** The consent entering the tier needs, or null when it needs none (or would be refused anyway). */
  consentNeeded(request: TierRequest): Promise<ConsentQuestion | null>;
  /** Decides and, when granted, moves the run; a refusal throws a ToolError whose code says why. */
  upgrade(request: TierRequest & { consent?: ConsentAnswer }): Promise<unknown>;
}

/** What a tool needs a person's consent for, before it runs. */
export interface ConsentQuestion {
  title: string;
  detail?: string;
  requiredRole: "operator" | "approver" | "admin";
  /** The rule that asks, in words (shown with the request). */
  rule: string;
  ttlSec?: number;
}

/** A person's answer to a ConsentQuestion; `execute` decides what it means. */
export interface ConsentAnswer {
  state: "APPROVED" | "REJECTED" | "EXPIRED" | "CANCELED";
  requestId: string;
  by?: string;
  byName?: string;
  comment?: string;
}

export interface ToolDefinition<Args = any> {
  name: string;
  description: string;
  args: z.ZodType<Args>;
  /**
   * Another name the policy knows the tool by when no rule names it: every
   * runtime tool is "runtime_tool" (its own name is the improver's choice).
   */
  policyAlias?: string;
  /** The JSON schema the model sees, when the tool was given one (a runtime tool); else derived from `args`. */
  inputSchema?: Record<string, unknown>;
  replayClass: ReplayClass;
  persistence: PersistenceClass;
  /** Where the tool comes from when it is not Rein's own (traces name it: gen_ai.tool.type). */
  origin?: "mcp";
  /** For idempotent_with_key: the key passed to the external system; part of the cache key. */
  idempotencyKey?: (args: Args) => string;
  /** How long the runner waits for a call; without it (or timeoutFor) the runner's default (10 minutes). */
  timeoutMs?: number;
  /**
   * The runner's deadline for one call, from its arguments: a tool whose
   * arguments carry their own limit (shell's timeoutSec) makes that the one
   * limit the agent sees. Wins over timeoutMs.
   */
  timeoutFor?: (args: Args) => number;
  /**
   * Tools that ask a person (ask_human): the gate turns the arguments into a
   * human request and the answer becomes the tool's output; `execute` is not called.
   */
  asksHuman?: (args: Args) => HumanQuestion;
  /**
   * Tools whose need for a person depends on the run (upgrade_tier: the tier's
   * settings). After the policy allowed the call the gate asks this; null: go
   * ahead; a question: an approve request, and once it is answered (either
   * way) `execute` runs with the answer in `ctx.consent` and decides.
   */
  consent?: (args: Args, ctx: ToolContext) => Promise<ConsentQuestion | null>;
  execute(args: Args, ctx: ToolContext): Promise<unknown>;
}

/** What a tool like ask_human wants to know from a person. */
export interface HumanQuestion {
  kind: "approve" | "choose" | "provide" | "veto";
  title: string;
  detail?: string;
  options?: Array<{ id: string; label: string; detail?: string }>;
  schema?: Record<string, unknown>;
  ttlSec?: number;
}

/** What the gate says about one call: PolicyGate, then a person if asked (docs/human-requests-and-policy.md#how-a-call-is-decided). */
export type GateVerdict =
  /** Go ahead, with these arguments (a person may have edited them). */
  | { kind: "proceed"; args: unknown; note?: GateNote; consent?: ConsentAnswer }
  /** Do not run: the outcome the model sees (denied, rejected, expired, or a person's answer). */
  | { kind: "result"; outcome: ToolOutcome; note?: GateNote }
  /** A person must answer first; the run waits. */
  | { kind: "wait"; request: WaitingRequest; created: boolean; note?: GateNote }
  /** A person chose to cancel the run. */
  | { kind: "cancel"; reason: string; note?: GateNote };

/** The open human request a call waits for, as the run's timeline shows it. */
export interface WaitingRequest {
  id: string;
  kind: string;
  title: string;
  requiredRole: string;
  expiresAt: string;
  /** Who asked: the policy, ask_human, the loop guard, a replay, a consent rule (the friction miner tells them apart by it). */
  slot?: string;
}

/** How the gate decided, for the event log. */
export interface GateNote {
  policy?: { effect: string; level: string; rule: number | null; reason: string; version: number };
  requestId?: string;
  decidedBy?: string;
  /** The arguments the call ran with, when a person edited them before approving (the call's own are on its tool.call). */
  args?: unknown;
}

export interface GateCall {
  tool: ToolDefinition;
  args: unknown;
  address: CallAddress;
  ctx: ToolContext;
}

/** The PolicyGate and the HITLBroker as the ToolRunner sees them (server/hitl implements it). */
export interface CallGate {
  /** Before every call. */
  check(call: GateCall): Promise<GateVerdict>;
  /** An unsafe call has an intent but no result (docs/runs.md#replay-safety): ask a person what to do. */
  replayUnknown(call: GateCall): Promise<GateVerdict>;
}

export type ToolOutcome = { ok: true; output: unknown } | { ok: false; error: { code: string; message: string; reviewer?: ToolReviewer } };

/** Who rejected, vetoed or declined a call, and their comment (for the run's end reason). */
export interface ToolReviewer {
  by: string;
  comment?: string;
  verb: "rejected" | "vetoed" | "declined";
}

export interface ToolCallRequest {
  toolCallId: string;
  toolName: string;
  args: unknown;
}

/** Identifies one call for the replay cache: the same call on resume has the same address. */
export interface CallAddress {
  runId: string;
  nodeId: string;
  checkpointId: string;
}

export interface ToolRunResult {
  outcome: ToolOutcome;
  /** True when the result came from the replay cache and the tool did not run. */
  cached: boolean;
  replayClass: ReplayClass | null;
  durationMs: number;
  origin?: "mcp";
  /** Set when a person must answer before the call can go on; the run waits. */
  waitingFor?: WaitingRequest;
  /** Set when a person chose to cancel the run. */
  cancelRun?: string;
  gate?: GateNote;
}

/** A tool error the model should see (bad path, missing file...), not a crash. */
export class ToolError extends Error {
  constructor(
    public readonly code: string,
    message: string,
    /** Details for the caller (e.g. the current hash of a file that changed), not shown to the model. */
    public readonly extra?: Record<string, unknown>,
    /** A person refused what the call asked for (consent to a tier): who, and what they said. */
    public readonly reviewer?: ToolReviewer,
  ) {
    super(message);
    this.name = "ToolError";
  }
}

/**
 * An unsafe tool has an intent row but no result: it may or may not have
 * happened. Resume stops here instead of guessing (docs/runs.md#replay-safety).
 */
export class ReplayUnsafeError extends Error {
  constructor(
    public readonly toolName: string,
    public readonly address: CallAddress,
  ) {
    super(
      `Cannot tell whether the unsafe tool call ${toolName} (${address.nodeId}) completed before the interruption; ` +
        `it was not run again. A person must decide whether to skip it, retry it, or cancel the run.`,
    );
    this.name = "ReplayUnsafeError";
  }
}
