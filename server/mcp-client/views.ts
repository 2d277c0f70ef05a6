// What admins read about MCP servers (Settings › MCP servers, docs/mcp.md):
// each server with its health and tools, each tool with its scope, pin and
// any change waiting for review, and what the token budget leaves each agent.
import { teamNamesById, type Actor } from "@/server/identity";
import type { ReplayClass } from "@/server/tools";
import type { McpToolAnnotations } from "./annotations";
import type { McpServerInfo } from "./connection";
import { oauthView, type McpOAuthView } from "./oauth";
import { requireMcpAdmin } from "./errors";
import type { McpToolDefinition } from "./pin";
import { pinnedOf } from "./pinning";
import {
  DEFAULT_TOOL_TOKEN_BUDGET,
  serverNamed,
  storedJson,
  type LiveServer,
  type McpState,
  type McpToolState,
  type ServerHealth,
  type ToolRow,
} from "./state";
import { mcpToolDefinition } from "./tool";

export interface McpToolView {
  name: string;
  exposedName: string;
  policyName: string;
  state: McpToolState;
  /** In the registry now: agents in its scope get it. */
  live: boolean;
  title: string | null;
  description: string;
  inputSchema: unknown;
  annotations: McpToolAnnotations | null;
  replayClass: ReplayClass;
  replayOverride: ReplayClass | null;
  allowedAgents: string[];
  /** Team ids, "*" for any. */
  allowedTeams: string[];
  /** The scope's teams with their current names, to show. */
  teams: Array<{ id: string; name: string }>;
  tokens: number;
  pinnedHash: string;
  /** A definition the server reports that differs from the approved one. */
  change: { hash: string; definition: McpToolDefinition; pinned: McpToolDefinition } | null;
}

export interface McpServerView {
  name: string;
  transport: "stdio" | "http";
  enabled: boolean;
  health: ServerHealth;
  reason: string | null;
  stderrTail: string | null;
  info: McpServerInfo | null;
  lastSeenAt: string | null;
  createdAt: string;
  /** Secrets appear by name only. */
  config: { stdio?: unknown; http?: unknown; callTimeoutSec: number };
  toolCount: number;
  enabledCount: number;
  changedCount: number;
  enabledTokens: number;
  /** OAuth for a hosted server: whether Rein is authorized, by whom, until when; null without OAuth. */
  oauth: McpOAuthView | null;
  tools?: McpToolView[];
}

export interface McpBudgetView {
  tokens: number;
  default: number;
  agents: Array<{ agent: string; tools: number; tokens: number }>;
  overBudget: Array<{ agent: string; tools: number; tokens: number }>;
}

export async function listServers(state: McpState, actor: Actor): Promise<{ servers: McpServerView[]; budget: McpBudgetView }> {
  requireMcpAdmin(actor, "Reading MCP servers");
  const servers = [];
  for (const live of [...state.live.values()].sort((a, b) => a.name.localeCompare(b.name)))
    servers.push(await serverView(state, live, false));
  return { servers, budget: await budgetView(state) };
}

export async function getServer(state: McpState, actor: Actor, name: string): Promise<McpServerView> {
  requireMcpAdmin(actor, "Reading an MCP server");
  return serverView(state, serverNamed(state, name), true);
}

export async function serverTools(state: McpState, actor: Actor, name: string): Promise<McpToolView[]> {
  requireMcpAdmin(actor, "Reading an MCP server's tools");
  return toolsOf(state, serverNamed(state, name));
}

/** How many MCP tools wait for an admin's review (the Settings badge). */
export async function pendingReviews(state: McpState): Promise<number> {
  return state.deps.db.mcpTool.count({ where: { state: "changed" } });
}

async function budgetView(state: McpState): Promise<McpBudgetView> {
  const agents = await state.deps.db.agent
    .findMany({ where: { archivedAt: null }, select: { name: true } })
    .catch(() => [] as Array<{ name: string }>);
  const byAgent = agents
    .map((a) => {
      const mine = [...state.granted.values()].filter((g) => g.agents.includes("*") || g.agents.includes(a.name));
      return { agent: a.name, tools: mine.length, tokens: mine.reduce((s, g) => s + g.tokens, 0) };
    })
    .filter((a) => a.tools > 0)
    .sort((x, y) => y.tokens - x.tokens);
  return {
    tokens: state.budget,
    default: DEFAULT_TOOL_TOKEN_BUDGET,
    overBudget: byAgent.filter((a) => a.tokens > state.budget),
    agents: byAgent,
  };
}

export async function toolsOf(state: McpState, live: LiveServer): Promise<McpToolView[]> {
  const rows: ToolRow[] = await state.deps.db.mcpTool.findMany({ where: { serverId: live.id }, orderBy: { name: "asc" } });
  // Read fresh each time: a team can be renamed at any moment.
  const teamNames = await teamNamesById(
    state.deps.db,
    rows.flatMap((r) => storedJson<string[]>(r.allowedTeams, [])),
  );
  return rows.map((row) => {
    const def = storedJson<McpToolDefinition>(row.definition, { name: row.name });
    const pending = row.pendingDefinition ? storedJson<McpToolDefinition>(row.pendingDefinition, { name: row.name }) : null;
    const annotations = (def.annotations as McpToolAnnotations | undefined) ?? null;
    const pinned = pinnedOf(live, row);
    return {
      name: row.name,
      exposedName: row.exposedName,
      policyName: `mcp:${live.name}/${row.name}`,
      state: row.state as McpToolState,
      live: state.granted.has(row.exposedName),
      title: typeof def.title === "string" ? def.title : null,
      description: pinned.description,
      inputSchema: def.inputSchema ?? null,
      annotations,
      replayClass: mcpToolDefinition(pinned, async () => null).replayClass,
      replayOverride: (row.replayOverride as ReplayClass | null) ?? null,
      allowedAgents: storedJson<string[]>(row.allowedAgents, []),
      allowedTeams: storedJson<string[]>(row.allowedTeams, []),
      teams: storedJson<string[]>(row.allowedTeams, []).flatMap((id) => (teamNames.has(id) ? [{ id, name: teamNames.get(id)! }] : [])),
      tokens: row.tokens,
      pinnedHash: row.pinnedHash,
      change: pending ? { hash: row.pendingHash!, definition: pending, pinned: def } : null,
    };
  });
}

export async function serverView(state: McpState, live: LiveServer, withTools: boolean): Promise<McpServerView> {
  const row = await state.deps.db.mcpServer.findUnique({ where: { id: live.id } });
  const tools = await toolsOf(state, live);
  const { transport: _t, ...config } = live.config;
  return {
    name: live.name,
    transport: live.config.transport,
    enabled: live.enabled,
    health: live.health,
    reason: live.reason,
    stderrTail: live.health === "failed" ? live.stderrTail || row?.stderrTail || null : null,
    info: live.info ?? storedJson<McpServerInfo | null>(row?.serverInfo, null),
    lastSeenAt: row?.lastSeenAt?.toISOString() ?? null,
    createdAt: row?.createdAt.toISOString() ?? new Date().toISOString(),
    config: config as McpServerView["config"],
    toolCount: tools.length,
    enabledCount: tools.filter((t) => t.state === "enabled").length,
    changedCount: tools.filter((t) => t.state === "changed").length,
    enabledTokens: tools.filter((t) => t.state === "enabled").reduce((s, t) => s + t.tokens, 0),
    oauth: await oauthView(state, live),
    ...(withTools ? { tools } : {}),
  };
}
