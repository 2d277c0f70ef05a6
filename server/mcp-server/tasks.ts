// Runs as MCP tasks (the tasks extension of 2026-07-28,
// io.modelcontextprotocol/tasks; docs/mcp-server.md#runs-as-tasks): a client
// that declares the extension gets start_run's run back as a task it polls
// with tasks/get, answers with tasks/update and cancels with tasks/cancel.
// The task id is the run's id, so a task outlives any Rein process; every
// tasks/* call is made as the token's person, with the same team checks as
// get_run, answer_human_request and cancel_run.
import { z } from "zod";
import { CLIENT_CAPABILITIES_META_KEY, ProtocolError, type McpServer, type ServerContext } from "@modelcontextprotocol/server";
import { recordAudit } from "@/server/audit";
import { DomainError, INTERNAL_MESSAGE } from "@/server/errors";
import { gateRefusal } from "@/server/identity";
import { RunNotFoundError, getRun, getRunAs } from "@/server/kernel";
import { decide, openQuestions } from "./ask";
import type { ToolContext } from "./context";
import { ElicitAnswer } from "./elicitation";
import { clientCanElicit } from "./input-required";
import { runView } from "./views";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** How often a client is asked to poll a run's task. */
export const TASK_POLL_MS = 1_000;
/** JSON-RPC "invalid params": the answer to a task id the caller cannot see (as to one that never was). */
const INVALID_PARAMS = -32_602;
const INTERNAL_ERROR = -32_603;

/** Whether the client said, with this request, that it takes tasks. */
export function clientTakesTasks(extra: ServerContext): boolean {
  const capabilities = (extra.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
    { extensions?: Record<string, unknown> } | undefined;
  return !!capabilities?.extensions && typeof capabilities.extensions === "object" && TASKS_EXTENSION in capabilities.extensions;
}

const TaskId = z.string().trim().min(1).max(200);
const GetParams = z.object({ taskId: TaskId, requestState: z.string().max(16_384).optional() }).passthrough();
const InputResponses = z.record(z.string().max(200), z.unknown());
// The SDK lifts inputResponses out of the params it hands over (into the request's context); read from either.
const UpdateParams = GetParams.extend({ inputResponses: InputResponses.optional() });
const TaskResult = z.object({}).passthrough();

type Task = Record<string, unknown> & { taskId: string; status: string };

/** The run as a task, in the shape tasks/get answers (the caller may see it; RunNotFoundError otherwise). */
export async function taskOf(ctx: ToolContext, runId: string, extra: ServerContext): Promise<Task> {
  const run = await getRun(ctx.db, runId, ctx.actor);
  const row = await ctx.db.run.findUniqueOrThrow({ where: { id: run.id }, select: { maxSteps: true, updatedAt: true } });
  const base = {
    taskId: run.id,
    createdAt: new Date(run.createdAt).toISOString(),
    lastUpdatedAt: row.updatedAt.toISOString(),
    ttlMs: null,
    pollIntervalMs: TASK_POLL_MS,
  };
  switch (run.status) {
    case "succeeded":
    case "failed": {
      // A run that failed is a tool's failure, not the protocol's: the task completed, with isError.
      const view = await runView(ctx, run.id);
      const text = run.status === "succeeded" ? `The run succeeded.` : `The run failed: ${view.error?.message ?? view.statusReason ?? ""}`;
      return {
        ...base,
        status: "completed",
        statusMessage: text,
        result: {
          resultType: "complete",
          content: [{ type: "text", text: `${text}\n\n${JSON.stringify(view, null, 2)}` }],
          structuredContent: view,
          ...(run.status === "failed" ? { isError: true } : {}),
        },
      };
    }
    case "canceled":
      return { ...base, status: "cancelled", statusMessage: "The run was cancelled." };
    case "waiting_human": {
      const questions = clientCanElicit(extra) ? await openQuestions(ctx, run.id) : [];
      if (questions.length) {
        return {
          ...base,
          status: "input_required",
          statusMessage: "The run waits for your answer.",
          inputRequests: Object.fromEntries(
            questions.map((q) => [
              q.request.id,
              { method: "elicitation/create", params: { mode: "form", message: q.form.message, requestedSchema: q.form.requestedSchema } },
            ]),
          ),
        };
      }
      return { ...base, status: "working", statusMessage: "The run waits for a person: in Rein's Inbox, or with answer_human_request." };
    }
    default:
      return {
        ...base,
        status: "working",
        statusMessage: `The run is ${run.status}: step ${run.stepCount} of at most ${row.maxSteps}.`,
      };
  }
}

/** start_run's answer to a client that takes tasks: the run's task, as it is now. */
export async function createdTask(ctx: ToolContext, runId: string, extra: ServerContext): Promise<Record<string, unknown>> {
  const { result: _result, inputRequests: _inputRequests, ...task } = await taskOf(ctx, runId, extra);
  return { resultType: "task", ...task };
}

async function audit(ctx: ToolContext, method: string, runId: string | null, detail: Record<string, unknown>) {
  try {
    await recordAudit(ctx.db, {
      kind: "mcp.tool_call",
      actorId: ctx.actor.userId,
      actorName: ctx.actor.name || ctx.actor.email,
      channel: "mcp",
      subject: method,
      runId,
      requestId: null,
      detail,
    });
  } catch (err) {
    ctx.log.error(`could not audit the MCP ${method} of ${runId}`, err);
  }
}

/** A run the caller cannot see is answered as a task that never was. */
async function visible<T>(work: () => Promise<T>): Promise<T | null> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof RunNotFoundError) return null;
    throw err;
  }
}

