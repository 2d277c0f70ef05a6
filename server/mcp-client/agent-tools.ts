// The MCP tools agents get (docs/mcp.md#tools-names-scope-and-policy): a
// server's enabled, pinned tools in the tool registry, the agents and teams
// each is given to, as many as fit an agent's token budget
// (docs/mcp.md#the-token-budget), and a call to one over its server's
// connection, checked again against the pin at the moment it is made.
import type { Actor } from "@/server/identity";
import { ToolError, type ToolContext } from "@/server/tools";
import { McpAnswerTooLarge, McpCallTimeout, describe as describeMcpError } from "./connection";
import type { ElicitCall } from "./elicit";
import { pinnedOf } from "./pinning";
import { McpTaskFailed, McpTaskNeedsInput, McpTaskUnsupported } from "./tasks";
import {
  DEFAULT_TOOL_TOKEN_BUDGET,
  TOKEN_BUDGET_SETTING,
  storedJson,
  type GrantedTool,
  type LiveServer,
  type McpState,
  type ToolRow,
} from "./state";
import { errorText, mcpToolDefinition, resultForAgent, type PinnedTool } from "./tool";

function inScope(granted: GrantedTool, agent: string, teamId: string | null | undefined): boolean {
  const agentOk = granted.agents.includes("*") || granted.agents.includes(agent);
  // Team scopes hold ids: a name can move to another team (docs/security.md#teams-are-referenced-by-id).
  const teamOk = granted.teams.includes("*") || (!!teamId && granted.teams.includes(teamId));
  return agentOk && teamOk;
}

export class McpAgentTools {
  constructor(
    private readonly state: McpState,
    /** Starts a server a call needs (connections.ts). */
    private readonly connect: (live: LiveServer) => Promise<void>,
  ) {}

  /** Puts the server's enabled tools into the registry and takes every other one of its tools out. */
  async sync(serverId: string) {
    const { deps, granted } = this.state;
    const live = [...this.state.live.values()].find((l) => l.id === serverId);
    const rows: ToolRow[] = await deps.db.mcpTool.findMany({ where: { serverId }, orderBy: { name: "asc" } });
    for (const row of rows) {
      const on = !!live && live.enabled && row.state === "enabled";
      const current = granted.get(row.exposedName);
      const signature = live
        ? [row.pinnedHash, row.replayOverride, row.allowedAgents, row.allowedTeams, live.config.callTimeoutSec].join("|")
        : "";
      if (on && current?.signature === signature) continue;
      if (current) {
        deps.registry.unregister(row.exposedName);
        granted.delete(row.exposedName);
      }
      if (!on || !live) continue;
      if (deps.registry.get(row.exposedName)) {
        deps.log.error(`the MCP tool ${row.name} of ${live.name} is not offered: another tool is already called ${row.exposedName}`);
        continue;
      }
      deps.registry.register(mcpToolDefinition(pinnedOf(live, row), (tool, args, ctx) => this.call(tool, args, ctx)));
      granted.set(row.exposedName, {
        exposedName: row.exposedName,
        server: live.name,
        signature,
        agents: storedJson(row.allowedAgents, []),
        teams: storedJson(row.allowedTeams, []),
        tokens: row.tokens,
      });
    }
  }

  /** Takes every tool of a server that is being removed out of the registry. */
  withdraw(server: string) {
    for (const [exposed, g] of this.state.granted) {
      if (g.server !== server) continue;
      this.state.deps.registry.unregister(exposed);
      this.state.granted.delete(exposed);
    }
  }

  /**
   * Exposed names of enabled tools no run of this person's teams could be
   * given: an admin limited them to other teams, so lists of tools leave out
   * their names and descriptions (docs/security.md#skill-and-tool-names).
   */
  hiddenToolNames(actor: Actor): Set<string> {
    if (actor.role === "admin") return new Set();
    const reaches = (g: GrantedTool) => g.teams.includes("*") || g.teams.some((t) => actor.teamIds.includes(t));
    return new Set([...this.state.granted.values()].filter((g) => !reaches(g)).map((g) => g.exposedName));
  }

