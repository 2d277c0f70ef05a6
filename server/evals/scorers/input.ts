// A finished run as scorers see it: figures from its row, the trajectory from
// its event log, and its final workspace through the sandbox (files through
// the run's file service, commands in a terminal pod as the shell tool runs
// them). With a model router, judges of another family than the model that
// wrote the final text.
import type { Db } from "@/server/db";
import { isRunState, type RunEventPayloads, type RunEventRecord, type RunState, type RunStore } from "@/server/kernel";
import type { TerminalProvider } from "@/server/compute";
import type { ModelRouter } from "@/server/models";
import { createJudgeClient, type JudgeClient, type PriceLookup } from "../judge";
import { ToolError, WorkspaceFileError, workspaceFiles, type Workspace } from "@/server/tools";
import { ScoringUnavailableError, type CommandResult, type ScoringInput, type ToolCallRecord } from "./types";

/** What scoring needs of the run's row (getRun's summary and the Run table both have it). */
export interface FinishedRun {
  id: string;
  status: string;
  statusReason?: string | null;
  errorMessage?: string | null;
  costUsd: number | null;
  startedAt: Date | null;
  endedAt: Date | null;
  goal?: string;
  /** The run's team: its sensitivity pool limits the judges too. */
  teamId?: string | null;
  /** The model the run was launched with ("auto" when routing chose). */
  model?: string;
}

export interface ScoringEnvironment {
  /** The run's workspace (kernel deps.workspaceFor(runId)). */
  workspace: Workspace;
  /** Terminal pods (the server's PodPool); without them, command scorers are skipped. */
  terminals?: TerminalProvider;
  /** The model router judges are asked through, and the price table their cost comes from; without them, judge scorers are skipped. */
  judges?: { router: ModelRouter; prices?: PriceLookup };
}

/** What scoring knows of the dataset item, and a judge other than the environment's. */
export interface ScoringExtras {
  /** The item's expected outcome; judges look at its text. */
  expected?: { text?: string | null } | null;
  judge?: JudgeClient;
}

function payload<T extends keyof RunEventPayloads>(e: RunEventRecord, type: T): RunEventPayloads[T] | null {
  return e.type === type ? (e.payload as RunEventPayloads[T]) : null;
}

/** The tool calls in the order the run made them; a call with no successful result is not ok. */
function toolCallsOf(events: RunEventRecord[]): ToolCallRecord[] {
  const ok = new Map<string, boolean>();
  for (const e of events) {
    const r = payload(e, "tool.result");
    if (r) ok.set(r.toolCallId, r.ok);
  }
  const seen = new Set<string>();
  const calls: ToolCallRecord[] = [];
  for (const e of [...events].sort((a, b) => a.seq - b.seq)) {
    const c = payload(e, "tool.call");
    // A resumed run may log a call again under the same id: it is one call.
    if (!c || seen.has(c.toolCallId)) continue;
    seen.add(c.toolCallId);
    calls.push({ tool: c.tool, args: c.args, ok: ok.get(c.toolCallId) === true });
  }
  return calls;
}

/** The last text the model wrote, and the model that wrote it. */
function finalTextOf(events: RunEventRecord[]): { text: string; model: string | null } {
  let last = { text: "", model: null as string | null };
  for (const e of [...events].sort((a, b) => a.seq - b.seq)) {
    const t = payload(e, "model.turn");
    if (t?.text.trim()) last = { text: t.text, model: t.model };
  }
  return last;
}

function asScoringError(err: unknown): never {
  const code = (err as { code?: string }).code;
  if (code === "SANDBOX_UNAVAILABLE") throw new ScoringUnavailableError((err as Error).message);
  if (err instanceof ToolError)
    throw new WorkspaceFileError(err.code === "OUTSIDE_WORKSPACE" ? "OUTSIDE_WORKSPACE" : "BAD_PATH", err.message);
  throw err;
}

let scoringPods = 0;

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * Runs a command in the final workspace in a terminal pod of its own (the
 * sandbox the run's shell had: workspace at /workspace, the pod's limits, no
 * secrets), which goes when the command ends.
 */
