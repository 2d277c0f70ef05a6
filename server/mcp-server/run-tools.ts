// The run tools (docs/mcp-server.md#tools, over MCP): the same services, roles and
// team checks as REST /api/v1/agents and /api/v1/runs.
import type { InputRequiredResult } from "@modelcontextprotocol/server";
import { z } from "zod";
import { listAgents } from "@/server/agents";
import { createRun, getRun, getRunAs, type RunState } from "@/server/kernel";
import { askOpenRequests, openQuestions } from "./ask";
import type { ToolContext } from "./context";
import { McpToolError } from "./errors";
import { askInBand, clientCanElicit, isModernCall, takeAnswers } from "./input-required";
import { clientTakesTasks, createdTask } from "./tasks";
import { defineTool, type ToolExtra } from "./tool";
import { runUrl, runView } from "./views";
import { waitForRun, type RunProgress, type WaitOutcome } from "./wait";

export const WAIT_DEFAULT_SEC = 30;
export const WAIT_MAX_SEC = 120;

const RunId = z.string().trim().min(1, "runId is required").max(200).describe("The run's id, as start_run or get_run gave it");

const ListAgentsInput = {};

const StartRunInput = {
  agent: z.string().trim().min(1, "agent is required").max(200).describe("The agent's name, as list_agents gives it"),
  goal: z.string().trim().min(1, "goal is required").max(20_000).describe("What the run should achieve, in plain words"),
  model: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('"<provider>/<model id>", or "auto" for the routing rules; leave it out for the agent\'s own model'),
  team: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .optional()
    .describe("The id of the team the run belongs to (list_agents shows teams); leave it out for your usual team"),
};

const GetRunInput = { runId: RunId };

const WaitForRunInput = {
  runId: RunId,
  timeoutSec: z
    .number()
    .int()
    .min(1)
    .max(WAIT_MAX_SEC, `timeoutSec is at most ${WAIT_MAX_SEC}`)
    .optional()
    .describe(`How long to wait at most, in seconds (default ${WAIT_DEFAULT_SEC}, at most ${WAIT_MAX_SEC}); call again to keep waiting`),
};

const CancelRunInput = {
  runId: RunId,
  reason: z.string().trim().max(2_000).optional().describe("Why, for the audit log"),
};

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

export const listAgentsTool = defineTool({
  name: "list_agents",
  title: "List agents",
  description:
    "Lists the Rein agents you can see and run: name, what each does, its model and its team. Pass an agent's name to start_run.",
  minRole: "viewer",
  input: ListAgentsInput,
  annotations: READ_ONLY,
  async run(_args, ctx) {
    const agents = await listAgents(ctx.db, ctx.actor);
    return {
      result: {
        agents: agents.map((a) => ({
          name: a.name,
          description: a.description,
          model: a.model,
          team: a.team,
          builtIn: a.builtIn,
          tools: a.toolCount,
        })),
      },
    };
  },
});

export const startRunTool = defineTool({
  name: "start_run",
  title: "Start a run",
  description:
    "Starts a Rein run of an agent on a goal and returns at once with the run's id, state and page. The run goes on in Rein; " +
    "follow it with wait_for_run or get_run. Needs the operator role in the run's team.",
  minRole: "operator",
  input: StartRunInput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx, extra) {
    const run = await createRun(ctx.kernel, { agent: args.agent, goal: args.goal, model: args.model, teamId: args.team }, ctx.actor);
    // A 2026-07-28 client that takes tasks gets the run as one: it polls tasks/get instead of calling wait_for_run.
    const task = isModernCall(extra) && clientTakesTasks(extra) ? await createdTask(ctx, run.id, extra) : undefined;
    return {
      ...(task ? { raw: task } : {}),
      text: `Started run ${run.id} of ${run.agentName}; it is ${run.status}. Wait for it with wait_for_run.`,
      result: { runId: run.id, state: run.status, agent: run.agentName, team: run.team, model: run.model, url: runUrl(ctx, run.id) },
      runId: run.id,
      detail: { agent: run.agentName },
    };
  },
});

export const getRunTool = defineTool({
  name: "get_run",
  title: "Get a run",
  description:
    "Shows a run: its state (queued, running, paused, waiting_human, succeeded, failed, canceled), step count, cost and tokens, " +
    "a summary of its latest events, and the human requests it waits on (answer them with answer_human_request).",
  minRole: "viewer",
  input: GetRunInput,
  annotations: READ_ONLY,
  async run(args, ctx) {
    const run = await runView(ctx, args.runId);
    return { result: run };
  },
});

