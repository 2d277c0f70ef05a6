// What admins do to MCP servers (Settings › MCP servers, docs/mcp.md#attaching-a-server):
// attach one (or the bundled demo), change it, remove it, restart it to test
// it, turn its tools on for some agents and teams, answer a changed
// definition (docs/mcp.md#changed-definitions), and set the token budget.
// Each change is audited and takes effect at once: the connection restarts,
// the registry follows.
import { recordAudit } from "@/server/audit";
import { resolveTeamRefs, teamRefsProblem, type Actor } from "@/server/identity";
import type { McpAgentTools } from "./agent-tools";
import type { ServerConnections } from "./connections";
import { McpError, parseInput, requireMcpAdmin } from "./errors";
import { AddMcpServerInput, SetMcpToolInput, UpdateMcpServerInput, secretsNamed, type HttpConfig, type McpServerConfig } from "./input";
import { McpNameError, McpNameTable } from "./names";
import type { McpToolDefinition } from "./pin";
import { definitionTokens } from "./pinning";
import { TOKEN_BUDGET_SETTING, serverNamed, storedJson, type LiveServer, type McpState, type ToolRow } from "./state";
import { getServer, toolsOf, type McpServerView, type McpToolView } from "./views";

/** The bundled demo server (works offline): the MCP project's own "everything" server. */
export const DEMO_SERVER_NAME = "everything";
const DEMO_SERVER_ENTRY = "@modelcontextprotocol/server-everything/dist/index.js";

export class McpAdmin {
  constructor(
    private readonly state: McpState,
    private readonly connections: ServerConnections,
    private readonly agentTools: McpAgentTools,
  ) {}

  async add(actor: Actor, input: unknown, channel = "admin"): Promise<McpServerView> {
    requireMcpAdmin(actor, "Adding an MCP server");
    const { db } = this.state.deps;
    const data = parseInput(AddMcpServerInput, input);
    if (this.state.live.has(data.name) || (await db.mcpServer.findUnique({ where: { name: data.name } })))
      throw new McpError("CONFLICT", `There is already an MCP server named ${data.name}`);
    const config =
      data.transport === "stdio"
        ? { stdio: data.stdio, callTimeoutSec: data.callTimeoutSec }
        : { http: data.http, callTimeoutSec: data.callTimeoutSec };
    await this.checkSecrets({ transport: data.transport, ...config } as McpServerConfig);
    const row = await db.mcpServer.create({
      data: {
        name: data.name,
        transport: data.transport,
        config: JSON.stringify(config),
        enabled: data.enabled,
        createdById: actor.userId,
      },
    });
    await this.audit(actor, channel, "mcp.server.added", data.name, null, data.enabled ? "enabled" : "disabled", {
      transport: data.transport,
      config,
    });
    const live = this.connections.track(row);
    if (live.enabled) await this.connections.connect(live).catch(() => {});
    return getServer(this.state, actor, data.name);
  }

  /** The bundled demo server, which needs no network: the MCP project's "everything" server (docs/mcp.md#the-demo). */
  async addDemo(actor: Actor, channel = "admin"): Promise<McpServerView> {
    return this.add(
      actor,
      {
        name: DEMO_SERVER_NAME,
        transport: "stdio",
        stdio: { command: "node", args: [`/opt/rein/node_modules/${DEMO_SERVER_ENTRY}`, "stdio"] },
      },
      channel,
    );
  }

  async update(actor: Actor, name: string, input: unknown, channel = "admin"): Promise<McpServerView> {
    requireMcpAdmin(actor, "Changing an MCP server");
    const live = serverNamed(this.state, name);
    const data = parseInput(UpdateMcpServerInput, input);
    if (data.stdio && live.config.transport !== "stdio")
      throw new McpError("INVALID_INPUT", "This server speaks Streamable HTTP; give http, not stdio");
    if (data.http && live.config.transport !== "http")
      throw new McpError("INVALID_INPUT", "This server runs over stdio; give stdio, not http");
    const config = {
      ...live.config,
      ...(data.stdio ? { stdio: data.stdio } : {}),
      ...(data.http ? { http: data.http } : {}),
      ...(data.callTimeoutSec ? { callTimeoutSec: data.callTimeoutSec } : {}),
    } as McpServerConfig;
    await this.checkSecrets(config);
    const enabled = data.enabled ?? live.enabled;
    // OAuth tokens are for one server at one URL, from one client: another URL or client needs a new authorization.
    const authorizationEnds =
      live.config.transport === "http" && config.transport === "http" && oauthChanged(live.config.http, config.http);
    const { transport: _t, ...stored } = config;
    await this.state.deps.db.mcpServer.update({ where: { id: live.id }, data: { config: JSON.stringify(stored), enabled } });
    if (authorizationEnds) await this.state.oauth.remove(live.id);
    await this.audit(actor, channel, "mcp.server.updated", name, live.enabled ? "enabled" : "disabled", enabled ? "enabled" : "disabled", {
      changed: Object.keys(data),
      ...(authorizationEnds ? { oauthTokensForgotten: true } : {}),
    });
    live.config = config;
    live.enabled = enabled;
    await this.connections.disconnect(live);
    await this.connections.setHealth(live, "stopped", enabled ? null : "Turned off by an admin");
    await this.agentTools.sync(live.id);
    if (enabled) await this.connections.connect(live).catch(() => {});
    return getServer(this.state, actor, name);
  }

