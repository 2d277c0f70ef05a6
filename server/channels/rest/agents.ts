// REST v1 for agents (docs/agents.md, docs/api.md): the same service, checks and
// audit as the Agents pages. Everyone sees their teams' agents and
// everyone's; changing one needs the operator role in its team (an admin for
// everyone's). Specs travel as JSON, or as YAML files (export, import).
import { Readable } from "node:stream";
import { z } from "zod";
import {
  AgentName,
  ChangeNote,
  agentDepsOf,
  copyAgent,
  createAgent,
  diffVersions,
  exportAgentYaml,
  getAgent,
  importAgentYaml,
  listAgents,
  listVersions,
  rollbackAgent,
  saveAgent,
  setArchived,
  type AgentActor,
} from "@/server/agents";
import { StreamBody, readJson } from "./http";
import type { Route, RouteContext } from "./v1";

/** Who acts; the CLI says it is the CLI, for the audit log's channel. */
const who = (ctx: RouteContext): AgentActor => ({ actor: ctx.actor, channel: ctx.req.headers["x-rein-channel"] === "cli" ? "cli" : "api" });
const deps = (ctx: RouteContext) => agentDepsOf(ctx.kernel);

const Version = z.coerce.number({ error: "A version is a whole number" }).int("A version is a whole number").min(1, "Versions start at 1");
const ListQuery = z.object({ includeArchived: z.enum(["true", "false"], { error: "includeArchived is true or false" }).optional() });
const DiffQuery = z.object({ from: Version, to: Version });
const GetQuery = z.object({ version: Version.optional() });
const Spec = z.record(z.string(), z.unknown(), { error: "spec is an agent spec: an object of its settings" });
const CreateBody = z.object({ spec: Spec, changeNote: ChangeNote.optional() });
const SaveBody = z.object({ spec: Spec, changeNote: ChangeNote.optional(), baseVersion: Version.optional() });
const RollbackBody = z.object({ version: Version });
const CopyBody = z.object({ name: AgentName, teamId: z.string().min(1).nullable().optional() });
const ImportBody = z.object({ yaml: z.string({ error: "yaml is the file's text" }), changeNote: ChangeNote.optional() });

const query = (ctx: RouteContext) => Object.fromEntries(ctx.url.searchParams);
const AGENT = "([^/]+)";
const path = (rest = "") => new RegExp(`^/api/v1/agents/${AGENT}${rest}$`);

export const AGENT_ROUTES: Route[] = [
  {
    method: "GET",
    pattern: /^\/api\/v1\/agents$/,
    minRole: "viewer",
    async handle(ctx) {
      const q = ListQuery.parse(query(ctx));
      return { agents: await listAgents(ctx.db, ctx.actor, { includeArchived: q.includeArchived === "true" }) };
    },
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/agents$/,
    minRole: "operator",
    status: 201,
    async handle(ctx) {
      const body = CreateBody.parse(await readJson(ctx.req));
      return createAgent(deps(ctx), who(ctx), body.spec, body.changeNote);
    },
  },
  {
    // Before /agents/{name}: "import" is a route here, not an agent, for POST.
    method: "POST",
    pattern: /^\/api\/v1\/agents\/import$/,
    minRole: "operator",
    async handle(ctx) {
      const body = ImportBody.parse(await readJson(ctx.req));
      return importAgentYaml(deps(ctx), who(ctx), body.yaml, body.changeNote);
    },
  },
  {
    method: "GET",
    pattern: path(),
    minRole: "viewer",
    handle: (ctx) => getAgent(ctx.db, ctx.actor, ctx.params[0], GetQuery.parse(query(ctx)).version),
  },
  {
    method: "PUT",
    pattern: path(),
    minRole: "operator",
    async handle(ctx) {
      const body = SaveBody.parse(await readJson(ctx.req));
      return saveAgent(deps(ctx), who(ctx), { name: ctx.params[0], ...body });
    },
  },
  {
    method: "GET",
    pattern: path("/versions"),
    minRole: "viewer",
    handle: async (ctx) => ({ versions: await listVersions(ctx.db, ctx.actor, ctx.params[0]) }),
  },
  {
    method: "GET",
    pattern: path("/versions/([^/]+)"),
    minRole: "viewer",
    handle: (ctx) => getAgent(ctx.db, ctx.actor, ctx.params[0], Version.parse(ctx.params[1])),
  },
  {
    method: "GET",
    pattern: path("/diff"),
    minRole: "viewer",
    async handle(ctx) {
      const q = DiffQuery.parse(query(ctx));
      return diffVersions(ctx.db, ctx.actor, ctx.params[0], q.from, q.to);
    },
  },
  {
    method: "POST",
    pattern: path("/rollback"),
    minRole: "operator",
    async handle(ctx) {
      const body = RollbackBody.parse(await readJson(ctx.req));
      return rollbackAgent(deps(ctx), who(ctx), ctx.params[0], body.version);
    },
  },
  ...(["archive", "unarchive"] as const).map((action): Route => ({
    method: "POST",
    pattern: path(`/${action}`),
    minRole: "operator",
    handle: (ctx) => setArchived(deps(ctx), who(ctx), ctx.params[0], action === "archive"),
  })),
  {
    method: "POST",
    pattern: path("/copy"),
    minRole: "operator",
    status: 201,
    async handle(ctx) {
      const body = CopyBody.parse(await readJson(ctx.req));
      return copyAgent(deps(ctx), who(ctx), { from: ctx.params[0], ...body });
    },
  },
  {
    method: "GET",
    pattern: path("/export"),
    minRole: "viewer",
    async handle(ctx) {
      const { filename, yaml } = await exportAgentYaml(deps(ctx), who(ctx), ctx.params[0], GetQuery.parse(query(ctx)).version);
      return new StreamBody(Readable.from([Buffer.from(yaml, "utf8")]), {
        "content-type": "text/yaml; charset=utf-8",
        "content-disposition": `attachment; filename="${filename}"`,
      });
    },
  },
];
