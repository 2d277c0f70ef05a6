// Fork and Compare (docs/steering.md#fork-from-a-step). A fork is a new run
// that starts from a step of another: its conversation, task list and notes as
// they were after that step's tool calls, and its workspace restored from that
// checkpoint's snapshot, exactly (the tree is checked), files deleted later
// included. The goal, the model, the agent version and the limits may be
// changed, and a message may be added. A fork point sits between steps, after
// every call of the turn has its recorded result, so nothing the parent did is
// done again. Compare lines two runs up step by step (a fork's steps before its
// fork point are its parent's) and finds the first step where they part.
import crypto from "node:crypto";
import { z } from "zod";
import { MAX_BUDGET_USD, MAX_STEPS } from "@/lib/limits";
import type { Actor } from "@/server/identity";
import { restoreSnapshot, snapshotWorkspace, type Workspace } from "@/server/tools";
import { parseCheckpoint, type CheckpointState } from "./checkpoint";
import { event, type RunEventRecord } from "./events";
import { GoalSchema, createRun, getRun, type RunServiceDeps } from "./runs";
import { sessionOf } from "./sessions";
import { MAX_MESSAGE_CHARS, SteeringConflictError, launchLike } from "./steering";
import type { StoredCheckpoint } from "./store";
import { prunedParts, requireKept } from "./pruned";

export interface ForkDeps extends RunServiceDeps {
  deps: { workspaceFor(runId: string): Workspace; snapshot?(workspace: Workspace): Promise<string> };
}

export const ForkInput = z
  .object({
    /** Fork after this step (a model turn and the results of its tool calls). */
    step: z.number({ error: "step is the number of the step to fork after" }).int("step is a whole number").min(1, "step is at least 1"),
    goal: GoalSchema.optional(),
    model: z.string().trim().min(1, "model is empty").max(200).optional(),
    agentVersion: z.number().int("agentVersion is a whole number").optional(),
    maxSteps: z
      .number()
      .int("maxSteps is a whole number")
      .min(1, "maxSteps is at least 1")
      .max(MAX_STEPS, `maxSteps is at most ${MAX_STEPS}`)
      .optional(),
    budgetUsd: z.number().positive("budgetUsd must be more than 0").max(MAX_BUDGET_USD).optional(),
    /** A message to the agent, read before the fork's first model call: how the fork should go differently. */
    message: z
      .string()
      .trim()
      .min(1, "The message is empty")
      .max(MAX_MESSAGE_CHARS, `A message is at most ${MAX_MESSAGE_CHARS.toLocaleString("en")} characters`)
      .optional(),
  })
  .strict();
export type ForkInput = z.input<typeof ForkInput>;

const ZERO_USAGE = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };

/** The checkpoints of a run, by seq, read only as far as needed. */
async function checkpointAt(k: Pick<RunServiceDeps, "db">, runId: string, seq: number): Promise<StoredCheckpoint | null> {
  const row = await k.db.checkpoint.findUnique({ where: { runId_seq: { runId, seq } }, select: { id: true, seq: true, state: true } });
  return row ? { id: row.id, seq: row.seq, state: parseCheckpoint(row.state) } : null;
}

/**
 * The checkpoint right after `step`: the last one whose state has taken
 * `step` model turns (so every call of that turn has its result). Steps only
 * grow with seq, so a binary search reads a handful of checkpoints.
 */
export async function forkPoint(k: Pick<RunServiceDeps, "db">, runId: string, step: number): Promise<StoredCheckpoint | null> {
  const last = await k.db.checkpoint.findFirst({ where: { runId }, orderBy: { seq: "desc" }, select: { seq: true } });
  if (!last) return null;
  let lo = 1;
  let hi = last.seq;
  let found: StoredCheckpoint | null = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const cp = await checkpointAt(k, runId, mid);
    if (!cp || cp.state.step > step) hi = mid - 1;
    else {
      if (cp.state.step === step) found = cp;
      lo = mid + 1;
    }
  }
  return found && found.state.pending.length === 0 ? found : null;
}

/** The fork's first checkpoint: the parent's, with its own usage, a fresh event log's cursor, and the edits asked for. */
function forkedState(state: CheckpointState, input: { goal?: string; message?: string }, oldGoal: string): CheckpointState {
  const session = sessionOf(state);
  let messages = state.messages;
  if (input.goal && input.goal !== oldGoal) {
    // The goal is the conversation's first message (or inside a later session's seed).
    const first = messages.findIndex((m) => m.role === "user");
    if (first >= 0 && typeof messages[first].content === "string" && messages[first].content.includes(oldGoal)) {
      messages = messages.map((m, i) =>
        i === first && m.role === "user" ? { ...m, content: m.content.replace(oldGoal, input.goal!) } : m,
      );
    }
  }
  return {
    ...state,
    messages,
    usage: { ...ZERO_USAGE },
    session: { ...session, usageAtStart: { ...ZERO_USAGE } },
    messageCursor: undefined,
    // A fork asked to do something else goes on; one that only copies a finished run ends as it did.
    done: input.goal || input.message ? undefined : state.done,
  };
}