  async remove(actor: Actor, name: string, channel = "admin"): Promise<void> {
    requireMcpAdmin(actor, "Removing an MCP server");
    const live = serverNamed(this.state, name);
    this.state.live.delete(name);
    live.enabled = false;
    await this.connections.disconnect(live);
    this.agentTools.withdraw(name);
    await this.state.deps.db.mcpServer.delete({ where: { id: live.id } });
    await this.state.oauth.remove(live.id);
    await this.audit(actor, channel, "mcp.server.removed", name, "enabled", "removed", {});
  }

  /** Restarts the server now and reports how it went (the page's "Test" button). */
  async test(actor: Actor, name: string): Promise<McpServerView> {
    requireMcpAdmin(actor, "Testing an MCP server");
    const live = serverNamed(this.state, name);
    if (!live.enabled) throw new McpError("CONFLICT", `The MCP server ${name} is turned off; turn it on to test it`);
    await this.connections.disconnect(live);
    await this.connections.connect(live).catch(() => {});
    return getServer(this.state, actor, name);
  }

  async setTool(actor: Actor, server: string, tool: string, input: unknown, channel = "admin"): Promise<McpToolView> {
    requireMcpAdmin(actor, "Changing an MCP tool");
    const { deps, granted } = this.state;
    const live = serverNamed(this.state, server);
    const data = parseInput(SetMcpToolInput, input);
    const row = await this.toolRow(live, tool);
    if (data.enabled && row.state === "changed")
      throw new McpError("CONFLICT", `The tool ${tool} changed its definition since it was approved; review the difference first`);
    if (data.enabled && row.state === "removed") throw new McpError("CONFLICT", `The server no longer offers ${tool}`);
    const teams = data.allowedTeams ? await this.teamListOf(data.allowedTeams) : undefined;
    const agents = data.allowedAgents;
    let allowedAgents = agents ?? storedJson<string[]>(row.allowedAgents, []);
    let allowedTeams = teams ?? storedJson<string[]>(row.allowedTeams, []);
    // Turned on with a list nobody filled in: everyone on that side, as the page says; the admin narrows it.
    if (data.enabled && !agents && !allowedAgents.length) allowedAgents = ["*"];
    if (data.enabled && !teams && !allowedTeams.length) allowedTeams = ["*"];
    if (data.enabled) {
      const table = new McpNameTable((n) => !granted.has(n) && !!deps.registry.get(n));
      try {
        table.add(server, tool);
      } catch (err) {
        if (err instanceof McpNameError) throw new McpError("CONFLICT", err.message);
        throw err;
      }
    }
    const state = data.enabled === undefined ? row.state : data.enabled ? "enabled" : row.state === "enabled" ? "disabled" : row.state;
    await deps.db.mcpTool.update({
      where: { id: row.id },
      data: {
        state,
        ...(data.replayOverride !== undefined ? { replayOverride: data.replayOverride } : {}),
        allowedAgents: JSON.stringify(allowedAgents),
        allowedTeams: JSON.stringify(allowedTeams),
      },
    });
    await this.audit(actor, channel, "mcp.tool.updated", `mcp:${server}/${tool}`, row.state, state, {
      ...data,
      allowedAgents,
      allowedTeams,
    });
    await this.agentTools.sync(live.id);
    return (await toolsOf(this.state, live)).find((t) => t.name === tool)!;
  }

