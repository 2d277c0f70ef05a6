// REST API v1 for programs (docs/api.md): bearer API tokens or a session.
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { authenticateRequest, gateRefusal, requestOrigin } from "@/server/identity";
import {
  CreateRunInput,
  ListRunsInput,
  RerunInput,
  RetryInput,
  SendMessageInput,
  createRun,
  exportScenario,
  getRun,
  getRunAs,
  listEvents,
  listRuns,
  rerunRun,
  retryRun,
  runLineage,
  sendMessage,
  forkRun,
  compareRuns,
  ForkInput,
  CompareInput,
  type ControlResult,
} from "@/server/kernel";
import { NO_WORKSPACE_MESSAGE, workspaceFiles } from "@/server/tools";
import { DomainError } from "@/server/errors";
import { listRunSpans } from "@/server/telemetry";
import type { Services } from "@/server/app";
import { defineRoute, fileResponse, type Route } from "./contract";
import { OPENAPI_PATH, openApiDocument } from "./document";
import { sendError, sendJson, sendStream, StreamBody } from "./http";
import { Instant, JsonValue, Ok, Run, RunEvent, RunState, Span } from "./schemas";
import { HUMAN_REQUEST_ROUTES } from "./human-requests";
import { COST_ROUTES } from "./costs";
import { SPAN_ROUTES } from "./spans";
import { MODEL_ROUTES } from "./models";
import { SECRET_ROUTES } from "./secrets";
import { PEOPLE_ROUTES } from "./people";
import { AGENT_ROUTES } from "./agents";
import { DATASET_ROUTES } from "./datasets";
import { EXPERIMENT_ROUTES } from "./experiments";
import { IMPROVEMENT_ROUTES } from "./improvements";
import { SKILL_ROUTES } from "./skills";
import { CHANGE_ROUTES, REPOSITORY_ROUTES } from "./changes";
import { EXTENSION_ROUTES } from "./extensions";
import { MCP_SERVER_ROUTES } from "./mcp-servers";
import { HOSTED_PROGRAM_ROUTES } from "./hosted-programs";
import { GATEWAY_KEY_ROUTES } from "./gateway-keys";
import { DEVICE_ROUTES } from "./devices";
import { MACHINE_ROUTES } from "./machines";
import { WEBHOOK_ROUTES } from "./webhooks";
import { MEMORY_ROUTES } from "./memories";
import { RETENTION_ROUTES } from "./retention";
import { AG_UI_ROUTES } from "../ag-ui";
import { A2A_ROUTES } from "./a2a";

export { OPENAPI_PATH };
export type { Route };

const EventsQuery = z.object({
  after: z.coerce.number().int("after must be an integer").min(0, "after must be 0 or more").default(0),
  limit: z.coerce.number().int().min(1).max(1000, "limit is at most 1000").default(500),
});

const ListQuery = z.object({
  status: z.string().optional().describe("Comma-separated run states, e.g. running,failed"),
  agent: z.string().optional().describe("The agent's name"),
  q: z.string().optional().describe("Words of the goal, or a whole run id"),
  tag: z.string().optional(),
  from: z.string().optional().describe("Created at or after this time (ISO 8601)"),
  to: z.string().optional().describe("Created at or before this time (ISO 8601)"),
  sort: z.string().optional(),
  dir: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().optional().describe("nextCursor of the page before"),
});

const CONTROL = {
  cancel: { doing: "Cancelling a run", summary: "Cancel a run", description: "Stops a run that has not ended; 409 for a run that has." },
  pause: { doing: "Pausing a run", summary: "Pause a run", description: "Pauses a queued or running run; 409 otherwise." },
  resume: { doing: "Resuming a run", summary: "Resume a run", description: "Continues a paused run; 409 otherwise." },
} as const;

function control(result: ControlResult) {
  if (!result.ok) throw new DomainError("CONFLICT", result.reason);
  return { ok: true };
}

