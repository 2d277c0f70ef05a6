// What Rein holds about its MCP servers while it runs (docs/mcp.md): each
// attached server as it is now (config, health, connection), the tools it has
// in the tool registry, and the token budget. McpServers makes one of these
// and hands it to the parts it composes: the connections, the agents' tools,
// and the admin operations and views.
import type { Db } from "@/server/db";
import type { RunEventPayloads } from "@/server/kernel";
import type { SecretKeyring } from "@/server/secrets";
import type { ToolRegistry } from "@/server/tools";
import type { McpConnection, McpServerInfo } from "./connection";
import type { McpElicitations } from "./elicit";
import { McpError } from "./errors";
import { OAuthRecords } from "./oauth-store";
import type { McpServerConfig } from "./input";

/** What the definitions of the MCP tools one agent gets may cost in its context, by default (Settings › MCP servers). */
export const DEFAULT_TOOL_TOKEN_BUDGET = 12_000;
export const TOKEN_BUDGET_SETTING = "mcp.toolTokenBudget";

export type ServerHealth = "starting" | "ready" | "failed" | "stopped";
export type McpToolState = "enabled" | "disabled" | "changed" | "removed";

interface Log {
  info(message: string): void;
  error(message: string, err?: unknown): void;
}

export interface McpDeps {
  db: Db;
  registry: ToolRegistry;
  dataDir: string;
  keyring?: SecretKeyring;
  /** Learns the values of the secrets a server is given, so they are redacted from what its tools return and from its stderr. */
  secrets?: { remember(values: Array<{ name: string; value: string }>): void; text(text: string): string };
  /** Rein's node_modules (bundled servers start from it). */
  packagesDir?: string;
  /** A run's events: the warning that its agent's MCP tools did not fit their token budget. */
  warn?: (runId: string, payload: RunEventPayloads["mcp.tools_omitted"]) => Promise<void>;
  log: Log;
  connectTimeoutMs?: number;
  /** A server asking a person during a call becomes a human request; absent: Rein does not offer elicitation. */
  elicitations?: Pick<McpElicitations, "ask">;
  /** Rein's address as browsers reach it: where an authorization server sends an admin back (docs/mcp.md#oauth). */
  publicUrl?: string;
}

/** One of a server's tools as the database keeps it. */
export interface ToolRow {
  id: string;
  serverId: string;
  name: string;
  exposedName: string;
  definition: string;
  pinnedHash: string;
  pendingDefinition: string | null;
  pendingHash: string | null;
  state: string;
  replayOverride: string | null;
  allowedAgents: string;
  allowedTeams: string;
  tokens: number;
}

/** An attached server as it is now. */
export interface LiveServer {
  id: string;
  name: string;
  config: McpServerConfig;
  enabled: boolean;
  health: ServerHealth;
  reason: string | null;
  stderrTail: string;
  info: McpServerInfo | null;
  connection: McpConnection | null;
  starting: Promise<void> | null;
  /** Another list_changed arrived while one was being read. */
  relist: boolean;
}

/** An enabled tool in the tool registry. */
export interface GrantedTool {
  exposedName: string;
  server: string;
  /** The pinned definition and settings it was registered with; the same again is left as it is. */
  signature: string;
  agents: string[];
  teams: string[];
  tokens: number;
}

export interface McpState {
  readonly deps: McpDeps;
  /** Attached servers, by name. */
  readonly live: Map<string, LiveServer>;
  /** Enabled tools in the registry, by exposed name. */
  readonly granted: Map<string, GrantedTool>;
  budget: number;
  /** Runs already told that their agent's MCP tools did not fit the budget. */
  readonly warned: Set<string>;
  stopped: boolean;
  /** The servers' OAuth authorizations, sealed (docs/mcp.md#oauth). */
  readonly oauth: OAuthRecords;
}

export function mcpState(deps: McpDeps): McpState {
  return {
    deps,
    live: new Map(),
    granted: new Map(),
    budget: DEFAULT_TOOL_TOKEN_BUDGET,
    warned: new Set(),
    stopped: false,
    oauth: new OAuthRecords(deps.db, deps.keyring),
  };
}

export function serverNamed(state: McpState, name: string): LiveServer {
  const live = state.live.get(name);
  if (!live) throw new McpError("NOT_FOUND", `There is no MCP server named ${name}`);
  return live;
}

/** A JSON column's value, or the fallback when it is empty or not JSON. */
export const storedJson = <T>(text: string | null | undefined, fallback: T): T => {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};
