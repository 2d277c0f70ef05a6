// Steering a run over time (docs/steering.md): a person's message to a running
// agent, Continue (a message to a paused or ended run), Retry (a failed run
// from its last good checkpoint) and Re-run (a new run like this one). The
// API layers (tRPC, REST, CLI) call these; each checks the caller's role in
// the run's team like pause and resume do.
import { DomainError } from "@/server/errors";
import { z } from "zod";
import { MAX_BUDGET_USD, MAX_MESSAGE_CHARS, MAX_STEPS } from "@/lib/limits";
import type { Actor } from "@/server/identity";
import { UnknownModelError } from "@/server/models";
import { DEFAULT_CALL_CAP, GoalSchema, createRun, getRun, getRunAs, runsVisibleTo, type CreateRunInput, type RunServiceDeps } from "./runs";
import { event } from "./events";
import { isTerminal, type RunState } from "./states";
import type { ModelCallLimits } from "./loop";
import type { WorkerPool } from "./pool";
import { RESUME_NEEDS, prunedParts, requireKept } from "./pruned";

/** What steering needs of the kernel: the run services, the pool that executes runs, the limits checked before a model call. */
export interface SteeringDeps extends RunServiceDeps {
  pool: WorkerPool;
  deps: { limits?: ModelCallLimits };
}

export { MAX_MESSAGE_CHARS };

export const SendMessageInput = z
  .object({
    text: z
      .string()
      .trim()
      .min(1, "The message is empty")
      .max(MAX_MESSAGE_CHARS, `A message is at most ${MAX_MESSAGE_CHARS.toLocaleString("en")} characters`),
    /** Stop the tool call in flight so the agent reads the message now (the rest of its turn is skipped). */
    interrupt: z.boolean().optional(),
  })
  .strict();
export type SendMessageInput = z.input<typeof SendMessageInput>;

const Limits = {
  maxSteps: z
    .number()
    .int("maxSteps is a whole number")
    .min(1, "maxSteps is at least 1")
    .max(MAX_STEPS, `maxSteps is at most ${MAX_STEPS}`)
    .optional(),
  budgetUsd: z.number().positive("budgetUsd must be more than 0").max(MAX_BUDGET_USD).optional(),
};

export const RetryInput = z
  .object({
    ...Limits,
    /** Another model for the retry ("<provider>/<model id>" or "auto"): after fixing one that failed. */
    model: z.string().trim().min(1, "model is empty").max(200).optional(),
  })
  .strict();
export type RetryInput = z.input<typeof RetryInput>;

export const RerunInput = z
  .object({
    goal: GoalSchema.optional(),
    model: z.string().trim().min(1, "model is empty").max(200).optional(),
    /** The agent version to run (default: the version the run used). */
    agentVersion: z.number().int("agentVersion is a whole number").optional(),
    ...Limits,
  })
  .strict();
export type RerunInput = z.input<typeof RerunInput>;

/** A steering request that cannot be done in the run's state. */
export class SteeringConflictError extends DomainError {
  constructor(message: string) {
    super("CONFLICT", message);
    this.name = "SteeringConflictError";
  }
}

export type MessageOutcome =
  /** The agent reads it before its next model call. */
  | { delivery: "next_turn"; seq: number; interrupted: boolean }
  /** It continued a paused or ended run, which is queued again. */
  | { delivery: "continued"; seq: number; from: RunState };

function who(actor: Actor) {
  return { id: actor.userId, name: actor.name };
}

function refuseTrial(run: { experimentId: string | null }, doing: string) {
  if (run.experimentId)
    throw new SteeringConflictError(
      `${doing} is not possible for a trial of an experiment: its score would no longer say what the experiment measured. Re-run the experiment instead`,
    );
}

/** A person's message to the run's agent (the message box on the run page). */
export async function sendMessage(k: SteeringDeps, runId: string, actor: Actor, raw: SendMessageInput): Promise<MessageOutcome> {
  const input = SendMessageInput.parse(raw);
  const run = await getRunAs(k.db, runId, actor, "operator", "Sending a run a message");
  const message = () =>
    event(
      "user.message",
      { text: input.text, by: actor.userId, byName: actor.name, ...(input.interrupt ? { interrupt: true } : {}) },
      { actor: actor.userId },
    );
  if (isTerminal(run.status)) return continueRun(k, run, actor, message());
  const [written] = await k.store.appendEvents(runId, [message()]);
  if (run.status === "paused") {
    const resumed = await k.pool.resume(runId, who(actor));
    if (resumed.ok) return { delivery: "continued", seq: written.seq, from: "paused" };
  }
  let interrupted = false;
  if (input.interrupt && run.status === "running") {
    await k.pool.interrupt(runId, who(actor));
    await k.store.appendEvents(runId, [
      event("run.control", { action: "interrupt", by: actor.userId, byName: actor.name }, { actor: actor.userId }),
    ]);
    interrupted = true;
  }
  // The run may have ended while the message was written (its loop checks for
  // messages after ending too): an ended run goes on to read it.
  const now = (await k.store.getRun(runId))?.status;
  if (now && isTerminal(now)) await reopen(k, runId, now, actor, "continue", `Continued by ${actor.name} with a message`);
  return { delivery: "next_turn", seq: written.seq, interrupted };
}