const StepRow = z.object({
  step: z.number().int(),
  agent: z.string(),
  text: z.string(),
  toolCalls: z.array(
    z.object({
      tool: z.string(),
      args: JsonValue,
      ok: z.boolean().nullable(),
      error: z.string().optional(),
      /** The person's decision on the call before it ran: APPROVED, REJECTED, EXPIRED or CANCELED, and their name. */
      asked: z.object({ state: z.string(), byName: z.string() }).optional(),
    }),
  ),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number() }),
  durationMs: z.number(),
  runId: z.string().describe("The run this step was taken in (a fork's early steps are its parent's)"),
  fingerprint: z.string(),
});

const CompareTotals = Run.pick({
  id: true,
  goal: true,
  agentName: true,
  agentVersion: true,
  model: true,
  status: true,
  inputTokens: true,
  outputTokens: true,
  costUsd: true,
  durationMs: true,
  errorCode: true,
  errorMessage: true,
  parentRunId: true,
  lineage: true,
}).extend({ steps: z.number().int() });

const RUN_ROUTES: Route[] = [
  defineRoute({
    method: "POST",
    path: "/api/v1/runs",
    minRole: "operator",
    status: 201,
    summary: "Launch a run",
    description: "Writes a queued run and returns at once; a worker picks it up.",
    body: CreateRunInput,
    response: Run,
    responseDescription: "Queued",
    handle: ({ body, actor, kernel }) => createRun(kernel, body, actor),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/runs",
    minRole: "viewer",
    summary: "List runs, newest first",
    description: "The runs you can see: admins every run, others their teams' runs and runs they launched.",
    query: ListQuery,
    response: z.object({ runs: z.array(Run), nextCursor: z.string().nullable() }),
    handle({ query, actor, db }) {
      const status = query.status ? query.status.split(",").filter(Boolean) : undefined;
      return listRuns(db, ListRunsInput.parse({ ...query, status }), actor);
    },
  }),
  // Before /runs/{id}, which "compare" would otherwise match.
  defineRoute({
    method: "GET",
    path: "/api/v1/runs/compare",
    minRole: "viewer",
    summary: "Compare two runs step by step",
    description:
      "Steps aligned by number (a fork's steps before its fork point are its parent's), the first step where the runs part, and each run's outcome, steps, tokens, cost and duration.",
    query: CompareInput,
    response: z.object({
      a: CompareTotals,
      b: CompareTotals,
      rows: z.array(z.object({ step: z.number().int(), a: StepRow.nullable(), b: StepRow.nullable(), same: z.boolean() })),
      firstDivergence: z.number().int().nullable(),
    }),
    handle: ({ query, actor, kernel }) => compareRuns(kernel, actor, query),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/runs/{id}",
    minRole: "viewer",
    summary: "A run",
    response: Run,
    handle: ({ params, actor, db }) => getRun(db, params.id, actor),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/runs/{id}/events",
    minRole: "viewer",
    summary: "The run's events after a sequence number",
    description: "Pass the cursor of one answer as after of the next to follow a run.",
    query: EventsQuery,
    response: z.object({ events: z.array(RunEvent), cursor: z.number().int() }),
    async handle({ params, query, actor, kernel }) {
      const events = await listEvents(kernel, params.id, query.after, query.limit, actor);
      return { events, cursor: events.length ? events[events.length - 1].seq : query.after };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/runs/{id}/scenario",
    minRole: "viewer",
    summary: "The run's model turns as a scenario, to replay",
    response: z.object({
      turns: z.array(
        z.object({ text: z.string().optional(), toolCalls: z.array(z.object({ tool: z.string(), args: JsonValue })).optional() }),
      ),
      stopOnError: z.boolean().optional(),
    }),
    handle: ({ params, actor, kernel }) => exportScenario(kernel, params.id, actor),
  }),
  ...(["cancel", "pause", "resume"] as const).map((action) =>
    defineRoute({
      method: "POST",
      path: `/api/v1/runs/{id}/${action}`,
      minRole: "operator",
      summary: CONTROL[action].summary,
      description: CONTROL[action].description,
      response: Ok,
      errors: { 409: "The run is not in a state this applies to" },
      async handle({ params, actor, db, kernel }) {
        await getRunAs(db, params.id, actor, "operator", CONTROL[action].doing);
        return control(await kernel.pool[action](params.id, { id: actor.userId, name: actor.name }));
      },
    }),
  ),
  defineRoute({
    method: "POST",
    path: "/api/v1/runs/{id}/messages",
    minRole: "operator",
    status: 202,
    summary: "Send the run's agent a message",
    description:
      "The agent reads it before its next model call; a tool call in flight finishes first unless interrupt is true (then it is stopped and the rest of that turn is skipped). A paused run resumes with it; an ended run (succeeded, failed, canceled) continues with it: same run, same workspace. The event user.message records it; the model.turn that read it lists its seq in messages.",
    body: SendMessageInput,
    response: z.union([
      z.object({ delivery: z.literal("next_turn"), seq: z.number().int(), interrupted: z.boolean() }),
      z.object({ delivery: z.literal("continued"), seq: z.number().int(), from: RunState }),
    ]),
    errors: {
      409: "The run cannot read a message now (its step limit or budget is used up, or it is a trial of an experiment); the message says what to do",
    },
    handle: ({ body, params, actor, kernel }) => sendMessage(kernel, params.id, actor, body),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/runs/{id}/retry",
    minRole: "operator",
    summary: "Retry a failed or canceled run from its last good checkpoint",
    description:
      "Raise what stopped it first, in the same request: maxSteps, budgetUsd (a step limit above 50 needs one), or another model. An agent that ended the run as failed says its last turn again.",
    body: RetryInput,
    response: Run,
    responseDescription: "The run, queued again",
    errors: { 409: "The run did not fail, or would stop again at once (step limit, budget): the message says what to raise" },
    handle: ({ body, params, actor, kernel }) => retryRun(kernel, params.id, actor, body),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/runs/{id}/rerun",
    minRole: "operator",
    status: 201,
    summary: "Re-run: a new run with this run's goal, agent version and model",
    description: "Each may be changed. The new run records the old one as its parent (lineage).",
    body: RerunInput,
    response: Run,
    handle: ({ body, params, actor, kernel }) => rerunRun(kernel, params.id, actor, body),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/runs/{id}/fork",
    minRole: "operator",
    status: 201,
    summary: "Fork the run from a step",
    description:
      "A new run that starts after the given step: the conversation, task list and notes as they were then, and the workspace restored exactly from that step's snapshot (files deleted later included). Nothing the parent did is done again. The goal, model, agent version and limits may be changed, and a message added for the fork's first model call.",
    body: ForkInput,
    response: Run,
    handle: ({ body, params, actor, kernel }) => forkRun(kernel, params.id, actor, body),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/runs/{id}/lineage",
    minRole: "viewer",
    summary: "Where the run comes from and what came of it",
    response: z.object({
      parent: z
        .object({
          id: z.string(),
          goal: z.string(),
          status: RunState,
          kind: z.string().nullable(),
          seq: z.number().int().nullable(),
          step: z.number().int().nullable(),
        })
        .nullable(),
      children: z.array(
        z.object({
          id: z.string(),
          goal: z.string(),
          status: RunState,
          lineage: z.string().nullable(),
          parentSeq: z.number().int().nullable(),
          createdAt: Instant,
          step: z.number().int().nullable(),
        }),
      ),
    }),
    handle: ({ params, actor, db }) => runLineage({ db }, params.id, actor),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/runs/{id}/workspace.tar.gz",
    minRole: "viewer",
    summary: "The run's workspace as a .tar.gz (without .git), streamed",
    response: fileResponse("application/gzip", "The workspace's files, streamed as they are packed"),
    errors: { 409: "The run has no workspace (NO_WORKSPACE)" },
    async handle({ params, actor, db, kernel }) {
      const run = await getRun(db, params.id, actor);
      const files = workspaceFiles(kernel.deps.workspaceFor(run.id));
      if (!files.exists()) throw new DomainError("NO_WORKSPACE", NO_WORKSPACE_MESSAGE);
      const name = `rein-${run.id.replace(/[^A-Za-z0-9._-]/g, "_")}.tar.gz`;
      return new StreamBody(files.archive(), {
        "content-type": "application/gzip",
        "content-disposition": `attachment; filename="${name}"`,
      });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/runs/{id}/spans",
    minRole: "viewer",
    summary: "The run's trace",
    description: "Spans with parent ids, start/end, attributes (gen_ai.*, rein.*), tokens and cost.",
    response: z.object({ traceId: z.string().nullable(), spans: z.array(Span), truncated: z.boolean() }),
    async handle({ params, actor, db }) {
      await getRun(db, params.id, actor);
      return listRunSpans(db, params.id);
    },
  }),
];

/** Every route of REST v1, in the order they are matched; OPENAPI describes each (test/docs.test.ts checks it). */
export const ALL_ROUTES: readonly Route[] = [
  ...RUN_ROUTES,
  ...AGENT_ROUTES,
  ...HUMAN_REQUEST_ROUTES,
  ...COST_ROUTES,
  ...SPAN_ROUTES,
  ...MODEL_ROUTES,
  ...SECRET_ROUTES,
  ...PEOPLE_ROUTES,
  ...DATASET_ROUTES,
  ...EXPERIMENT_ROUTES,
  ...IMPROVEMENT_ROUTES,
  ...SKILL_ROUTES,
  ...REPOSITORY_ROUTES,
  ...CHANGE_ROUTES,
  ...EXTENSION_ROUTES,
  ...MCP_SERVER_ROUTES,
  ...HOSTED_PROGRAM_ROUTES,
  ...GATEWAY_KEY_ROUTES,
  ...DEVICE_ROUTES,
  ...MACHINE_ROUTES,
  ...WEBHOOK_ROUTES,
  ...MEMORY_ROUTES,
  ...RETENTION_ROUTES,
  ...AG_UI_ROUTES,
  ...A2A_ROUTES,
];

/** Tests check every answer against its schema; a served API does not spend the time. */
const checkResponsesByDefault = () => process.env.REIN_CHECK_RESPONSES === "1";

let openApiCache: ReturnType<typeof openApiDocument> | null = null;

/** The description of every route, generated from their declarations on first use (it takes a moment that a start should not spend). */
export function openApi() {
  openApiCache ??= openApiDocument(ALL_ROUTES);
  return openApiCache;
}

export function createRestHandler(
  services: Services,
  opts: {
    authSecret: string;
    publicUrl?: string;
    /** Check every answer against its route's response schema (tests do; docs/api.md#contract). */
    checkResponses?: boolean;
  },
) {
  const { authSecret, publicUrl, checkResponses = checkResponsesByDefault() } = opts;
  return async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const url = new URL(req.url ?? "/", "http://localhost");
      if (url.pathname === OPENAPI_PATH && req.method === "GET") return sendJson(res, 200, openApi());
      const matches = ALL_ROUTES.map((r) => ({ r, m: url.pathname.match(r.pattern) })).filter((x) => x.m);
      if (matches.length === 0) throw new DomainError("NOT_FOUND", `No API route ${url.pathname}`);
      const match = matches.find((x) => x.r.method === req.method);
      if (!match) throw new DomainError("METHOD_NOT_ALLOWED", `${req.method} is not allowed on ${url.pathname}`);
      const actor = await authenticateRequest(services.db, req, authSecret);
      if (!actor)
        throw new DomainError(
          "UNAUTHORIZED",
          "Send an API token as 'Authorization: Bearer <token>' (create one with: npm run rein -- token create)",
        );
      const refusal = gateRefusal(actor, match.r.minRole);
      if (refusal) throw new DomainError("FORBIDDEN", refusal);
      const raw = { ...services, req, url, actor, linkBase: requestOrigin(req, publicUrl) };
      const body = await match.r.run(raw, match.m!, checkResponses);
      if (body instanceof StreamBody) return await sendStream(res, match.r.status, body, (err) => sendError(res, err));
      sendJson(res, match.r.status, body);
    } catch (err) {
      sendError(res, err);
    }
  };
}
