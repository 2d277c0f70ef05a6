// The A2A methods of one exposed agent, for one caller (docs/a2a.md#methods):
// a new message starts a run of the agent with the message's text as its goal,
// a message on a task that waits for input answers its open human request
// through the broker, and get, cancel and the streams read and act on the run.
// Each call checks the caller's roles and team as REST and /mcp do.
import type { A2ARequestHandler, ServerCallContext } from "@a2a-js/sdk/server";
import {
  TaskState,
  type AgentCard,
  type CancelTaskRequest,
  type GetTaskRequest,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
} from "@a2a-js/sdk";
import { ExtendedAgentCardNotConfiguredError, PushNotificationNotSupportedError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import type { Services } from "@/server/app";
import { DECISIONS, DecisionInput, deciderOf } from "@/server/hitl";
import { gateRefusal, type Actor } from "@/server/identity";
import { RunNotFoundError, createRun, getRun, getRunAs } from "@/server/kernel";
import type { ExposedAgent } from "./exposure";
import { a2aRefusal, asA2aError, notCancelable, taskNotFound } from "./errors";
import { runWakeups } from "./tail";
import { FINAL_TASK_STATES, openRequestsOf, taskOf, type RunForTask, type TaskViewDeps } from "./task-view";

/** Bounds of a message (docs/a2a.md#limits); the body's size bounds the rest. */
export const MAX_PARTS = 16;
export const MAX_MESSAGE_TEXT = 20_000;
/** How long a blocking send waits for the task to end or need input before it answers with the task as it is. */
export const BLOCKING_WAIT_MS = 60_000;
/** How long a stream follows a task; subscribe again to go on. */
export const STREAM_MS = 10 * 60_000;

const WORDS = new Set<string>(DECISIONS.filter((d) => d !== "choose" && d !== "provide"));

export interface TaskContext {
  services: Services;
  actor: Actor;
  exposed: ExposedAgent;
  /** Ends waits and streams when the client goes away. */
  signal: AbortSignal;
  log: { error(message: string, err?: unknown): void };
}

const ended = (t: Task) => !!t.status && FINAL_TASK_STATES.includes(t.status.state);
const interrupted = (t: Task) => t.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED;

function textOf(message: Message): string {
  return message.parts
    .map((p) => (p.content?.$case === "text" ? p.content.value : ""))
    .join("\n")
    .trim();
}

function dataOf(message: Message): unknown {
  return message.parts.find((p) => p.content?.$case === "data")?.content?.value;
}

/** The message within bounds; an INVALID_INPUT refusal naming what is wrong otherwise. */
function checkedMessage(params: SendMessageRequest): Message {
  const message = params.message;
  if (!message) throw a2aRefusal("INVALID_INPUT", "params.message is required");
  if (!message.parts.length) throw a2aRefusal("INVALID_INPUT", "message.parts is empty: send the task as a text part");
  if (message.parts.length > MAX_PARTS) throw a2aRefusal("INVALID_INPUT", `message.parts has more than ${MAX_PARTS} parts`);
  for (const p of message.parts) {
    const kind = p.content?.$case;
    if (kind !== "text" && kind !== "data") throw a2aRefusal("INVALID_INPUT", "Rein takes text and data parts only, not files or URLs");
  }
  const text = message.parts.reduce((n, p) => n + (p.content?.$case === "text" ? p.content.value.length : 0), 0);
  if (text > MAX_MESSAGE_TEXT) throw a2aRefusal("INVALID_INPUT", `the message's text is longer than ${MAX_MESSAGE_TEXT} characters`);
  return message;
}

/** What a reply on an input-required task decides: a data part with the decision, or a text part that is one. */
function decisionOf(message: Message, request: { kind: string; options: Array<{ id: string }> | null }): DecisionInput {
  const data = dataOf(message);
  if (data !== undefined) {
    const parsed = DecisionInput.safeParse(data);
    if (!parsed.success)
      throw a2aRefusal("INVALID_INPUT", `the data part is not a decision: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
    return parsed.data;
  }
  const text = textOf(message);
  const [first = "", ...rest] = text.split(/\s+/);
  const word = first.toLowerCase().replace(/[.!,:;]+$/, "");
  const comment = rest.join(" ").slice(0, 4_000) || undefined;
  if (request.kind === "choose" && request.options?.some((o) => o.id === first))
    return { decision: "choose", optionId: first, ...(comment ? { comment } : {}) };
  if (WORDS.has(word)) return { decision: word as DecisionInput["decision"], ...(comment ? { comment } : {}) };
  throw a2aRefusal(
    "INVALID_INPUT",
    request.kind === "choose"
      ? `reply with one of the options' ids (${(request.options ?? []).map((o) => o.id).join(", ")})`
      : `reply with a decision word (${[...WORDS].join(", ")}) or a data part { "decision": … }`,
  );
}

export class ReinTaskHandler implements A2ARequestHandler {
  constructor(
    private readonly ctx: TaskContext,
    private readonly card: AgentCard,
  ) {}

  private get viewDeps(): TaskViewDeps {
    const { db, kernel } = this.ctx.services;
    const secrets = kernel.secrets;
    return { db, store: kernel.store, redact: secrets ? (t) => secrets.text(t) : (t) => t };
  }

  /** The run behind a task, when the caller may see it and it is a run of this agent. */
  private async runOf(taskId: string): Promise<RunForTask> {
    if (!taskId || taskId.length > 200) throw taskNotFound(taskId.slice(0, 200));
    // Only "not found" is a task that never was; a database that fails is an internal error, not an answer.
    const run = await getRun(this.ctx.services.db, taskId, this.ctx.actor).catch((err: unknown) => {
      if (err instanceof RunNotFoundError) return null;
      throw err;
    });
    if (!run || run.agentName !== this.ctx.exposed.agent) throw taskNotFound(taskId);
    return run;
  }

  /** The redactor learns every secret once per request (a stream re-reads the task many times). */
  private prepared: Promise<void> | null = null;

  private async taskOfRun(runId: string): Promise<Task> {
    this.prepared ??= this.ctx.services.kernel.secrets?.prepareAll() ?? Promise.resolve();
    await this.prepared;
    return taskOf(this.viewDeps, await this.runOf(runId), { agentCardId: this.ctx.exposed.id });
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw asA2aError(err, this.ctx.log);
    }
  }

  getAgentCard(): Promise<AgentCard> {
    return Promise.resolve(this.card);
  }

  getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    return Promise.reject(new ExtendedAgentCardNotConfiguredError("Rein's cards have no extended version"));
  }

  /** Starts a run, or answers the task's open request; the task's id either way. */
  private async accept(params: SendMessageRequest): Promise<string> {
    const message = checkedMessage(params);
    const { actor } = this.ctx;
    const refusal = gateRefusal(actor, "operator");
    if (refusal) throw a2aRefusal("FORBIDDEN", refusal);
    if (message.taskId) return this.answer(message);
    const goal = textOf(message);
    if (!goal) throw a2aRefusal("INVALID_INPUT", "the message has no text: its text is the run's goal");
    const run = await createRun(this.ctx.services.kernel, { agent: this.ctx.exposed.agent, goal }, actor);
    return run.id;
  }

  private async answer(message: Message): Promise<string> {
    const run = await this.runOf(message.taskId);
    if (["succeeded", "failed", "canceled"].includes(run.status))
      throw a2aRefusal("CONFLICT", `Task ${run.id} has ended; start a new task`);
    const open = await openRequestsOf(this.ctx.services.db, run.id);
    const asked = typeof message.metadata?.requestId === "string" ? message.metadata.requestId : undefined;
    const request = asked ? open.find((r) => r.id === asked) : open[0];
    if (!request) throw a2aRefusal("CONFLICT", `Task ${run.id} is not waiting for input`);
    await this.ctx.services.hitl.broker.decide(request.id, deciderOf(this.ctx.actor), decisionOf(message, request), "a2a");
    return run.id;
  }

  /** The task once it ended or needs input, or as it is when `waitMs` ran out. */
  private async settled(taskId: string, waitMs: number): Promise<Task> {
    const stop = AbortSignal.any([this.ctx.signal, AbortSignal.timeout(waitMs)]);
    let task = await this.taskOfRun(taskId);
    for await (const _ of runWakeups(this.ctx.services.kernel.bus, taskId, stop)) {
      task = await this.taskOfRun(taskId);
      if (ended(task) || interrupted(task)) break;
    }
    return task;
  }

  sendMessage(params: SendMessageRequest, _context?: ServerCallContext): Promise<Task> {
    return this.guard(async () => {
      const taskId = await this.accept(params);
      if (params.configuration?.returnImmediately) return this.taskOfRun(taskId);
      return this.settled(taskId, BLOCKING_WAIT_MS);
    });
  }

  /** The task, then its status and artifacts as the run goes, until it ends or needs input. */
  private async *follow(taskId: string): AsyncGenerator<StreamResponse> {
    const stop = AbortSignal.any([this.ctx.signal, AbortSignal.timeout(STREAM_MS)]);
    let last = "";
    let first = true;
    for await (const _ of runWakeups(this.ctx.services.kernel.bus, taskId, stop)) {
      const task = await this.guard(() => this.taskOfRun(taskId));
      if (first) {
        first = false;
        last = JSON.stringify(task.status?.state) + (task.status?.message?.messageId ?? "");
        yield { payload: { $case: "task", value: task } };
      } else {
        const now = JSON.stringify(task.status?.state) + (task.status?.message?.messageId ?? "");
        if (now === last) continue;
        last = now;
        for (const artifact of task.artifacts)
          yield {
            payload: {
              $case: "artifactUpdate",
              value: { taskId, contextId: task.contextId, artifact, append: false, lastChunk: true, metadata: undefined },
            },
          };
        yield {
          payload: { $case: "statusUpdate", value: { taskId, contextId: task.contextId, status: task.status, metadata: undefined } },
        };
      }
      if (ended(task) || interrupted(task)) return;
    }
  }

  async *sendMessageStream(params: SendMessageRequest, _context?: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const taskId = await this.guard(() => this.accept(params));
    yield* this.follow(taskId);
  }

  async *resubscribe(params: SubscribeToTaskRequest, _context?: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    await this.guard(() => this.runOf(params.id));
    yield* this.follow(params.id);
  }

  getTask(params: GetTaskRequest): Promise<Task> {
    return this.guard(() => this.taskOfRun(params.id));
  }

  cancelTask(params: CancelTaskRequest): Promise<Task> {
    return this.guard(async () => {
      const { db, kernel } = this.ctx.services;
      const { actor } = this.ctx;
      await this.runOf(params.id);
      await getRunAs(db, params.id, actor, "operator", "Cancelling a task");
      const done = await kernel.pool.cancel(params.id, { id: actor.userId, name: actor.name });
      if (!done.ok) throw notCancelable(done.reason);
      // A queued or waiting run is cancelled at once; a running one at its next step.
      return this.settled(params.id, 10_000);
    });
  }

  listTasks(): Promise<never> {
    return Promise.reject(new UnsupportedOperationError("Rein does not list tasks over A2A yet; get each task by its id"));
  }

  createTaskPushNotificationConfig(): Promise<never> {
    return Promise.reject(new PushNotificationNotSupportedError("Rein sends no push notifications over A2A"));
  }

  getTaskPushNotificationConfig(): Promise<never> {
    return this.createTaskPushNotificationConfig();
  }

  listTaskPushNotificationConfigs(): Promise<never> {
    return this.createTaskPushNotificationConfig();
  }

  deleteTaskPushNotificationConfig(): Promise<never> {
    return this.createTaskPushNotificationConfig();
  }
}
