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
} from "@/server/agents";
import { TASK_CLASSES } from "@/server/models";
import { defineRoute, fileResponse, type Route } from "./contract";
import { StreamBody } from "./http";
import { Instant, Ok, TeamRef } from "./schemas";

const Version = z.coerce.number({ error: "A version is a whole number" }).int("A version is a whole number").min(1, "Versions start at 1");
const ListQuery = z.object({
  includeArchived: z
    .enum(["true", "false"], { error: "includeArchived is true or false" })
    .optional()
    .describe("true lists archived agents too (default false)"),
});
const DiffQuery = z.object({ from: Version, to: Version });
const GetQuery = z.object({ version: Version.optional().describe("A version other than the latest") });
// The service checks the spec's settings itself and reports each problem by field (validateAgentSpec).
const Spec = z
  .record(z.string(), z.unknown(), { error: "spec is an agent spec: an object of its settings" })
  .describe(
    "An agent spec as people write it, the same fields as in a YAML file: name, description, instructions, model, taskClass, complexity, tools, handoffs, guardrails, tier, secrets, teamId (see Agent)",
  );
const CreateBody = z.object({ spec: Spec, changeNote: ChangeNote.optional() });
const SaveBody = z.object({
  spec: Spec,
  changeNote: ChangeNote.optional(),
  baseVersion: Version.optional().describe("The version the change was made on"),
});
const RollbackBody = z.object({ version: Version });
const CopyBody = z.object({ name: AgentName, teamId: z.string().min(1).nullable().optional() });
const ImportBody = z.object({ yaml: z.string({ error: "yaml is the file's text" }), changeNote: ChangeNote.optional() });
const NameParams = z.object({ name: z.string().describe("The agent's name") });

/** An agent at one version: its spec's fields (docs/agents.md) and where the version comes from. */
const Agent = z
  .object({
    name: z.string(),
    description: z.string(),
    instructions: z.string(),
    model: z.string().describe('"auto", "<provider>/<model id>" of a configured model, or "scripted/<scenario>"'),
    taskClass: z.enum(TASK_CLASSES),
    complexity: z
      .number()
      .optional()
      .describe("How hard its tasks are, 0 to 1: routing puts models at least this strong first; tiers have thresholds"),
    tools: z.array(z.string()).describe("Tool names"),
    handoffs: z.array(z.string()).describe("Agents it may hand off to: its own team's or everyone's; needs the handoff tool"),
    secrets: z.array(z.string()).describe("Secret names its tools may use"),
    guardrails: z.object({
      callCap: z.number().int().optional().describe("A run's LLM call cap unless its launcher gives one; over 50 needs costCeilingUsd"),
      costCeilingUsd: z.number().optional().describe("A run's cost ceiling in USD unless its launcher gives one"),
      maxRepeats: z.number().int().optional().describe("The same tool call this many times in a row pauses the run; 0: off"),
      maxFailingSteps: z.number().int().optional().describe("This many failing steps in a row pause the run; 0: off"),
      sessionBudget: z.number().optional().describe("The share of the context window at which a fresh session starts"),
      memoryTokens: z.number().int().optional().describe("Tokens of memories loaded into the prompt"),
      memoryConfirm: z.boolean().optional().describe("Memories it saves wait for a person's confirmation"),
    }),
    tier: z.string().describe("T0, T1 or T2"),
    teamId: z.string().nullable().describe("Only this team sees and runs it; null: everyone"),
    version: z.number().int(),
    draft: z.boolean(),
    builtIn: z.boolean().describe("Comes with Rein: copy it to change it"),
    archived: z.boolean(),
    team: TeamRef.nullable(),
    changeNote: z.string(),
    createdAt: Instant,
    createdBy: z.string().nullable().describe("Who saved this version, by name; null for Rein's own versions"),
  })
  .meta({ id: "Agent" });

const AgentListItem = z.object({
  name: z.string(),
  description: z.string(),
  version: z.number().int().describe("The latest version"),
  model: z.string(),
  taskClass: z.string(),
  tier: z.string(),
  team: TeamRef.nullable(),
  builtIn: z.boolean(),
  archived: z.boolean(),
  updatedAt: Instant,
  updatedBy: z.string().nullable(),
  toolCount: z.number().int(),
});

const InvalidSpec = "The spec has problems: error.issues lists each by field (path) in words";

