// REST v1 for MCP servers (docs/mcp.md, docs/mcp-server.md), for admins and the CLI:
// the same service, checks and audit as Settings › MCP servers. Secrets are
// named in a server's config and never returned.
import { z } from "zod";
import { AddMcpServerInput, REPLAY_CLASSES, SetMcpToolInput, UpdateMcpServerInput } from "@/server/mcp-client";
import { defineRoute, type Route } from "./contract";
import { JsonValue, Ok } from "./schemas";

const ReviewBody = z
  .object({
    accept: z
      .boolean({ error: "accept is true (pin the new definition) or false (keep the tool off)" })
      .describe("true pins the new definition and turns the tool back on; false keeps it off"),
  })
  .strict();
const BudgetBody = z
  .object({
    tokens: z
      .number({ error: "tokens is a whole number" })
      .int("tokens is a whole number")
      .describe("Tokens of MCP tool definitions one agent gets, from 500 to 500,000"),
  })
  .strict();

/** The services' own schemas, described. */
const AddBody = AddMcpServerInput.describe(
  'stdio: command ("node", the sandbox\'s Node, or an absolute path under /usr), args, env (variables by name; the sandbox starts from a clean environment) and network (true gives the server the machine\'s network). http: url and headers. A value is { "secret": "NAME" } or { "value": "text" }. callTimeoutSec: the longest one call may take, progress or not.',
);
const UpdateBody = UpdateMcpServerInput.extend({
  callTimeoutSec: UpdateMcpServerInput.shape.callTimeoutSec.describe("The longest one call may take, progress or not (seconds)"),
});
const SetToolBody = SetMcpToolInput.extend({
  replayOverride: SetMcpToolInput.shape.replayOverride.describe("null: from the tool's annotations"),
  allowedAgents: SetMcpToolInput.shape.allowedAgents.describe("Agent names, * for any"),
  allowedTeams: SetMcpToolInput.shape.allowedTeams.describe("Team ids, * for any; a team's name is accepted and stored as its id"),
});

const ServerParams = z.object({ name: z.string().describe("The server's name") });
const ToolParams = ServerParams.extend({ tool: z.string().describe("The tool's name as its server gives it") });

/** A tool's definition as its server reports it: hostile input, shown to admins to compare. */
const Definition = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: JsonValue.optional(),
  outputSchema: JsonValue.optional(),
  annotations: JsonValue.optional(),
});

const Tool = z
  .object({
    name: z.string().describe("The tool's name as its server gives it"),
    exposedName: z.string().describe("The name agents call it by"),
    policyName: z.string().describe("mcp:<server>/<tool>, as policies name it"),
    state: z.enum(["enabled", "disabled", "changed", "removed"]).describe("changed: its definition differs from the pinned one"),
    live: z.boolean().describe("In the registry now: agents in its scope get it"),
    title: z.string().nullable(),
    description: z.string(),
    inputSchema: JsonValue.describe("The JSON Schema of its arguments, as the server gives it"),
    annotations: z
      .object({
        title: z.string().optional(),
        readOnlyHint: z.boolean().optional(),
        destructiveHint: z.boolean().optional(),
        idempotentHint: z.boolean().optional(),
        openWorldHint: z.boolean().optional(),
      })
      .nullable()
      .describe("The server's hints, from which the replay class follows"),
    replayClass: z.enum(REPLAY_CLASSES),
    replayOverride: z.enum(REPLAY_CLASSES).nullable().describe("An admin's replay class; null: from the annotations"),
    allowedAgents: z.array(z.string()).describe("Agent names, * for any"),
    allowedTeams: z.array(z.string()).describe("Team ids, * for any"),
    teams: z.array(z.object({ id: z.string(), name: z.string() })).describe("The scope's teams with their current names"),
    tokens: z.number().int().describe("What its definition costs in the prompt"),
    pinnedHash: z.string(),
    change: z
      .object({ hash: z.string(), definition: Definition, pinned: Definition })
      .nullable()
      .describe("A definition the server reports that differs from the approved one"),
  })
  .meta({ id: "McpTool" });

