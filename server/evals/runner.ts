// The experiment runner (Evals): hands an experiment's trials to the kernel
// as ordinary runs, at most `concurrency` of one experiment at a time, scores
// each run when it ends, and finishes the experiment when every trial has.
// It works from the database alone, so a restarted server picks up where the
// last one stopped: a trial records its run's id before the run is created,
// so each trial has exactly one run, and a trial whose run never got written
// gets that same run now. Never inside a request handler: started with the
// server, told of new experiments and ended runs, and sweeping on a timer.
import { randomBytes } from "node:crypto";
import type { TerminalProvider } from "@/server/compute";
import type { Db } from "@/server/db";
import { loadActor } from "@/server/identity";
import { TERMINAL_STATES, createRun, type RunEventRecord, type RunServiceDeps, type RunState, type RunStore } from "@/server/kernel";
import type { ModelRouter, Scenario } from "@/server/models";
import type { Workspace } from "@/server/tools";
import { storedScoring } from "./datasets";
import { EXPERIMENT_ACTIVE, TRIAL_IN_FLIGHT } from "./experiment-states";
import { evalWorkflow } from "./experiments";
import { loadScoringInput, parseScoring, scoreItem } from "./scorers";
import type { PriceLookup } from "./judge";

/** What a trial keeps of its run's last text, for output-vs-expected diffs. */
export const MAX_TRIAL_TEXT = 20_000;
/** And of its tool calls' names, in order (an agent in a loop can make thousands). */
export const MAX_TRIAL_TOOLS = 500;
const SWEEP_MS = 3_000;

export interface ExperimentRunnerDeps {
  db: Db;
  /** createRun's dependencies (the kernel). */
  runs: RunServiceDeps;
  store: RunStore;
  workspaceFor(runId: string): Workspace;
  terminals?: TerminalProvider;
  /** Ended runs are announced here (the kernel's event bus). */
  bus?: { onAny(listener: (runId: string, events: RunEventRecord[]) => void): () => void };
  /** Judges are routed here (the judge task class, of another family than the run's model); without it judge scorers are skipped. */
  router?: ModelRouter;
  /** Prices of judge calls, added to the trial's cost (the telemetry's PriceBook). */
  prices?: PriceLookup;
  log: { info(message: string): void; error(message: string, err?: unknown): void };
  /** Cancels a run (the kernel pool): a trial canceled while its run was being created. */
  cancelRun?(runId: string, by: { id: string; name: string }): Promise<unknown>;
  /** The sweep's period (tests shorten it). */
  sweepMs?: number;
}

type Experiment = {
  id: string;
  datasetId: string;
  model: string | null;
  concurrency: number;
  status: string;
  teamId: string | null;
  scoring: string;
  createdById: string;
};
type Trial = {
  id: string;
  itemId: string;
  itemKey: string;
  epoch: number;
  runId: string | null;
  agentName: string | null;
  agentVersion: number | null;
  status: string;
};

const TRIAL_SELECT = {
  id: true,
  itemId: true,
  itemKey: true,
  epoch: true,
  runId: true,
  agentName: true,
  agentVersion: true,
  status: true,
} as const;

/** A run id chosen before the run exists (the same alphabet as the database's own ids). */
const newRunId = () => `c${Date.now().toString(36)}${randomBytes(9).toString("hex")}`.slice(0, 25);

const isUniqueConflict = (err: unknown) => (err as { code?: unknown } | null)?.code === "P2002";