  /**
   * The MCP tools a run's agent gets now: the enabled ones in scope for it
   * and its team, as many as fit the token budget. What does not fit is left
   * out and said so on the run's timeline, once, instead of silently.
   */
  toolsFor(run: { id: string; teamId: string | null }, spec: { name: string; tools: string[] }): string[] {
    const { deps, granted, budget, warned } = this.state;
    if (granted.size === 0) return [];
    // The tool's scope decides; an agent's spec naming the tool does not widen it (the call would be refused).
    const mine = [...granted.values()].filter((g) => inScope(g, spec.name, run.teamId));
    let used = 0;
    const given: string[] = [];
    const left: Array<{ tool: string; tokens: number }> = [];
    for (const g of mine) {
      if (used + g.tokens <= budget) {
        used += g.tokens;
        given.push(g.exposedName);
      } else left.push({ tool: g.exposedName, tokens: g.tokens });
    }
    if (left.length && !warned.has(run.id) && deps.warn) {
      warned.add(run.id);
      void deps
        .warn(run.id, { budget, used, given: given.length, left })
        .catch((err) => deps.log.error("the MCP token budget warning could not be recorded", err));
    }
    return given;
  }

  /** The budget an admin set, or the default. */
  async loadBudget() {
    const row = await this.state.deps.db.setting.findUnique({ where: { key: TOKEN_BUDGET_SETTING } }).catch(() => null);
    const value = row ? Number(JSON.parse(row.value)) : NaN;
    this.state.budget = Number.isInteger(value) && value > 0 ? value : DEFAULT_TOOL_TOKEN_BUDGET;
  }

  private async call(tool: PinnedTool, args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    const granted = this.state.granted.get(tool.exposedName);
    if (!granted)
      throw new ToolError(
        "MCP_TOOL_OFF",
        `The MCP tool ${tool.name} of ${tool.server} is turned off (an admin turned it off, or its definition changed and waits for review)`,
      );
    if (!inScope(granted, ctx.agent.name, ctx.teamId)) {
      throw new ToolError(
        "MCP_TOOL_NOT_IN_SCOPE",
        `The MCP tool ${tool.name} of ${tool.server} is not given to the agent ${ctx.agent.name} or its team; an admin can change that in Settings › MCP servers`,
      );
    }
    const live = this.state.live.get(tool.server);
    if (!live || !live.enabled) throw new ToolError("MCP_SERVER_OFF", `The MCP server ${tool.server} is turned off`);
    if (!live.connection) {
      try {
        await this.connect(live);
      } catch {
        throw new ToolError("MCP_SERVER_UNAVAILABLE", `The MCP server ${tool.server} is not running: ${live.reason ?? "it did not start"}`);
      }
    }
    const connection = live.connection;
    if (!connection)
      throw new ToolError("MCP_SERVER_UNAVAILABLE", `The MCP server ${tool.server} is not running: ${live.reason ?? "it stopped"}`);
    // The registry may have been changed under the call (a list_changed moments ago): check the pin again.
    if (this.state.granted.get(tool.exposedName)?.signature !== granted.signature)
      throw new ToolError("MCP_TOOL_OFF", `The MCP tool ${tool.name} of ${tool.server} was turned off a moment ago`);
    let result;
    try {
      const caller: ElicitCall = {
        runId: ctx.runId,
        toolCallId: ctx.toolCallId ?? "call",
        server: tool.server,
        tool: tool.name,
        exposedName: tool.exposedName,
        signal: ctx.signal,
      };
      result = await connection.callTool(tool.name, args, {
        signal: ctx.signal,
        maxMs: tool.callTimeoutMs,
        onProgress: ctx.progress,
        caller,
      });
    } catch (err) {
      const message = describeMcpError(err);
      if (ctx.signal.aborted) throw new ToolError("CANCELED", `The call to ${tool.name} was canceled; the server was told`);
      if (err instanceof McpCallTimeout) throw new ToolError("TIMEOUT", `${err.message}; the server was told to stop`);
      if (err instanceof McpTaskFailed) throw new ToolError("MCP_TOOL_ERROR", `${tool.server}'s task for ${tool.name} failed: ${message}`);
      if (err instanceof McpTaskNeedsInput) throw new ToolError("MCP_TASK_INPUT", `${tool.server}'s task for ${tool.name}: ${message}`);
      if (err instanceof McpTaskUnsupported) throw new ToolError("MCP_TASK_UNSUPPORTED", message);
      if (err instanceof McpAnswerTooLarge)
        throw new ToolError("MCP_ANSWER_TOO_LARGE", `${tool.server} answered ${tool.name} with more than Rein reads: ${message}`);
      if (live.connection !== connection || connection.lostReason)
        throw new ToolError(
          "MCP_SERVER_CRASHED",
          `The MCP server ${tool.server} stopped during the call: ${connection.lostReason ?? message}`,
        );
      throw new ToolError("MCP_ERROR", `${tool.server} refused the call to ${tool.name}: ${message}`);
    }
    if (result.isError) throw new ToolError("MCP_TOOL_ERROR", errorText(result as { content?: unknown[] }));
    return resultForAgent(result as { content?: unknown[]; structuredContent?: unknown });
  }
}