export const AGENT_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/agents",
    minRole: "viewer",
    summary: "The agents you can see, at their latest versions",
    description: "Your teams' agents and everyone's (admins: all). Archived ones only with includeArchived=true.",
    query: ListQuery,
    response: z.object({ agents: z.array(AgentListItem) }),
    handle: async ({ query, actor, db }) => ({
      agents: await listAgents(db, actor, { includeArchived: query.includeArchived === "true" }),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/agents",
    minRole: "operator",
    status: 201,
    summary: "Create an agent (version 1)",
    description: "Needs the operator role in the spec's team; an agent for everyone (teamId null) needs an admin.",
    body: CreateBody,
    response: Agent,
    responseDescription: "The agent",
    errors: { 400: InvalidSpec },
    handle: ({ body, actor, channel, kernel }) => createAgent(agentDepsOf(kernel), { actor, channel }, body.spec, body.changeNote),
  }),
  // Before /agents/{name}: "import" is a route here, not an agent, for POST.
  defineRoute({
    method: "POST",
    path: "/api/v1/agents/import",
    minRole: "operator",
    summary: "Create an agent from a YAML file, or save it as a new version",
    description: "The file is at most 256 KiB, without deep nesting or alias bombs; the same checks as the Agents page.",
    body: ImportBody,
    response: Agent,
    responseDescription: "The agent at its new version",
    errors: { 400: InvalidSpec },
    handle: ({ body, actor, channel, kernel }) => importAgentYaml(agentDepsOf(kernel), { actor, channel }, body.yaml, body.changeNote),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/agents/{name}",
    minRole: "viewer",
    summary: "An agent at its latest version (or ?version=N)",
    params: NameParams,
    query: GetQuery,
    response: Agent,
    responseDescription: "The agent",
    handle: ({ params, query, actor, db }) => getAgent(db, actor, params.name, query.version),
  }),
  defineRoute({
    method: "PUT",
    path: "/api/v1/agents/{name}",
    minRole: "operator",
    summary: "Save a new version of an agent",
    description:
      "baseVersion is the version the change was made on: 409 when someone saved another since. Built-in agents cannot be changed (copy them).",
    params: NameParams,
    body: SaveBody,
    response: Agent,
    responseDescription: "The agent at its new version",
    errors: { 400: InvalidSpec, 409: "Someone saved another version since baseVersion" },
    handle: ({ params, body, actor, channel, kernel }) =>
      saveAgent(agentDepsOf(kernel), { actor, channel }, { name: params.name, ...body }),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/agents/{name}/versions",
    minRole: "viewer",
    summary: "An agent's versions, newest first",
    params: NameParams,
    response: z.object({
      versions: z.array(
        z.object({ version: z.number().int(), changeNote: z.string(), createdAt: Instant, createdBy: z.string().nullable() }),
      ),
    }),
    handle: async ({ params, actor, db }) => ({ versions: await listVersions(db, actor, params.name) }),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/agents/{name}/versions/{version}",
    minRole: "viewer",
    summary: "One version of an agent",
    params: NameParams.extend({ version: Version }),
    response: Agent,
    responseDescription: "The agent at that version",
    handle: ({ params, actor, db }) => getAgent(db, actor, params.name, params.version),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/agents/{name}/diff",
    minRole: "viewer",
    summary: "What changed between two versions",
    params: NameParams,
    query: DiffQuery,
    response: z.object({
      changes: z.array(z.object({ field: z.string(), label: z.string(), before: z.string(), after: z.string() })),
      instructions: z.array(z.object({ kind: z.enum(["same", "add", "del"]), text: z.string() })).describe("The instructions line by line"),
    }),
    handle: ({ params, query, actor, db }) => diffVersions(db, actor, params.name, query.from, query.to),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/agents/{name}/rollback",
    minRole: "operator",
    summary: "Save a new version equal to an old one",
    params: NameParams,
    body: RollbackBody,
    response: Agent,
    responseDescription: "The agent at its new version",
    handle: ({ params, body, actor, channel, kernel }) => rollbackAgent(agentDepsOf(kernel), { actor, channel }, params.name, body.version),
  }),
  ...(
    [
      ["archive", "Archive an agent: hidden from the list, no new runs; its runs and versions stay"],
      ["unarchive", "Unarchive an agent"],
    ] as const
  ).map(([action, summary]) =>
    defineRoute({
      method: "POST",
      path: `/api/v1/agents/{name}/${action}`,
      minRole: "operator",
      summary,
      params: NameParams,
      response: Ok,
      handle: ({ params, actor, channel, kernel }) =>
        setArchived(agentDepsOf(kernel), { actor, channel }, params.name, action === "archive"),
    }),
  ),
  defineRoute({
    method: "POST",
    path: "/api/v1/agents/{name}/copy",
    minRole: "operator",
    status: 201,
    summary: "Copy an agent (built-ins too) under a new name",
    description: "The copy belongs to teamId, else the source's team, else your first team where you are an operator.",
    params: NameParams,
    body: CopyBody,
    response: Agent,
    responseDescription: "The copy, version 1",
    errors: { 400: InvalidSpec },
    handle: ({ params, body, actor, channel, kernel }) =>
      copyAgent(agentDepsOf(kernel), { actor, channel }, { from: params.name, ...body }),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/agents/{name}/export",
    minRole: "viewer",
    summary: "An agent as a YAML file (or ?version=N)",
    params: NameParams,
    query: GetQuery,
    response: fileResponse("text/yaml", "The spec (Content-Disposition: attachment; filename=<name>.agent.yaml)"),
    async handle({ params, query, actor, channel, kernel }) {
      const { filename, yaml } = await exportAgentYaml(agentDepsOf(kernel), { actor, channel }, params.name, query.version);
      return new StreamBody(Readable.from([Buffer.from(yaml, "utf8")]), {
        "content-type": "text/yaml; charset=utf-8",
        "content-disposition": `attachment; filename="${filename}"`,
      });
    },
  }),
];