function parseJson<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export class ExperimentRunner {
  private readonly chains = new Map<string, Promise<void>>();
  private readonly queued = new Set<string>();
  /** Runs of in-flight trials → their experiment, so an ended run wakes it at once. */
  private readonly trialRuns = new Map<string, string>();
  private readonly scoring = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private stopped = false;

  constructor(private readonly deps: ExperimentRunnerDeps) {}

  /** Picks up every experiment a previous server left going, and starts watching. */
  async start(): Promise<{ resumed: number }> {
    this.stopped = false;
    this.unsubscribe =
      this.deps.bus?.onAny((runId, events) => {
        const experimentId = this.trialRuns.get(runId);
        if (!experimentId) return;
        const ended = events.some((e) => e.type === "run.state" && TERMINAL_STATES.includes((e.payload as { to: RunState }).to));
        if (ended) this.wake(experimentId);
      }) ?? null;
    const active = await this.sweep();
    this.timer = setInterval(
      () => void this.sweep().catch((err) => this.deps.log.error("experiments: the sweep failed", err)),
      this.deps.sweepMs ?? SWEEP_MS,
    );
    this.timer.unref?.();
    return { resumed: active };
  }

  /** Stops starting trials and waits for scoring under way (a restart scores the rest). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    await Promise.allSettled([...this.chains.values(), ...this.scoring.values()]);
  }

  /** Resolves when no experiment is active (tests, benchmarks, the CLI's gate through the API). */
  async whenDone(experimentId: string, pollMs = 100): Promise<void> {
    for (;;) {
      const row = await this.deps.db.experiment.findUnique({ where: { id: experimentId }, select: { status: true } });
      if (!row || !EXPERIMENT_ACTIVE.includes(row.status as never)) return;
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }

  /** Looks at one experiment soon (serialized per experiment); bound, so it can be handed around. */
  readonly wake = (experimentId: string): void => {
    if (this.stopped || this.queued.has(experimentId)) return;
    this.queued.add(experimentId);
    const prev = this.chains.get(experimentId) ?? Promise.resolve();
    const next = prev
      .then(() => {
        this.queued.delete(experimentId);
        return this.tick(experimentId);
      })
      .catch((err) => this.deps.log.error(`experiment ${experimentId}: could not go on`, err))
      .finally(() => {
        if (this.chains.get(experimentId) === next) this.chains.delete(experimentId);
      });
    this.chains.set(experimentId, next);
  };

  private async sweep(): Promise<number> {
    const active = await this.deps.db.experiment.findMany({ where: { status: { in: [...EXPERIMENT_ACTIVE] } }, select: { id: true } });
    active.forEach((e) => this.wake(e.id));
    return active.length;
  }

  private async tick(experimentId: string): Promise<void> {
    const { db } = this.deps;
    const experiment = await db.experiment.findUnique({
      where: { id: experimentId },
      select: { id: true, datasetId: true, model: true, concurrency: true, status: true, teamId: true, scoring: true, createdById: true },
    });
    if (!experiment || this.stopped) return;
    if (experiment.status === "queued") {
      await db.experiment.updateMany({ where: { id: experimentId, status: "queued" }, data: { status: "running", startedAt: new Date() } });
    } else if (experiment.status !== "running") {
      return;
    }
    const inFlight = await db.experimentTrial.findMany({
      where: { experimentId, status: { in: [...TRIAL_IN_FLIGHT] } },
      select: TRIAL_SELECT,
    });
    for (const trial of inFlight) await this.follow(experiment, trial);
    let slots = experiment.concurrency - inFlight.length;
    if (slots > 0) {
      const pending = await db.experimentTrial.findMany({
        where: { experimentId, status: "pending" },
        select: TRIAL_SELECT,
        orderBy: [{ epoch: "asc" }, { itemKey: "asc" }],
        take: slots,
      });
      for (const trial of pending) {
        if (this.stopped) return;
        if (await this.launch(experiment, trial)) slots--;
      }
    }
    await this.finishIfDone(experimentId);
  }

  /** A trial under way: (re)create its run if it was never written, score it once it ended. */
  private async follow(experiment: Experiment, trial: Trial): Promise<void> {
    if (!trial.runId) return;
    this.trialRuns.set(trial.runId, experiment.id);
    if (trial.status === "scoring") return this.startScoring(experiment, trial);
    const run = await this.deps.db.run.findUnique({ where: { id: trial.runId }, select: { status: true } });
    if (!run) return void (await this.createTrialRun(experiment, trial, trial.runId));
    if (TERMINAL_STATES.includes(run.status as RunState)) {
      const moved = await this.deps.db.experimentTrial.updateMany({
        where: { id: trial.id, status: "running" },
        data: { status: "scoring" },
      });
      if (moved.count) this.startScoring(experiment, trial);
    }
  }

  /** Claims a pending trial with a fresh run id, then creates that run. False when another claim won. */
  private async launch(experiment: Experiment, trial: Trial): Promise<boolean> {
    const runId = newRunId();
    const claimed = await this.deps.db.experimentTrial.updateMany({
      where: { id: trial.id, status: "pending" },
      data: { status: "running", runId },
    });
    if (claimed.count === 0) return false;
    this.trialRuns.set(runId, experiment.id);
    await this.createTrialRun(experiment, { ...trial, runId, status: "running" }, runId);
    return true;
  }

  private async createTrialRun(experiment: Experiment, trial: Trial, runId: string): Promise<void> {
    const { db } = this.deps;
    const fail = async (error: string) => {
      await db.experimentTrial.updateMany({ where: { id: trial.id, status: "running" }, data: { status: "failed", error } });
      this.trialRuns.delete(runId);
    };
    const item = await db.datasetItem.findUnique({ where: { id: trial.itemId }, select: { goal: true, scenario: true } });
    const dataset = await db.dataset.findUnique({ where: { id: experiment.datasetId }, select: { name: true } });
    if (!item || !dataset) return fail("The dataset item is gone");
    const actor = await loadActor(db, experiment.createdById);
    if (!actor) return fail("The person who started the experiment can no longer launch runs (their account is disabled or gone)");
    const scenario = parseJson<Scenario | null>(item.scenario, null);
    try {
      await createRun(
        this.deps.runs,
        {
          goal: item.goal,
          agent: trial.agentName ?? "",
          ...(scenario ? { scenario } : experiment.model ? { model: experiment.model } : {}),
          ...(experiment.teamId ? { teamId: experiment.teamId } : {}),
        },
        actor,
        { runId, specVersion: trial.agentVersion ?? undefined, experimentId: experiment.id, workflow: evalWorkflow(dataset.name) },
      );
    } catch (err) {
      // The run was written before this failed (a restart cut it short, or what came after the row did): it is the trial's run.
      const written = await db.run.findUnique({ where: { id: runId }, select: { id: true } });
      if (!written) return fail(`The run could not start: ${(err as Error).message}`);
      if (!isUniqueConflict(err)) this.deps.runs.enqueue(runId);
    }
    // A cancel that came while the run was being written found no run to cancel: cancel it now.
    const now = await db.experimentTrial.findUnique({ where: { id: trial.id }, select: { status: true } });
    if (now?.status === "canceled") {
      this.trialRuns.delete(runId);
      await this.deps
        .cancelRun?.(runId, { id: experiment.createdById, name: "Experiment canceled" })
        .catch((err) => this.deps.log.error(`experiment ${experiment.id}: could not cancel run ${runId}`, err));
    }
  }

  private startScoring(experiment: Experiment, trial: Trial): void {
    if (this.scoring.has(trial.id)) return;
    const job = this.scoreTrial(experiment, trial)
      .catch(async (err) => {
        this.deps.log.error(`experiment ${experiment.id}: scoring trial ${trial.id} failed`, err);
        await this.deps.db.experimentTrial.updateMany({
          where: { id: trial.id, status: "scoring" },
          data: { status: "failed", error: `Scoring failed: ${(err as Error).message}` },
        });
      })
      .finally(() => {
        this.scoring.delete(trial.id);
        if (trial.runId) this.trialRuns.delete(trial.runId);
        this.wake(experiment.id);
      });
    this.scoring.set(trial.id, job);
  }

  private async scoreTrial(experiment: Experiment, trial: Trial): Promise<void> {
    const { db } = this.deps;
    const runId = trial.runId!;
    const item = await db.datasetItem.findUnique({ where: { id: trial.itemId }, select: { goal: true, expected: true } });
    const expected = parseJson<Record<string, unknown>>(item?.expected ?? null, {});
    const stored = storedScoring(experiment.scoring);
    const itemScorers = Array.isArray(expected.scorers) ? expected.scorers : [];
    const parsed = parseScoring({ scorers: [...stored.scorers, ...itemScorers], threshold: stored.threshold });
    if (!parsed.ok) {
      await db.experimentTrial.updateMany({
        where: { id: trial.id, status: "scoring" },
        data: { status: "failed", error: `The item's scoring cannot be used: ${parsed.problems.join("; ")}` },
      });
      return;
    }
    const run = await db.run.findUnique({
      where: { id: runId },
      select: { status: true, inputTokens: true, outputTokens: true, costUsd: true, startedAt: true, endedAt: true },
    });
    if (!run) throw new Error(`its run ${runId} is gone`);
    const loaded = await loadScoringInput(this.deps, runId, {
      expected: { text: typeof expected.text === "string" ? expected.text : null },
    });
    const input = loaded.input;
    let verdict: Awaited<ReturnType<typeof scoreItem>>;
    try {
      verdict = await scoreItem(input, parsed.scoring);
    } finally {
      loaded.release();
    }
    const extraCost = verdict.scorers.reduce(
      (sum, s) => sum + ("costUsd" in s.result && typeof s.result.costUsd === "number" ? s.result.costUsd : 0),
      0,
    );
    await db.experimentTrial.updateMany({
      where: { id: trial.id, status: "scoring" },
      data: {
        status: "done",
        score: verdict.score,
        passed: verdict.passed,
        scores: JSON.stringify({ detail: verdict.detail, failedRequired: verdict.failedRequired, scorers: verdict.scorers }),
        finalText: input.finalText.slice(0, MAX_TRIAL_TEXT),
        toolSequence: JSON.stringify(input.toolCalls.slice(0, MAX_TRIAL_TOOLS).map((c) => c.tool.slice(0, 128))),
        runStatus: run.status,
        modelCalls: input.modelCalls,
        inputTokens: run.inputTokens,
        outputTokens: run.outputTokens,
        costUsd: run.costUsd + extraCost,
        durationMs: run.startedAt && run.endedAt ? run.endedAt.getTime() - run.startedAt.getTime() : null,
      },
    });
  }

  private async finishIfDone(experimentId: string): Promise<void> {
    const { db } = this.deps;
    const left = await db.experimentTrial.count({ where: { experimentId, status: { in: ["pending", ...TRIAL_IN_FLIGHT] } } });
    if (left > 0) return;
    const [done, failed, passed] = await Promise.all([
      db.experimentTrial.count({ where: { experimentId, status: "done" } }),
      db.experimentTrial.findMany({ where: { experimentId, status: "failed" }, select: { error: true }, take: 1 }),
      db.experimentTrial.count({ where: { experimentId, passed: true } }),
    ]);
    const data =
      done === 0
        ? { status: "failed", statusReason: `No trial could run${failed[0]?.error ? `: ${failed[0].error}` : ""}` }
        : {
            status: "succeeded",
            statusReason: `${passed} of ${done} trial${done === 1 ? "" : "s"} passed${failed.length ? "; some trials could not run" : ""}`,
          };
    const moved = await db.experiment.updateMany({
      where: { id: experimentId, status: "running" },
      data: { ...data, endedAt: new Date() },
    });
    if (moved.count) this.deps.log.info(`experiment ${experimentId}: ${data.statusReason}`);
  }
}