const WAIT_SAYS: Record<WaitOutcome, (state: RunState) => string> = {
  ended: (state) => `The run ended: ${state}.`,
  waiting_human: () =>
    "The run waits for a person: answer its open requests with answer_human_request (or in Rein's Inbox), then wait again.",
  timeout: (state) =>
    `The run is still ${state === "waiting_human" ? "waiting for a person" : state}; call wait_for_run again to keep waiting.`,
  cancelled: (state) => `Stopped waiting (cancelled); the run is ${state}.`,
};

async function reportProgress(extra: ToolExtra, p: RunProgress) {
  const progressToken = extra.mcpReq._meta?.progressToken;
  if (progressToken === undefined) return;
  await extra.mcpReq
    .notify({
      method: "notifications/progress",
      params: { progressToken, progress: p.stepCount, total: p.maxSteps, message: `${p.state}, ${p.stepCount} step(s)` },
    })
    .catch(() => {});
}

export const waitForRunTool = defineTool({
  name: "wait_for_run",
  title: "Wait for a run",
  description:
    `Waits until a run ends, or stops to wait for a person (waiting_human), or timeoutSec passes (default ${WAIT_DEFAULT_SEC} s, at most ${WAIT_MAX_SEC} s), ` +
    "then returns the run as get_run does. Sends progress notifications with the step count while it waits. If it says the run is still going, call it again.",
  minRole: "viewer",
  input: WaitForRunInput,
  annotations: READ_ONLY,
  async run(args, ctx, extra) {
    await getRun(ctx.db, args.runId, ctx.actor);
    const modern = isModernCall(extra);
    // 2026-07-28: a call made again with its user's answers to the questions of the round before.
    let elicited = modern ? await takeAnswers(ctx, args.runId, extra) : 0;
    const call = ctx.inflight.track(ctx.actor.userId, extra.mcpReq.id, extra.mcpReq.signal);
    const deadline = Date.now() + (args.timeoutSec ?? WAIT_DEFAULT_SEC) * 1000;
    let outcome: WaitOutcome;
    let asking: InputRequiredResult | undefined;
    // Progress only ever grows, across the waits before and after an answer.
    let reported = -1;
    const onProgress = (p: RunProgress) => {
      if (p.stepCount <= reported) return;
      reported = p.stepCount;
      return reportProgress(extra, p);
    };
    try {
      for (;;) {
        outcome = await waitForRun({ db: ctx.db, bus: ctx.kernel.bus }, args.runId, {
          timeoutMs: Math.max(0, deadline - Date.now()),
          signal: call.signal,
          onProgress,
        });
        // A client that can ask its user gets the run's requests there; once answered, the run goes on and so does the wait.
        if (outcome !== "waiting_human") break;
        if (modern) {
          const questions = clientCanElicit(extra) ? await openQuestions(ctx, args.runId) : [];
          if (questions.length) asking = await askInBand(ctx, args.runId, questions);
          break;
        }
        const answered = await askOpenRequests(ctx, args.runId, extra.mcpReq.id, call.signal, deadline);
        if (answered === 0) break;
        elicited += answered;
      }
    } finally {
      call.release();
    }
    const run = await runView(ctx, args.runId);
    return {
      text: WAIT_SAYS[outcome](run.state),
      result: { outcome, run, ...(elicited ? { answeredByYou: elicited } : {}) },
      detail: { outcome, ...(elicited ? { elicited } : {}), ...(asking ? { asked: Object.keys(asking.inputRequests ?? {}).length } : {}) },
      ...(asking ? { raw: asking } : {}),
    };
  },
});

export const cancelRunTool = defineTool({
  name: "cancel_run",
  title: "Cancel a run",
  description:
    "Cancels a run that has not ended; its open human requests are cancelled with it. Needs the operator role in the run's team. Cannot be undone.",
  minRole: "operator",
  input: CancelRunInput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    await getRunAs(ctx.db, args.runId, ctx.actor, "operator", "Cancelling a run");
    const done = await ctx.kernel.pool.cancel(args.runId, { id: ctx.actor.userId, name: ctx.actor.name });
    if (!done.ok) throw new McpToolError("CONFLICT", done.reason);
    const run = await getRun(ctx.db, args.runId, ctx.actor);
    return {
      text: `Run ${run.id} is being cancelled.`,
      result: { runId: run.id, state: run.status, url: runUrl(ctx, run.id) },
      detail: args.reason ? { reason: args.reason } : {},
    };
  },
});

export const RUN_TOOLS = [listAgentsTool, startRunTool, getRunTool, waitForRunTool, cancelRunTool];
