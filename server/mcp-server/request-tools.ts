// The human-request tools (docs/mcp-server.md#human-requests,
// over MCP): what the caller may see, and answers through the broker with the
// same role checks as the Inbox and REST; the audit log names the channel
// "mcp".
import { z } from "zod";
import { DECISIONS, OPEN_STATES, REQUEST_STATES, deciderOf, getForActor, listForActor, type RequestState } from "@/server/hitl";
import { defineTool } from "./tool";
import { requestView } from "./views";

const STATE_FILTERS = ["open", "all", ...REQUEST_STATES.map((s) => s.toLowerCase() as Lowercase<RequestState>)] as const;

const ListRequestsInput = {
  runId: z.string().trim().min(1).max(200).optional().describe("Only this run's requests"),
  state: z.enum(STATE_FILTERS).optional().describe('"open" (the default: waiting for a person), "all", or one state'),
  limit: z.number().int().min(1).max(200).optional().describe("At most this many, newest first (default 50)"),
};

const AnswerInput = {
  requestId: z
    .string()
    .trim()
    .min(1, "requestId is required")
    .max(200)
    .describe("The request's id, from get_run, wait_for_run or list_human_requests"),
  decision: z
    .enum(DECISIONS)
    .describe("approve or reject (an approve request), veto or approve (a veto request), choose (with optionId), provide (with value)"),
  optionId: z.string().min(1).max(200).optional().describe("For choose: the id of one of the request's options"),
  value: z.unknown().optional().describe("For provide: a value matching the request's schema"),
  comment: z.string().max(4_000).optional().describe("Why; the run and the audit log keep it"),
  editedArguments: z.record(z.string(), z.unknown()).optional().describe("For approving a tool call: the arguments to run it with instead"),
};

function statesOf(filter: (typeof STATE_FILTERS)[number] | undefined): RequestState[] | undefined {
  if (filter === undefined || filter === "open") return [...OPEN_STATES];
  if (filter === "all") return undefined;
  return [filter.toUpperCase() as RequestState];
}

export const listHumanRequestsTool = defineTool({
  name: "list_human_requests",
  title: "List human requests",
  description:
    "Lists the human requests you may see (of your teams' runs and runs you started): approvals, choices, values and vetoes Rein's runs wait on. " +
    "Each says what is asked and how to answer it with answer_human_request.",
  minRole: "viewer",
  input: ListRequestsInput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    const page = await listForActor(ctx.hitl.broker, ctx.actor, {
      state: statesOf(args.state),
      runId: args.runId,
      limit: args.limit ?? 50,
    });
    return { result: { requests: page.items.map((r) => requestView(ctx, r)), more: page.nextCursor !== null } };
  },
});

export const answerHumanRequestTool = defineTool({
  name: "answer_human_request",
  title: "Answer a human request",
  description:
    "Answers a human request as you, like the Inbox does: the run goes on with your answer. Needs the role the request names (approver for most approvals) " +
    "in the run's team; a person may not approve some requests of a run they started. An answer cannot be taken back.",
  minRole: "operator",
  input: AnswerInput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    const { broker } = ctx.hitl;
    const { requestId, ...decision } = args;
    await getForActor(broker, ctx.actor, requestId);
    const decided = await broker.decide(requestId, deciderOf(ctx.actor), decision, "mcp");
    return {
      text: `The request is ${decided.state.toLowerCase()}; the run goes on.`,
      result: { request: requestView(ctx, decided) },
      runId: decided.runId,
      detail: { decision: args.decision },
    };
  },
});

export const REQUEST_TOOLS = [listHumanRequestsTool, answerHumanRequestTool];
