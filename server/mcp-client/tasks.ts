// Rein's long calls as MCP tasks (docs/mcp.md#tasks): a 2026-07-28 server that
// offers the tasks extension (io.modelcontextprotocol/tasks) may answer any
// call with a task instead of its result; a 2025-11-25 server with the `tasks`
// capability runs a call as a task when Rein asks (for a tool whose
// execution.taskSupport allows it). Rein follows the task with tasks/get at
// the pace the server asks for (within bounds), hands its status messages to
// the call's progress, sends tasks/cancel when the call is aborted, and takes
// the result. Everything the server sends is hostile input: the task id is a
// bounded string, status messages are cut, and the polls are counted.
import { z } from "zod";
import { MAX_CONTENT_ITEMS } from "./limits";
import type { RawProgress } from "./raw";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** Polling is never faster or slower than this, whatever the server asks. */
export const MIN_POLL_MS = 250;
export const MAX_POLL_MS = 5_000;
/** The pace when the server names none. */
export const DEFAULT_POLL_MS = 1_000;
export const MAX_TASK_ID_CHARS = 200;
/** The most of a status message that reaches the call's progress. */
export const MAX_STATUS_CHARS = 500;
const MAX_ERROR_CHARS = 1_000;
/** How long Rein waits for the server to take a tasks/cancel. */
const CANCEL_WAIT_MS = 5_000;

/** What a tool says of tasks (`execution.taskSupport`); a tool that says nothing is "forbidden". */
export type TaskSupport = "forbidden" | "optional" | "required";

export function taskSupportOf(tool: { execution?: unknown }): TaskSupport {
  const support = (tool.execution as { taskSupport?: unknown } | undefined)?.taskSupport;
  return support === "optional" || support === "required" ? support : "forbidden";
}

/** The server's task ended in failure, or the server cancelled it: the call fails with the server's words. */
export class McpTaskFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = "McpTaskFailed";
  }
}

/** The tool runs only as a task, and Rein cannot call it so on this server. */
export class McpTaskUnsupported extends Error {
  constructor(message: string) {
    super(message);
    this.name = "McpTaskUnsupported";
  }
}

/** The task asked a person for something; Rein does not answer a task's questions yet, so it was cancelled. */
export class McpTaskNeedsInput extends Error {
  constructor(message: string) {
    super(message);
    this.name = "McpTaskNeedsInput";
  }
}

/** One request to the server beside the SDK (raw.ts), with the envelope that says Rein takes tasks. */
export type SendRequest = (
  method: string,
  params: Record<string, unknown>,
  signal: AbortSignal,
  onProgress?: (p: RawProgress) => void,
) => Promise<Record<string, unknown>>;

const TaskId = z.string().min(1).max(MAX_TASK_ID_CHARS);
const Status = z.enum(["working", "input_required", "completed", "failed", "cancelled"]);
/** A task as 2026-07-28 sends it: the result (or the error) inline once it ends. */
const Task = z.object({
  taskId: TaskId,
  status: Status,
  statusMessage: z.unknown().optional(),
  pollIntervalMs: z.unknown().optional(),
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.unknown().optional(),
});
type Task = z.infer<typeof Task>;
/** A task as 2025-11-25 sends it: `pollInterval`, and the result fetched with tasks/result. */
const LegacyTask = z.object({
  taskId: TaskId,
  status: Status,
  statusMessage: z.unknown().optional(),
  pollInterval: z.unknown().optional(),
});

/** What differs between the two revisions' tasks. */
export interface TaskDialect {
  /** The revision's name, for messages. */
  revision: string;
  /** tools/call's params, asking for a task where the revision wants that asked. */
  callParams(name: string, args: Record<string, unknown>): Record<string, unknown>;
  /** tools/call's answer: a task, the result itself, or questions first. */
  firstAnswer(answer: Record<string, unknown>, name: string): { kind: "task"; task: Task } | TaskOutcome;
  /** A tasks/get answer, in one shape. */
  parse(answer: Record<string, unknown>, what: string): Task;
  /** A completed task's result. */
  result(task: Task, call: TaskCall): Promise<TaskToolResult>;
}

/** 2026-07-28: every call may become a task once Rein declares the extension (the envelope does that). */
export const MODERN_TASKS: TaskDialect = {
  revision: "2026-07-28",
  callParams: (name, args) => ({ name, arguments: args }),
  firstAnswer(answer, name) {
    if (answer.resultType === "input_required") return { kind: "plain" };
    if (answer.resultType === "task") return { kind: "task", task: parseTask(answer, name) };
    if (answer.resultType !== "complete") throw new Error(`the server answered ${name} with a result of an unknown type`);
    return { kind: "result", result: toolResultOf(answer, name) };
  },
  parse: parseTask,
  result: async (task, call) => toolResultOf(task.result, call.name),
};

/** 2025-11-25: Rein asks for a task with `task` in the call's params; the result is fetched with tasks/result. */
export const LEGACY_TASKS: TaskDialect = {
  revision: "2025-11-25",
  callParams: (name, args) => ({ name, arguments: args, task: {} }),
  firstAnswer(answer, name) {
    if (answer.task === undefined) return { kind: "result", result: toolResultOf(answer, name) };
    return { kind: "task", task: parseLegacyTask(answer.task, name) };
  },
  parse: parseLegacyTask,
  async result(task, call) {
    return toolResultOf(await call.send("tasks/result", { taskId: task.taskId }, call.signal), call.name);
  },
};