const OAuthStatus = z
  .object({
    status: z
      .enum(["not_authorized", "authorized", "expired"])
      .describe("expired: the authorization server no longer accepts Rein's tokens; an admin authorizes again"),
    authorizedBy: z.object({ id: z.string(), name: z.string() }).nullable(),
    authorizedAt: z.string().nullable(),
    expiresAt: z.string().nullable().describe("When the access token stops working; Rein refreshes it when the server says so"),
    scope: z.string().nullable(),
    issuer: z.string().nullable().describe("The authorization server, once found"),
    problem: z.string().nullable().describe("Why an admin must act"),
    pending: z.boolean().describe("An admin's authorization is under way"),
    redirectUrl: z.string().describe("Rein's callback: what to register for a client of your own"),
  })
  .meta({ id: "McpOAuthStatus" });

const Server = z
  .object({
    name: z.string(),
    transport: z.enum(["stdio", "http"]),
    enabled: z.boolean(),
    health: z.enum(["starting", "ready", "failed", "stopped"]),
    reason: z.string().nullable().describe("Why it is not ready"),
    stderrTail: z.string().nullable().describe("The end of its stderr, when it failed"),
    info: z
      .object({
        name: z.string(),
        version: z.string(),
        protocolVersion: z.string().nullable().describe('The MCP revision agreed with the server, e.g. "2026-07-28" or "2025-11-25"'),
        era: z
          .enum(["modern", "legacy"])
          .nullable()
          .optional()
          .describe('"modern": agreed over server/discover, no session (2026-07-28 on); "legacy": the initialize handshake'),
        instructions: z.string().nullable(),
      })
      .nullable()
      .describe("What the server said of itself when it started"),
    lastSeenAt: z.string().nullable(),
    createdAt: z.string(),
    config: z
      .object({
        stdio: JsonValue.optional().describe("command, args, env (secrets by name), network"),
        http: JsonValue.optional().describe("url, headers (secrets by name), oauth (scope, clientId, clientSecret by name)"),
        callTimeoutSec: z.number().int(),
      })
      .describe("As given; secrets appear by name only"),
    toolCount: z.number().int(),
    enabledCount: z.number().int(),
    changedCount: z.number().int().describe("Tools whose definition changed and wait for review"),
    enabledTokens: z.number().int(),
    oauth: OAuthStatus.nullable().describe("OAuth for a hosted server (docs/mcp.md#oauth); null when the server does not use it"),
    tools: z.array(Tool).optional().describe("Its tools (one server's answer, not the list)"),
  })
  .meta({ id: "McpServer" });

const AgentBudget = z.object({ agent: z.string(), tools: z.number().int(), tokens: z.number().int() });