/**
 * Fork: a new run from step `step` of `runId`. The new run is held (paused)
 * until its workspace and first checkpoint are in place, then queued.
 */
export async function forkRun(k: ForkDeps, runId: string, actor: Actor, raw: ForkInput) {
  const input = ForkInput.parse(raw);
  const source = await getRun(k.db, runId, actor);
  requireKept(source, ["checkpoints", "snapshots"], "Forking a run");
  if (input.step > source.stepCount)
    throw new SteeringConflictError(
      `The run has ${source.stepCount} step${source.stepCount === 1 ? "" : "s"}; there is no step ${input.step} to fork from`,
    );
  const point = await forkPoint(k, runId, input.step);
  if (!point)
    throw new SteeringConflictError(`Step ${input.step} has no checkpoint to fork from yet: its tool calls have not all finished`);
  const like = await launchLike(k, runId, source, input);
  const fork = await createRun(k, { ...like, goal: input.goal ?? source.goal }, actor, {
    specVersion: input.agentVersion ?? source.agentVersion,
    parent: { runId, kind: "fork", seq: point.seq, step: input.step },
    hold: `Being prepared: its workspace is restored as it was after step ${input.step} of run ${runId}`,
  });
  try {
    // The fork now keeps its parent whole; retention may have dropped what it needs just before.
    const parent = await k.db.run.findUnique({ where: { id: runId }, select: { pruned: true } });
    requireKept({ id: runId, pruned: prunedParts(parent?.pruned ?? null) }, ["checkpoints", "snapshots"], "Forking a run");
    const workspace = k.deps.workspaceFor(fork.id);
    await workspace.ensure();
    const tree = point.state.workspaceTree;
    if (tree) {
      await restoreSnapshot(workspace, k.deps.workspaceFor(runId), tree);
      // The fork's workspace is the parent's at that step, or the fork does not start.
      const now = await snapshotWorkspace(workspace);
      if (now !== tree)
        throw new SteeringConflictError(
          `The fork's workspace came out different from run ${runId}'s after step ${input.step} (tree ${now.slice(0, 12)}, expected ${tree.slice(0, 12)})`,
        );
    }
    await k.store.commitStep(fork.id, { events: [], checkpoint: forkedState(point.state, input, source.goal), seq: 1 });
    if (input.message)
      await k.store.appendEvents(fork.id, [
        event("user.message", { text: input.message, by: actor.userId, byName: actor.name }, { actor: actor.userId }),
      ]);
    await k.store.transition(
      fork.id,
      ["paused"],
      "queued",
      {
        reason: `Forked from run ${runId} after step ${input.step}${tree ? "" : " (that step has no workspace snapshot: the fork starts with an empty workspace)"}`,
      },
      actor.userId,
    );
    k.enqueue(fork.id);
  } catch (err) {
    const message = `The fork could not be prepared: ${(err as Error).message}`;
    await k.store.transition(fork.id, ["paused"], "failed", { reason: message, error: { code: "FORK_FAILED", message } }, actor.userId);
    throw err instanceof SteeringConflictError ? err : new SteeringConflictError(message);
  }
  return getRun(k.db, fork.id, actor);
}

/** One step of a run, as Compare shows it. */
export interface CompareStep {
  step: number;
  agent: string;
  text: string;
  /** `asked`: the person's decision on the call, taken before it ran (its result follows it). */
  toolCalls: Array<{ tool: string; args: unknown; ok: boolean | null; error?: string; asked?: { state: string; byName: string } }>;
  usage: { inputTokens: number; outputTokens: number };
  durationMs: number;
  /** The run this step was taken in (a fork's early steps are its parent's). */
  runId: string;
  /** What decides whether two runs took the same step: the text and the calls with their arguments and outcome. */
  fingerprint: string;
}

const MAX_COMPARE_STEPS = 500;

/**
 * A run's steps, oldest first; a fork's steps up to its fork point come from
 * its parent (at most 10 generations up), when the person may see the parent.
 */