/** An ended run goes back to work with the message appended: same run, same workspace. */
async function continueRun(
  k: SteeringDeps,
  run: Awaited<ReturnType<typeof getRun>>,
  actor: Actor,
  message: ReturnType<typeof event<"user.message">>,
): Promise<MessageOutcome> {
  refuseTrial(run, "Continuing a run");
  requireKept(run, RESUME_NEEDS, "Continuing a run");
  if (run.stepCount >= run.maxSteps) {
    throw new SteeringConflictError(
      `The run has made all ${run.maxSteps} of its model calls, so it cannot read a message. Retry it with a higher step limit, or re-run it`,
    );
  }
  await refuseOverBudget(k, run.id);
  const from = run.status;
  if (!(await k.store.transition(run.id, [from], "queued", { reason: `Continued by ${actor.name} with a message` }, actor.userId))) {
    throw new SteeringConflictError("The run changed state while the message was being sent; look at it again and resend");
  }
  const [written] = await k.store.appendEvents(run.id, [
    message,
    event("run.control", { action: "continue", by: actor.userId, byName: actor.name, from }, { actor: actor.userId }),
  ]);
  k.enqueue(run.id);
  return { delivery: "continued", seq: written.seq, from };
}

async function reopen(
  k: SteeringDeps,
  runId: string,
  from: RunState,
  actor: Actor,
  action: "continue" | "retry",
  reason: string,
  changes?: string[],
) {
  if (!(await k.store.transition(runId, [from], "queued", { reason }, actor.userId))) {
    // Retention may have dropped what going on needs since the run was read: say so.
    const now = await k.db.run.findUnique({ where: { id: runId }, select: { pruned: true } });
    requireKept(
      { id: runId, pruned: prunedParts(now?.pruned ?? null) },
      RESUME_NEEDS,
      action === "retry" ? "Retrying a run" : "Continuing a run",
    );
    return false;
  }
  await k.store.appendEvents(runId, [
    event(
      "run.control",
      { action, by: actor.userId, byName: actor.name, from, ...(changes?.length ? { changes } : {}) },
      { actor: actor.userId },
    ),
  ]);
  k.enqueue(runId);
  return true;
}

/** Budgets are checked before every model call; a run over one would stop again at once. */
async function refuseOverBudget(k: SteeringDeps, runId: string) {
  const allowed = await k.deps.limits?.beforeModelCall(runId);
  if (allowed && !allowed.ok) throw new SteeringConflictError(`${allowed.reason ?? "A budget would be exceeded"}. Raise the budget first`);
}

/**
 * Retry: a failed (or canceled) run goes again from its last good checkpoint,
 * after the person raised what stopped it (its step limit, its cost ceiling)
 * or picked another model. An agent that stopped itself on a failure says its
 * last turn again.
 */
export async function retryRun(k: SteeringDeps, runId: string, actor: Actor, raw: RetryInput) {
  const input = RetryInput.parse(raw);
  const run = await getRunAs(k.db, runId, actor, "operator", "Retrying a run");
  if (run.status !== "failed" && run.status !== "canceled") {
    throw new SteeringConflictError(
      `Only a failed or canceled run can be retried; this one is ${run.status}${run.status === "succeeded" ? ". Send it a message to continue it, or re-run it" : ""}`,
    );
  }
  refuseTrial(run, "Retrying a run");
  requireKept(run, RESUME_NEEDS, "Retrying a run");
  const maxSteps = input.maxSteps ?? run.maxSteps;
  const budgetUsd = input.budgetUsd ?? run.budgetUsd;
  if (maxSteps > DEFAULT_CALL_CAP && budgetUsd === null) {
    throw new SteeringConflictError(
      `A step limit above the default call cap of ${DEFAULT_CALL_CAP} needs a cost ceiling: set budgetUsd too`,
    );
  }
  if (run.stepCount >= maxSteps) {
    throw new SteeringConflictError(
      `The run has made ${run.stepCount} model calls and its limit is ${maxSteps}: raise the step limit above ${run.stepCount} to retry it`,
    );
  }
  if (input.model) {
    if (run.scenarioGiven)
      throw new UnknownModelError(input.model, [], "This run plays a scenario on the scripted model; re-run it to use another model");
    // Refuses an unknown model, or one outside the team's pool, before anything changes.
    const spec = await k.specs.get(run.agentName, run.agentVersion);
    if (spec)
      k.router.resolve({
        model: input.model,
        taskClass: spec.taskClass,
        scenario: null,
        teamId: run.teamId,
        complexity: null,
        needsTools: spec.tools.length > 0,
      });
  }
  const changes = [
    input.maxSteps !== undefined && input.maxSteps !== run.maxSteps ? `step limit ${run.maxSteps} → ${input.maxSteps}` : null,
    input.budgetUsd !== undefined && input.budgetUsd !== run.budgetUsd
      ? `cost ceiling ${run.budgetUsd === null ? "none" : `$${run.budgetUsd}`} → $${input.budgetUsd}`
      : null,
    input.model && input.model !== run.model ? `model ${run.model} → ${input.model}` : null,
  ].filter((c): c is string => c !== null);
  if (changes.length) {
    await k.db.run.update({ where: { id: runId }, data: { maxSteps, budgetUsd, ...(input.model ? { model: input.model } : {}) } });
  }
  await refuseOverBudget(k, runId);
  // The agent stopped itself (its last turn ended the run as failed, or as stopped by a reviewer): that turn is said again.
  const cp = await k.store.latestCheckpoint(runId);
  if (cp?.state.done?.outcome === "failed" || cp?.state.done?.byReviewer) {
    const messages = cp.state.messages.at(-1)?.role === "assistant" ? cp.state.messages.slice(0, -1) : cp.state.messages;
    await k.store.commitStep(runId, { events: [], checkpoint: { ...cp.state, messages, done: undefined }, seq: cp.seq + 1 });
  }
  const reason = `Retried by ${actor.name}${changes.length ? ` (${changes.join(", ")})` : ""}`;
  if (!(await reopen(k, runId, run.status, actor, "retry", reason, changes))) {
    throw new SteeringConflictError("The run changed state; look at it again and retry");
  }
  return getRun(k.db, runId, actor);
}