export function podExec(terminals: TerminalProvider | undefined, workspace: Workspace, runId: string): ScoringInput["exec"] {
  return async (command, timeoutSec): Promise<CommandResult> => {
    if (!terminals) throw new ScoringUnavailableError("commands cannot run here: this server has no terminal pods");
    const why = terminals.unavailable();
    if (why) throw new ScoringUnavailableError(`commands cannot run in the sandbox: ${why}`);
    // A pod over a missing workspace would create one; a run that never started has nothing to check.
    if (!workspace.exists()) throw new Error("the run has no workspace (it never started)");
    const key = `${runId}/score-${++scoringPods}`;
    const { pod } = await terminals.attach(key, workspace.root);
    try {
      // In a shell of its own: an `exit` in the command ends that shell, not the pod's.
      const r = await pod.exec(`bash -c ${shellQuote(command)}`, { timeoutMs: timeoutSec * 1000 });
      return { exitCode: r.exitCode, output: r.output, timedOut: false };
    } catch (err) {
      if ((err as { code?: string }).code === "TIMEOUT") return { exitCode: -1, output: "", timedOut: true };
      throw err;
    } finally {
      await terminals.release(key);
    }
  };
}

/** The ScoringInput of a finished run, from its row and its events. */
export function scoringInputOf(
  run: FinishedRun,
  events: RunEventRecord[],
  env: ScoringEnvironment,
  extras: ScoringExtras = {},
): ScoringInput {
  if (!isRunState(run.status)) throw new Error(`run ${run.id} has an unknown status ${JSON.stringify(run.status)}`);
  const files = workspaceFiles(env.workspace);
  const final = finalTextOf(events);
  // A run that never called a model has nothing to judge; its launch model is the best guess of its family.
  const agentModel = final.model ?? (run.model && run.model !== "auto" ? run.model : null);
  const judge =
    extras.judge ??
    (env.judges
      ? createJudgeClient({ router: env.judges.router, prices: env.judges.prices, teamId: run.teamId ?? null, agentModel })
      : undefined);
  const expectedText = extras.expected?.text;
  return {
    runId: run.id,
    status: run.status as RunState,
    statusReason: run.errorMessage ?? run.statusReason ?? null,
    finalText: final.text,
    ...(run.goal !== undefined ? { goal: run.goal } : {}),
    ...(extras.expected ? { expected: typeof expectedText === "string" ? { text: expectedText } : {} } : {}),
    agentModel,
    ...(judge ? { judge } : {}),
    costUsd: run.costUsd,
    modelCalls: events.filter((e) => e.type === "model.turn" || e.type === "model.error").length,
    durationMs: run.startedAt && run.endedAt ? run.endedAt.getTime() - run.startedAt.getTime() : null,
    toolCalls: toolCallsOf(events),
    async readText(path) {
      try {
        return (await files.readText(path)).content;
      } catch (err) {
        if (err instanceof WorkspaceFileError && err.code !== "SANDBOX_UNAVAILABLE") throw err;
        asScoringError(err);
      }
    },
    async exists(path) {
      if (!files.exists()) return false;
      try {
        return (await env.workspace.stat(path)) !== null;
      } catch (err) {
        asScoringError(err);
      }
    },
    exec: podExec(env.terminals, env.workspace, run.id),
  };
}

const EVENT_PAGE = 1_000;

/**
 * Loads a finished run for scoring. `release` closes the file service the
 * scorers opened on its workspace; call it when scoring is done. Give
 * `router` (and `prices`) for judge scorers, and the item's expected outcome
 * in `extras`.
 */
export async function loadScoringInput(
  deps: {
    db: Db;
    store: RunStore;
    workspaceFor(runId: string): Workspace;
    terminals?: TerminalProvider;
    router?: ModelRouter;
    prices?: PriceLookup;
  },
  runId: string,
  extras: ScoringExtras = {},
): Promise<{ input: ScoringInput; release(): void }> {
  const run = await deps.db.run.findUnique({
    where: { id: runId },
    select: {
      id: true,
      status: true,
      statusReason: true,
      errorMessage: true,
      costUsd: true,
      startedAt: true,
      endedAt: true,
      goal: true,
      teamId: true,
      model: true,
    },
  });
  if (!run) throw new Error(`Run ${runId} was not found`);
  const events: RunEventRecord[] = [];
  for (let after = 0; ;) {
    const page = await deps.store.listEvents(runId, after, EVENT_PAGE);
    if (page.length === 0) break;
    events.push(...page);
    after = page[page.length - 1].seq;
  }
  const workspace = deps.workspaceFor(runId);
  const judges = deps.router ? { router: deps.router, prices: deps.prices } : undefined;
  return {
    input: scoringInputOf(run, events, { workspace, terminals: deps.terminals, judges }, extras),
    release: () => workspace.release(),
  };
}