  /** An admin's answer to a changed definition: accept pins the new one (the tool is on again), reject keeps it off. */
  async review(actor: Actor, server: string, tool: string, accept: boolean, channel = "admin"): Promise<McpToolView> {
    requireMcpAdmin(actor, "Reviewing an MCP tool");
    const live = serverNamed(this.state, server);
    const row = await this.toolRow(live, tool);
    if (row.state !== "changed" || !row.pendingDefinition || !row.pendingHash)
      throw new McpError("CONFLICT", `The tool ${tool} has no change waiting for review`);
    const def = storedJson<McpToolDefinition>(row.pendingDefinition, { name: tool });
    const moved = await this.state.deps.db.mcpTool.updateMany({
      where: { id: row.id, state: "changed", pendingHash: row.pendingHash },
      data: accept
        ? {
            definition: row.pendingDefinition,
            pinnedHash: row.pendingHash,
            pendingDefinition: null,
            pendingHash: null,
            state: "enabled",
            tokens: definitionTokens(def),
          }
        : { state: "disabled" },
    });
    if (moved.count !== 1)
      throw new McpError("CONFLICT", `The tool ${tool} changed again while you reviewed it; look at the new difference`);
    await this.audit(
      actor,
      channel,
      accept ? "mcp.tool.approved" : "mcp.tool.rejected",
      `mcp:${server}/${tool}`,
      "changed",
      accept ? "enabled" : "disabled",
      { from: row.pinnedHash, to: row.pendingHash },
    );
    await this.agentTools.sync(live.id);
    return (await toolsOf(this.state, live)).find((t) => t.name === tool)!;
  }

  async setTokenBudget(actor: Actor, tokens: number, channel = "admin"): Promise<number> {
    requireMcpAdmin(actor, "Changing the MCP token budget");
    if (!Number.isInteger(tokens) || tokens < 500 || tokens > 500_000)
      throw new McpError("INVALID_INPUT", "The budget is a whole number of tokens from 500 to 500,000");
    await this.state.deps.db.setting.upsert({
      where: { key: TOKEN_BUDGET_SETTING },
      create: { key: TOKEN_BUDGET_SETTING, value: JSON.stringify(tokens) },
      update: { value: JSON.stringify(tokens) },
    });
    await this.audit(actor, channel, "mcp.budget.updated", TOKEN_BUDGET_SETTING, String(this.state.budget), String(tokens), {});
    this.state.budget = tokens;
    this.state.warned.clear();
    return tokens;
  }

  private async toolRow(live: LiveServer, tool: string): Promise<ToolRow> {
    const row = await this.state.deps.db.mcpTool.findUnique({ where: { serverId_name: { serverId: live.id, name: tool } } });
    if (!row) throw new McpError("NOT_FOUND", `The MCP server ${live.name} has no tool named ${tool}`);
    return row;
  }

  /** Every secret the config names exists (docs/mcp.md#secrets-in-variables-and-headers). */
  private async checkSecrets(config: McpServerConfig) {
    const names = secretsNamed(config);
    if (!names.length) return;
    const found = await this.state.deps.db.secret.findMany({ where: { name: { in: names } }, select: { name: true } });
    const missing = names.filter((n) => !found.some((f) => f.name === n));
    if (missing.length)
      throw new McpError(
        "INVALID_INPUT",
        `No secret is called ${missing.join(", ")}; add it in Settings › Secrets first`,
        missing.map((m) => ({ field: "secret", message: `No secret is called ${m}` })),
      );
  }

  /** Team ids (or names, resolved now) and "*" as the admin gave them: the ids to store. */
  private async teamListOf(refs: string[]): Promise<string[]> {
    const teams = await resolveTeamRefs(this.state.deps.db, refs);
    const problem = teamRefsProblem(teams);
    if (problem) throw new McpError("INVALID_INPUT", problem);
    return teams.ids;
  }

  private async audit(
    actor: Actor,
    channel: string,
    kind: string,
    subject: string,
    fromState: string | null,
    toState: string,
    detail: Record<string, unknown>,
  ) {
    await recordAudit(this.state.deps.db, {
      kind,
      actorId: actor.userId,
      actorName: actor.name,
      channel,
      subject,
      fromState,
      toState,
      detail,
    });
  }
}

/** The URL or the OAuth client changed, or OAuth was turned off: what Rein holds for the old one must not be used. */
function oauthChanged(before: HttpConfig, after: HttpConfig): boolean {
  if (!before.oauth) return false;
  return (
    before.url !== after.url ||
    !after.oauth ||
    before.oauth.clientId !== after.oauth.clientId ||
    before.oauth.authorizationServer !== after.oauth.authorizationServer ||
    before.oauth.clientSecret?.secret !== after.oauth.clientSecret?.secret
  );
}