/**
 * What a new run like `runId` is launched with (Re-run, Fork): its goal,
 * agent, model or scenario, complexity, limits, secrets and team, with the
 * changes asked for. A run that played a scenario plays it again unless another model is named.
 */
export async function launchLike(
  k: Pick<RunServiceDeps, "db">,
  runId: string,
  source: Awaited<ReturnType<typeof getRun>>,
  changes: { goal?: string; model?: string; maxSteps?: number; budgetUsd?: number },
): Promise<CreateRunInput> {
  const row = await k.db.run.findUniqueOrThrow({ where: { id: runId }, select: { scenario: true, complexity: true } });
  const created = await k.db.runEvent.findFirst({ where: { runId, type: "run.created" }, select: { payload: true } });
  const secrets = (JSON.parse(created?.payload ?? "{}") as { secrets?: string[] }).secrets;
  const keepScenario = row.scenario !== null && !changes.model;
  const budgetUsd = changes.budgetUsd ?? source.budgetUsd;
  return {
    goal: changes.goal ?? source.goal,
    agent: source.agentName,
    ...(keepScenario ? { scenario: JSON.parse(row.scenario!) } : { model: changes.model ?? source.model }),
    ...(row.complexity !== null ? { complexity: row.complexity } : {}),
    maxSteps: changes.maxSteps ?? source.maxSteps,
    ...(budgetUsd !== null ? { budgetUsd } : {}),
    ...(secrets?.length ? { secrets } : {}),
    ...(source.teamId ? { teamId: source.teamId } : {}),
  };
}

/** Re-run: a new run with this run's goal, agent version, model and limits, each of which may be changed. */
export async function rerunRun(k: SteeringDeps, runId: string, actor: Actor, raw: RerunInput) {
  const input = RerunInput.parse(raw);
  const source = await getRun(k.db, runId, actor);
  return createRun(k, await launchLike(k, runId, source, input), actor, {
    specVersion: input.agentVersion ?? source.agentVersion,
    parent: { runId, kind: "rerun" },
  });
}

/** Where a run comes from and what came of it: its parent (re-run or fork) and its children, those the person may see. */
export async function runLineage(k: Pick<RunServiceDeps, "db">, runId: string, actor: Actor) {
  const run = await getRun(k.db, runId, actor);
  const parent = run.parentRunId ? await getRun(k.db, run.parentRunId, actor).catch(() => null) : null;
  const children = await k.db.run.findMany({
    where: { parentRunId: runId, ...runsVisibleTo(actor) },
    select: { id: true, goal: true, status: true, lineage: true, parentSeq: true, createdAt: true },
    orderBy: { createdAt: "asc" },
    take: 100,
  });
  // A fork's step is in its run.created event (parentSeq is the checkpoint it started from).
  const steps = new Map<string, number>();
  const forks = [run.lineage === "fork" ? run.id : null, ...children.filter((c) => c.lineage === "fork").map((c) => c.id)].filter(
    (id): id is string => !!id,
  );
  if (forks.length) {
    const created = await k.db.runEvent.findMany({
      where: { runId: { in: forks }, type: "run.created" },
      select: { runId: true, payload: true },
    });
    for (const e of created) {
      const step = (JSON.parse(e.payload) as { parent?: { step?: number } }).parent?.step;
      if (typeof step === "number") steps.set(e.runId, step);
    }
  }
  return {
    parent: parent
      ? { id: parent.id, goal: parent.goal, status: parent.status, kind: run.lineage, seq: run.parentSeq, step: steps.get(run.id) ?? null }
      : null,
    children: children.map((c) => ({ ...c, status: c.status as RunState, step: steps.get(c.id) ?? null })),
  };
}
