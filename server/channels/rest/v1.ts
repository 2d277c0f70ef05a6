// REST API v1 for programs (docs/api.md): bearer API tokens or a session.
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import type { Db } from "@/server/db";
import { authenticateRequest, gateRefusal, requestOrigin, type Actor, type Role } from "@/server/identity";
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
  type Kernel,
} from "@/server/kernel";
import type { ModelAdmin } from "@/server/models";
import { NO_WORKSPACE_MESSAGE, workspaceFiles } from "@/server/tools";
import { DomainError } from "@/server/errors";
import { readJson, sendError, sendJson, sendStream, StreamBody } from "./http";
import { decodePathPart } from "./input";
import { OPENAPI } from "./openapi";
import { listRunSpans } from "@/server/telemetry";
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
import { WEBHOOK_ROUTES } from "./webhooks";
import { MEMORY_ROUTES } from "./memories";
import type { Webhooks } from "../webhooks";
import type { SecretKeyring } from "@/server/secrets";
import type { McpServers } from "@/server/mcp";
import type { ChangeRequests, ExtensionRegistry, SkillLibrary } from "@/server/improve";
import { type Hitl } from "@/server/hitl";

/** What the Improvements routes change in the running server (the same runtime tRPC's context carries). */
export interface ImproveRuntime {
  live: { unload(name: string): void };
  reload(improvementId: string): Promise<void>;
  promote(improvementId: string, by: { id: string; name: string }, channel: string): Promise<boolean>;
  /** The skill library whose cache of active skills the kernel reads every turn. */
  skills?: SkillLibrary;
  /** Change requests to repositories (tier 4); null where they do not run. */
  changes?: ChangeRequests | null;
  /** The extension registry whose installed extensions the kernel offers every turn. */
  extensionRegistry?: ExtensionRegistry;
}

export interface RouteContext {
  req: IncomingMessage;
  url: URL;
  params: string[];
  actor: Actor;
  db: Db;
  kernel: Kernel;
  hitl?: Hitl;
  /** Providers, models and routing (docs/models.md). */
  models?: ModelAdmin;
  /** Seals the secrets admins add (docs/secrets.md). */
  keyring?: SecretKeyring;
  /** Where invitation and reset links point: REIN_PUBLIC_URL, else this request's origin. */
  linkBase?: string;
  /** The experiment runner, told when an experiment was started. */
  experiments?: { wake(experimentId: string): void };
  /** Self-improvement: the live runtime tools, reloads and promotions (as tRPC's context has it). */
  improve?: ImproveRuntime;
  /** MCP servers attached as tool sources (docs/mcp.md). */
  mcp?: McpServers;
  /** Signed webhook endpoints (docs/channels.md#webhooks). */
  webhooks?: Webhooks;
}

export interface Route {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  pattern: RegExp;
  minRole: Role;
  status?: number;
  handle(ctx: RouteContext): Promise<unknown>;
}

const EventsQuery = z.object({
  after: z.coerce.number().int("after must be an integer").min(0, "after must be 0 or more").default(0),
  limit: z.coerce.number().int().min(1).max(1000, "limit is at most 1000").default(500),
});

const ListQuery = z.object({
  status: z.string().optional(),
  agent: z.string().optional(),
  q: z.string().optional(),
  tag: z.string().optional(),
  from: z.string().optional(),
  to: z.string().optional(),
  sort: z.string().optional(),
  dir: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().optional(),
});

const CONTROL_DOING = { cancel: "Cancelling a run", pause: "Pausing a run", resume: "Resuming a run" } as const;

function control(result: ControlResult) {
  if (!result.ok) throw new DomainError("CONFLICT", result.reason);
  return { ok: true };
}