export const MCP_SERVER_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/mcp-servers",
    minRole: "admin",
    summary: "The MCP servers attached, with their health, and the token budget of the MCP tools one agent gets",
    response: z.object({
      servers: z.array(Server),
      budget: z.object({
        tokens: z.number().int(),
        default: z.number().int(),
        agents: z.array(AgentBudget).describe("Agents that get MCP tools, most tokens first"),
        overBudget: z.array(AgentBudget),
      }),
    }),
    handle: (ctx) => ctx.mcp.list(ctx.actor),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/mcp-servers",
    minRole: "admin",
    status: 201,
    summary:
      "Attach an MCP server: a program run in the sandbox over stdio, or a Streamable HTTP address; Rein starts it and pins its tools (all off)",
    description:
      'Variables and headers name Rein secrets ({ "secret": "NAME" }); their values are read when the server starts and are never returned.',
    body: AddBody,
    response: Server,
    errors: { 409: "There is already an MCP server of that name" },
    handle: (ctx) => ctx.mcp.add(ctx.actor, ctx.body, ctx.channel),
  }),
  // Before the routes of one server: "demo" would otherwise read as a server's name.
  defineRoute({
    method: "POST",
    path: "/api/v1/mcp-servers/demo",
    minRole: "admin",
    status: 201,
    summary: "Attach the bundled demo server (everything, the MCP project's reference server; works offline) as everything",
    response: Server,
    errors: { 409: "It is attached already" },
    handle: (ctx) => ctx.mcp.addDemo(ctx.actor, ctx.channel),
  }),
  defineRoute({
    method: "PUT",
    path: "/api/v1/mcp-servers/token-budget",
    minRole: "admin",
    summary: "Set the token budget of the MCP tool definitions one agent gets; tools beyond it are left out of a run, which says so",
    body: BudgetBody,
    response: z.object({ tokens: z.number().int() }),
    handle: async (ctx) => ({ tokens: await ctx.mcp.setTokenBudget(ctx.actor, ctx.body.tokens, ctx.channel) }),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/mcp-servers/{name}",
    minRole: "admin",
    summary: "One MCP server with its tools",
    params: ServerParams,
    response: Server,
    handle: (ctx) => ctx.mcp.get(ctx.actor, ctx.params.name),
  }),
  defineRoute({
    method: "PATCH",
    path: "/api/v1/mcp-servers/{name}",
    minRole: "admin",
    summary: "Change an MCP server (turn it off or on, its config, its call time limit); it restarts",
    params: ServerParams,
    body: UpdateBody,
    response: Server,
    handle: (ctx) => ctx.mcp.update(ctx.actor, ctx.params.name, ctx.body, ctx.channel),
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/mcp-servers/{name}",
    minRole: "admin",
    summary: "Remove an MCP server: it stops and its tools leave every agent",
    params: ServerParams,
    response: Ok,
    async handle(ctx) {
      await ctx.mcp.remove(ctx.actor, ctx.params.name, ctx.channel);
      return { ok: true };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/mcp-servers/{name}/test",
    minRole: "admin",
    summary: "Restart an MCP server now and report its health (and, when it failed, the end of its stderr)",
    params: ServerParams,
    response: Server,
    errors: { 409: "The server is turned off" },
    handle: (ctx) => ctx.mcp.test(ctx.actor, ctx.params.name),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/mcp-servers/{name}/authorization",
    minRole: "admin",
    summary: "Start an OAuth authorization at a hosted MCP server: open the address it returns in the browser of the admin who asked",
    description:
      "Authorization code with PKCE. The authorization server sends the browser back to Rein's callback, which only the same admin's session can finish, within 10 minutes.",
    params: ServerParams,
    response: z.object({ authorizationUrl: z.string().describe("Where to send the admin's browser") }),
    errors: { 409: "The server does not use OAuth", 503: "The server or its authorization server could not be reached" },
    handle: (ctx) => ctx.mcp.authorize(ctx.actor, ctx.params.name, ctx.channel),
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/mcp-servers/{name}/authorization",
    minRole: "admin",
    summary: "Forget an MCP server's OAuth tokens and client registration; it needs a new authorization",
    params: ServerParams,
    response: Ok,
    async handle(ctx) {
      await ctx.mcp.forgetAuthorization(ctx.actor, ctx.params.name, ctx.channel);
      return { ok: true };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/mcp-servers/{name}/tools",
    minRole: "admin",
    summary: "An MCP server's tools: pinned definitions, state, annotations, replay class, scope and token cost",
    params: ServerParams,
    response: z.object({ tools: z.array(Tool) }),
    handle: async (ctx) => ({ tools: await ctx.mcp.tools(ctx.actor, ctx.params.name) }),
  }),
  defineRoute({
    method: "PATCH",
    path: "/api/v1/mcp-servers/{name}/tools/{tool}",
    minRole: "admin",
    summary: 'Turn an MCP tool on or off, override its replay class, and say which agents and teams get it ("*": any)',
    params: ToolParams,
    body: SetToolBody,
    response: Tool,
    errors: { 409: "The tool changed its definition and waits for review, or its server no longer offers it" },
    handle: (ctx) => ctx.mcp.setTool(ctx.actor, ctx.params.name, ctx.params.tool, ctx.body, ctx.channel),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/mcp-servers/{name}/tools/{tool}/review",
    minRole: "admin",
    summary:
      "Review a tool whose definition changed since it was approved: accept pins the new one and turns it back on, reject keeps it off",
    params: ToolParams,
    body: ReviewBody,
    response: Tool,
    errors: { 409: "The tool has no change waiting for review, or it changed again meanwhile" },
    handle: (ctx) => ctx.mcp.review(ctx.actor, ctx.params.name, ctx.params.tool, ctx.body.accept, ctx.channel),
  }),
];