async function stepsOf(k: Pick<RunServiceDeps, "db" | "store">, runId: string, actor: Actor, depth = 0): Promise<CompareStep[]> {
  const run = await k.db.run.findUniqueOrThrow({ where: { id: runId }, select: { lineage: true, parentRunId: true } });
  let inherited: CompareStep[] = [];
  const parentVisible =
    run.lineage === "fork" &&
    run.parentRunId &&
    depth < 10 &&
    (await getRun(k.db, run.parentRunId, actor).then(
      () => true,
      () => false,
    ));
  if (parentVisible && run.parentRunId) {
    const created = await k.db.runEvent.findFirst({ where: { runId, type: "run.created" }, select: { payload: true } });
    const at = (JSON.parse(created?.payload ?? "{}") as { parent?: { step?: number } }).parent?.step ?? 0;
    inherited = (await stepsOf(k, run.parentRunId, actor, depth + 1)).filter((s) => s.step <= at);
  }
  const own = new Map<number, CompareStep>();
  const byCall = new Map<string, CompareStep["toolCalls"][number]>();
  const byRequest = new Map<string, CompareStep["toolCalls"][number]>();
  let after = 0;
  for (;;) {
    const page: RunEventRecord[] = await k.store.listEvents(runId, after, 1000);
    if (page.length === 0) break;
    after = page[page.length - 1].seq;
    for (const e of page) {
      if (e.type === "model.turn") {
        const p = e.payload as {
          step: number;
          agent: string;
          text: string;
          toolCalls: Array<{ toolCallId: string; tool: string; args: unknown }>;
          usage: { inputTokens: number; outputTokens: number };
          durationMs: number;
        };
        if (p.step > MAX_COMPARE_STEPS) continue;
        const calls = p.toolCalls.map((c) => {
          const call = { tool: c.tool, args: c.args, ok: null as boolean | null };
          byCall.set(c.toolCallId, call);
          return call;
        });
        own.set(p.step, {
          step: p.step,
          agent: p.agent,
          text: p.text,
          toolCalls: calls,
          usage: { inputTokens: p.usage.inputTokens, outputTokens: p.usage.outputTokens },
          durationMs: p.durationMs,
          runId,
          fingerprint: "",
        });
      } else if (e.type === "human.requested") {
        const p = e.payload as { requestId: string; toolCallId?: string };
        const call = p.toolCallId ? byCall.get(p.toolCallId) : undefined;
        if (call) byRequest.set(p.requestId, call);
      } else if (e.type === "human.decided") {
        const p = e.payload as { requestId: string; state: string; byName: string };
        const call = byRequest.get(p.requestId);
        if (call) call.asked = { state: p.state, byName: p.byName };
      } else if (e.type === "tool.result") {
        const p = e.payload as {
          toolCallId: string;
          tool: string;
          ok: boolean;
          output?: { exitCode?: unknown };
          error?: { code: string; message: string };
        };
        const call = byCall.get(p.toolCallId);
        // A shell command that ran and exited non-zero failed too.
        const exit = p.ok && p.tool === "shell" && typeof p.output?.exitCode === "number" ? p.output.exitCode : 0;
        if (call)
          Object.assign(call, {
            ok: p.ok && exit === 0,
            ...(p.error ? { error: `${p.error.code}: ${p.error.message}` } : exit ? { error: `exit ${exit}` } : {}),
          });
      }
    }
  }
  const steps = [...inherited, ...[...own.values()].filter((s) => !inherited.some((i) => i.step === s.step))].sort(
    (a, b) => a.step - b.step,
  );
  for (const s of steps)
    s.fingerprint = crypto
      .createHash("sha256")
      .update(JSON.stringify([s.agent, s.text, s.toolCalls.map((c) => [c.tool, c.args, c.ok])]))
      .digest("hex");
  return steps;
}

export const CompareInput = z
  .object({ a: z.string().trim().min(1, "a is the first run's id"), b: z.string().trim().min(1, "b is the second run's id") })
  .strict();

/** Two runs side by side: their steps aligned by number, the first step where they part, and their totals. */
export async function compareRuns(k: Pick<RunServiceDeps, "db" | "store">, actor: Actor, raw: z.input<typeof CompareInput>) {
  const input = CompareInput.parse(raw);
  const [a, b] = await Promise.all([getRun(k.db, input.a, actor), getRun(k.db, input.b, actor)]);
  const [stepsA, stepsB] = await Promise.all([stepsOf(k, a.id, actor), stepsOf(k, b.id, actor)]);
  const byStepB = new Map(stepsB.map((s) => [s.step, s]));
  const numbers = [...new Set([...stepsA.map((s) => s.step), ...stepsB.map((s) => s.step)])].sort((x, y) => x - y);
  const byStepA = new Map(stepsA.map((s) => [s.step, s]));
  const rows = numbers.map((step) => {
    const left = byStepA.get(step) ?? null;
    const right = byStepB.get(step) ?? null;
    return { step, a: left, b: right, same: !!left && !!right && left.fingerprint === right.fingerprint };
  });
  const firstDivergence = rows.find((r) => !r.same)?.step ?? null;
  const totals = (r: typeof a) => ({
    id: r.id,
    goal: r.goal,
    agentName: r.agentName,
    agentVersion: r.agentVersion,
    model: r.model,
    status: r.status,
    steps: r.stepCount,
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    costUsd: r.costUsd,
    durationMs: r.durationMs,
    errorCode: r.errorCode,
    errorMessage: r.errorMessage,
    parentRunId: r.parentRunId,
    lineage: r.lineage,
  });
  return { a: totals(a), b: totals(b), rows, firstDivergence };
}