const ROUTES: Route[] = [
  {
    method: "POST",
    pattern: /^\/api\/v1\/runs$/,
    minRole: "operator",
    status: 201,
    async handle({ req, actor, kernel }) {
      return createRun(kernel, CreateRunInput.parse(await readJson(req)), actor);
    },
  },
  {
    method: "GET",
    pattern: /^\/api\/v1\/runs$/,
    minRole: "viewer",
    handle({ url, actor, db }) {
      const q = ListQuery.parse(Object.fromEntries(url.searchParams));
      const status = q.status ? q.status.split(",").filter(Boolean) : undefined;
      return listRuns(db, ListRunsInput.parse({ ...q, status }), actor);
    },
  },
  {
    // Before /runs/:id, which "compare" would otherwise match.
    method: "GET",
    pattern: /^\/api\/v1\/runs\/compare$/,
    minRole: "viewer",
    handle: ({ url, actor, kernel }) => compareRuns(kernel, actor, CompareInput.parse(Object.fromEntries(url.searchParams))),
  },
  {
    method: "GET",
    pattern: /^\/api\/v1\/runs\/([^/]+)$/,
    minRole: "viewer",
    handle: ({ params, actor, db }) => getRun(db, params[0], actor),
  },
  {
    method: "GET",
    pattern: /^\/api\/v1\/runs\/([^/]+)\/events$/,
    minRole: "viewer",
    async handle({ params, url, actor, kernel }) {
      const q = EventsQuery.parse(Object.fromEntries(url.searchParams));
      const events = await listEvents(kernel, params[0], q.after, q.limit, actor);
      return { events, cursor: events.length ? events[events.length - 1].seq : q.after };
    },
  },
  {
    method: "GET",
    pattern: /^\/api\/v1\/runs\/([^/]+)\/scenario$/,
    minRole: "viewer",
    handle: ({ params, actor, kernel }) => exportScenario(kernel, params[0], actor),
  },
  ...(["cancel", "pause", "resume"] as const).map((action): Route => ({
    method: "POST",
    pattern: new RegExp(`^/api/v1/runs/([^/]+)/${action}$`),
    minRole: "operator",
    async handle({ params, actor, db, kernel }) {
      await getRunAs(db, params[0], actor, "operator", CONTROL_DOING[action]);
      return control(await kernel.pool[action](params[0], { id: actor.userId, name: actor.name }));
    },
  })),
  {
    method: "POST",
    pattern: /^\/api\/v1\/runs\/([^/]+)\/messages$/,
    minRole: "operator",
    status: 202,
    async handle({ req, params, actor, kernel }) {
      return sendMessage(kernel, params[0], actor, SendMessageInput.parse(await readJson(req)));
    },
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/runs\/([^/]+)\/retry$/,
    minRole: "operator",
    async handle({ req, params, actor, kernel }) {
      return retryRun(kernel, params[0], actor, RetryInput.parse(await readJson(req)));
    },
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/runs\/([^/]+)\/rerun$/,
    minRole: "operator",
    status: 201,
    async handle({ req, params, actor, kernel }) {
      return rerunRun(kernel, params[0], actor, RerunInput.parse(await readJson(req)));
    },
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/runs\/([^/]+)\/fork$/,
    minRole: "operator",
    status: 201,
    async handle({ req, params, actor, kernel }) {
      return forkRun(kernel, params[0], actor, ForkInput.parse(await readJson(req)));
    },
  },
  {
    method: "GET",
    pattern: /^\/api\/v1\/runs\/([^/]+)\/lineage$/,
    minRole: "viewer",
    handle: ({ params, actor, db }) => runLineage({ db }, params[0], actor),
  },
  {
    method: "GET",
    pattern: /^\/api\/v1\/runs\/([^/]+)\/workspace\.tar\.gz$/,
    minRole: "viewer",
    async handle({ params, actor, db, kernel }) {
      const run = await getRun(db, params[0], actor);
      const files = workspaceFiles(kernel.deps.workspaceFor(run.id));
      if (!files.exists()) throw new DomainError("NO_WORKSPACE", NO_WORKSPACE_MESSAGE);
      const name = `rein-${run.id.replace(/[^A-Za-z0-9._-]/g, "_")}.tar.gz`;
      return new StreamBody(files.archive(), {
        "content-type": "application/gzip",
        "content-disposition": `attachment; filename="${name}"`,
      });
    },
  },
  {
    method: "GET",
    pattern: /^\/api\/v1\/runs\/([^/]+)\/spans$/,
    minRole: "viewer",
    async handle({ params, actor, db }) {
      await getRun(db, params[0], actor);
      return listRunSpans(db, params[0]);
    },
  },
];

/** Every route of REST v1, in the order they are matched; OPENAPI describes each (test/docs.test.ts checks it). */
export const ALL_ROUTES: readonly Route[] = [
  ...ROUTES,
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
  ...WEBHOOK_ROUTES,
  ...MEMORY_ROUTES,
];

/** The OpenAPI description, served to anyone (it holds no data). */
export const OPENAPI_PATH = "/api/v1/openapi.json";

export function createRestHandler(deps: {
  db: Db;
  kernel: Kernel;
  hitl?: Hitl;
  models?: ModelAdmin;
  keyring?: SecretKeyring;
  authSecret: string;
  publicUrl?: string;
  experiments?: { wake(experimentId: string): void };
  improve?: ImproveRuntime;
  mcp?: McpServers;
  webhooks?: Webhooks;
}) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const url = new URL(req.url ?? "/", "http://localhost");
      if (url.pathname === OPENAPI_PATH && req.method === "GET") return sendJson(res, 200, OPENAPI);
      const matches = ALL_ROUTES.map((r) => ({ r, m: url.pathname.match(r.pattern) })).filter((x) => x.m);
      if (matches.length === 0) throw new DomainError("NOT_FOUND", `No API route ${url.pathname}`);
      const match = matches.find((x) => x.r.method === req.method);
      if (!match) throw new DomainError("METHOD_NOT_ALLOWED", `${req.method} is not allowed on ${url.pathname}`);
      const actor = await authenticateRequest(deps.db, req, deps.authSecret);
      if (!actor)
        throw new DomainError(
          "UNAUTHORIZED",
          "Send an API token as 'Authorization: Bearer <token>' (create one with: npm run rein -- token create)",
        );
      const refusal = gateRefusal(actor, match.r.minRole);
      if (refusal) throw new DomainError("FORBIDDEN", refusal);
      const params = match.m!.slice(1).map(decodePathPart);
      if (params.some((p) => p === null)) throw new DomainError("BAD_PATH", `The path ${url.pathname} has malformed percent-encoding`);
      const body = await match.r.handle({
        req,
        url,
        params: params as string[],
        actor,
        db: deps.db,
        kernel: deps.kernel,
        hitl: deps.hitl,
        models: deps.models,
        keyring: deps.keyring,
        linkBase: requestOrigin(req, deps.publicUrl),
        experiments: deps.experiments,
        improve: deps.improve,
        mcp: deps.mcp,
        webhooks: deps.webhooks,
      });
      if (body instanceof StreamBody) return await sendStream(res, match.r.status ?? 200, body, (err) => sendError(res, err));
      sendJson(res, match.r.status ?? 200, body);
    } catch (err) {
      sendError(res, err);
    }
  };
}