/**
 * A tasks/* handler whose failures a client may read: refusals and protocol
 * errors as they are, anything else logged and answered as an internal error
 * (no query or stack reaches the client).
 */
function guarded<P>(ctx: ToolContext, method: string, handle: (params: P, extra: ServerContext) => Promise<Record<string, unknown>>) {
  return (async (params: P, extra: ServerContext) => {
    try {
      return await handle(params, extra);
    } catch (err) {
      if (err instanceof ProtocolError) throw err;
      if (err instanceof DomainError) throw new ProtocolError(INVALID_PARAMS, `${err.code}: ${err.message}`);
      ctx.log.error(`the MCP ${method} failed`, err);
      throw new ProtocolError(INTERNAL_ERROR, INTERNAL_MESSAGE);
    }
  }) as never;
}

export function registerTaskMethods(server: McpServer, ctx: ToolContext): void {
  server.server.setRequestHandler(
    "tasks/get" as never,
    { params: GetParams, result: TaskResult } as never,
    (async (params: z.infer<typeof GetParams>, extra: ServerContext) => {
      const task = await visible(() => taskOf(ctx, params.taskId, extra));
      if (!task) throw new ProtocolError(INVALID_PARAMS, `No task ${params.taskId}`);
      return task;
    }) as never,
  );

  // tasks/update and tasks/cancel are acknowledged whatever the id (the extension says so); only what the caller may do is done.
  server.server.setRequestHandler(
    "tasks/update" as never,
    { params: UpdateParams, result: TaskResult } as never,
    (async (params: z.infer<typeof UpdateParams>, extra: ServerContext) => {
      const responses = InputResponses.safeParse(params.inputResponses ?? extra.mcpReq.inputResponses ?? {});
      const run = await visible(() => getRun(ctx.db, params.taskId, ctx.actor));
      if (!responses.success || !run || run.status !== "waiting_human") return {};
      let answered = 0;
      for (const question of await openQuestions(ctx, run.id)) {
        const answer = ElicitAnswer.safeParse(responses.data[question.request.id]);
        if (!answer.success || answer.data.action !== "accept" || !answer.data.content) continue;
        const outcome = await decide(ctx, question, answer.data.content);
        if (outcome === "gone") break;
        if (outcome === "decided") answered++;
      }
      await audit(ctx, "tasks/update", run.id, { ok: true, answered });
      return {};
    }) as never,
  );

  server.server.setRequestHandler(
    "tasks/cancel" as never,
    { params: GetParams, result: TaskResult } as never,
    (async (params: z.infer<typeof GetParams>) => {
      if (gateRefusal(ctx.actor, "operator")) return {};
      let run: Awaited<ReturnType<typeof getRunAs>>;
      try {
        run = await getRunAs(ctx.db, params.taskId, ctx.actor, "operator", "Cancelling a run");
      } catch (err) {
        if (err instanceof DomainError) return {}; // not found, or not the caller's to cancel
        throw err;
      }
      const done = await ctx.kernel.pool.cancel(run.id, { id: ctx.actor.userId, name: ctx.actor.name });
      await audit(ctx, "tasks/cancel", run.id, done.ok ? { ok: true } : { ok: false, reason: done.reason });
      return {};
    }) as never,
  );
}