/** A task's result, as a tool result: what resultForAgent reads, bounded like a plain answer. */
const ToolResult = z.object({
  content: z.array(z.unknown()).max(MAX_CONTENT_ITEMS).default([]),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
});
export type TaskToolResult = z.infer<typeof ToolResult>;

export interface TaskCall {
  dialect: TaskDialect;
  send: SendRequest;
  name: string;
  args: Record<string, unknown>;
  signal: AbortSignal;
  /** The call's hard cap: the polls are bounded by it too. */
  maxMs: number;
  /** Each look at a working task: its status message (cut) and how many looks so far. */
  onStatus(message: string | undefined, polls: number): void;
  /** Progress the server reports while it answers the call itself (before any task). */
  onProgress(p: RawProgress): void;
}

/** What a call made as a task came to: its result, or "plain" when the server asks first (the SDK's path answers). */
export type TaskOutcome = { kind: "result"; result: TaskToolResult } | { kind: "plain" };

function parseTask(answer: unknown, what: string): Task {
  const task = Task.safeParse(answer);
  if (!task.success) throw new Error(`the server's answer to ${what} is not a task Rein can follow`);
  return task.data;
}

function parseLegacyTask(answer: unknown, what: string): Task {
  const task = LegacyTask.safeParse(answer);
  if (!task.success) throw new Error(`the server's answer to ${what} is not a task Rein can follow`);
  const { pollInterval, ...rest } = task.data;
  return { ...rest, pollIntervalMs: pollInterval };
}

function toolResultOf(result: unknown, what: string): TaskToolResult {
  const parsed = ToolResult.safeParse(result);
  if (!parsed.success) throw new Error(`the server's result for ${what} is not a tool result`);
  return parsed.data;
}

export function statusMessageOf(task: Pick<Task, "statusMessage">): string | undefined {
  return typeof task.statusMessage === "string" ? task.statusMessage.slice(0, MAX_STATUS_CHARS) : undefined;
}

/** The wait before the next look: the server's pollIntervalMs, kept between MIN_POLL_MS and MAX_POLL_MS. */
export function pollDelay(task: Pick<Task, "pollIntervalMs">): number {
  const asked = typeof task.pollIntervalMs === "number" && Number.isFinite(task.pollIntervalMs) ? task.pollIntervalMs : DEFAULT_POLL_MS;
  return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, asked));
}

/** The most looks one call takes: its hard cap at the fastest pace, and one more. */
export function maxPolls(maxMs: number): number {
  return Math.ceil(maxMs / MIN_POLL_MS) + 1;
}

function failureOf(task: Task): string {
  const error = task.error as { message?: unknown } | undefined;
  const words = typeof error?.message === "string" && error.message ? error.message : (statusMessageOf(task) ?? "no reason given");
  return words.slice(0, MAX_ERROR_CHARS);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      signal.removeEventListener("abort", stop);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  });
}

/** Tells the server to stop the task; waits a little for it to take that, and never fails the caller. */
async function cancelTask(send: SendRequest, taskId: string): Promise<void> {
  await send("tasks/cancel", { taskId }, AbortSignal.timeout(CANCEL_WAIT_MS)).catch(() => {});
}

/** Follows a task until it ends; its result, or the error it ended with. */
async function follow(call: TaskCall, first: Task): Promise<TaskToolResult> {
  let task = first;
  const limit = maxPolls(call.maxMs);
  for (let polls = 0; ; polls++) {
    switch (task.status) {
      case "completed":
        return call.dialect.result(task, call);
      case "failed":
        throw new McpTaskFailed(failureOf(task));
      case "cancelled":
        throw new McpTaskFailed(`the server cancelled the task: ${failureOf(task)}`);
      case "input_required":
        await cancelTask(call.send, task.taskId);
        throw new McpTaskNeedsInput(
          `the task asked for input, and Rein does not answer a task's questions yet; the task was cancelled (${statusMessageOf(task) ?? "no message"})`,
        );
      case "working":
        break;
    }
    call.onStatus(statusMessageOf(task), polls);
    if (polls >= limit) throw new Error(`the task was still working after ${limit} looks`);
    await sleep(pollDelay(task), call.signal);
    const next = call.dialect.parse(await call.send("tasks/get", { taskId: task.taskId }, call.signal), "tasks/get");
    if (next.taskId !== task.taskId) throw new Error("the server answered tasks/get about another task");
    task = next;
  }
}

/**
 * Makes the call as a task. The server answers with the result, with a task
 * Rein follows to its end, or (2026-07-28) with questions: then "plain", and
 * the call is made again the SDK's way, which asks the person.
 */
export async function callAsTask(call: TaskCall): Promise<TaskOutcome> {
  const answer = await call.send("tools/call", call.dialect.callParams(call.name, call.args), call.signal, call.onProgress);
  const first = call.dialect.firstAnswer(answer, call.name);
  if (first.kind !== "task") return first;
  const { task } = first;
  try {
    return { kind: "result", result: await follow(call, task) };
  } catch (err) {
    // Aborted (the run was cancelled, or the call ran out of time) or given up: the server is told to stop.
    if (!(err instanceof McpTaskFailed || err instanceof McpTaskNeedsInput)) await cancelTask(call.send, task.taskId);
    throw err;
  }
}
