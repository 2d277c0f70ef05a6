// MCP servers (docs/mcp.md, issue 18): admins attach them; Rein starts
// each (stdio in the sandbox, or over Streamable HTTP), keeps its health, pins
// every tool's definition, and puts the tools an admin enabled into the tool
// registry for the agents and teams in their scope. A server whose tool
// definitions change has those tools taken off until an admin reviews the
// difference; nothing a server says reaches a model unreviewed.
import { DomainError, issuesOf } from "@/server/errors";
import path from "node:path";
import type { Tool } from "@modelcontextprotocol/client";
import type { Db } from "@/server/db";
import { recordAudit } from "@/server/audit";
import { resolveTeamRefs, teamNamesById, teamRefsProblem, type Actor } from "@/server/identity";
import type { RunEventPayloads } from "@/server/kernel";
import { getSecretValue, type SecretKeyring } from "@/server/secrets";
import { ToolError, type ReplayClass, type ToolContext, type ToolRegistry } from "@/server/tools";
import {
  McpCallTimeout,
  McpAnswerTooLarge,
  McpConnection,
  McpConnectError,
  describe as describeMcpError,
  type McpLaunch,
  type McpServerInfo,
} from "./connection";
import { McpNameError, McpNameTable, mcpToolName } from "./names";
import { canonicalJson as canonicalMcpJson, definitionHash, type McpToolDefinition } from "./pin";
import { killLeftoverServers } from "./stdio";
import type { McpToolAnnotations } from "./annotations";
import { AddMcpServerInput, SetMcpToolInput, UpdateMcpServerInput, secretsNamed, type McpServerConfig } from "./input";
import { errorText, mcpToolDefinition, resultForAgent, type PinnedTool } from "./tool";
import type { ElicitCall, McpElicitations } from "./elicit";

export type McpErrorCode = "NOT_FOUND" | "FORBIDDEN" | "INVALID_INPUT" | "CONFLICT" | "UNAVAILABLE";

export class McpError extends DomainError {
  constructor(
    code: McpErrorCode,
    message: string,
    public readonly problems?: Array<{ field: string; message: string }>,
  ) {
    super(code, message, issuesOf(problems));
    this.name = "McpError";
  }
}

/** What the definitions of the MCP tools one agent gets may cost in its context, by default (Settings › MCP servers). */
export const DEFAULT_TOOL_TOKEN_BUDGET = 12_000;
export const TOKEN_BUDGET_SETTING = "mcp.toolTokenBudget";
/** The bundled demo server (works offline): the MCP project's own "everything" server. */
export const DEMO_SERVER_NAME = "everything";
const DEMO_SERVER_ENTRY = "@modelcontextprotocol/server-everything/dist/index.js";

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
}

interface ToolRow {
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

interface Live {
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

interface Granted {
  exposedName: string;
  server: string;
  /** The pinned definition and settings it was registered with; the same again is left as it is. */
  signature: string;
  agents: string[];
  teams: string[];
  tokens: number;
}

const json = <T>(text: string | null | undefined, fallback: T): T => {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

/** Tokens a definition costs a model, estimated as the JSON a provider is sent / 4. */
export function definitionTokens(def: { name: string; description?: string; inputSchema?: unknown }): number {
  return Math.ceil(JSON.stringify({ name: def.name, description: def.description ?? "", parameters: def.inputSchema ?? {} }).length / 4);
}

/** The part of a server's tool that is pinned: what the model is told, and its annotations. */
function definitionOf(tool: Tool): McpToolDefinition {
  return {
    name: tool.name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
  };
}

export function requireMcpAdmin(actor: Actor, what: string) {
  if (actor.role !== "admin") throw new McpError("FORBIDDEN", `${what} needs the admin role; you are ${actor.role}`);
}

function parseInput<T>(
  schema: {
    safeParse(
      v: unknown,
    ): { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
  },
  input: unknown,
): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => ({ field: i.path.map(String).join(".") || "(input)", message: i.message }));
  throw new McpError("INVALID_INPUT", problems.map((p) => `${p.field}: ${p.message}`).join("; "), problems);
}

export class McpServers {
  private readonly live = new Map<string, Live>();
  /** Enabled tools in the registry, by exposed name. */
  private readonly granted = new Map<string, Granted>();
  private budget = DEFAULT_TOOL_TOKEN_BUDGET;
  private readonly warned = new Set<string>();
  private stopped = false;

  constructor(private readonly deps: McpDeps) {}

  private get pidDir() {
    return path.join(this.deps.dataDir, "mcp", "pids");
  }

  /** Kills what a killed Rein left running, then starts every enabled server (without waiting for them). */
  async start(): Promise<{ servers: number; leftovers: number }> {
    const leftovers = killLeftoverServers(this.pidDir);
    await this.loadBudget();
    const rows = await this.deps.db.mcpServer.findMany({ orderBy: { name: "asc" } });
    for (const row of rows) {
      const live = this.track(row);
      // The pinned, enabled tools are offered from the start; a call waits for its server.
      await this.syncRegistry(live.id);
      if (live.enabled) void this.connect(live).catch(() => {});
    }
    return { servers: rows.length, leftovers };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.live.values()].map((l) => this.disconnect(l)));
  }

  private track(row: { id: string; name: string; transport: string; config: string; enabled: boolean }): Live {
    const live: Live = {
      id: row.id,
      name: row.name,
      config: { transport: row.transport, ...json(row.config, {}) } as McpServerConfig,
      enabled: row.enabled,
      health: "stopped",
      reason: null,
      stderrTail: "",
      info: null,
      connection: null,
      starting: null,
      relist: false,
    };
    this.live.set(row.name, live);
    return live;
  }

  private liveOf(name: string): Live {
    const live = this.live.get(name);
    if (!live) throw new McpError("NOT_FOUND", `There is no MCP server named ${name}`);
    return live;
  }

  // ---- the connection -------------------------------------------------------

  private async launchOf(live: Live): Promise<McpLaunch> {
    const values = new Map<string, string>();
    for (const name of secretsNamed(live.config)) {
      if (!this.deps.keyring) throw new Error(`the secret ${name} cannot be opened: this server has no secret key`);
      try {
        values.set(name, await getSecretValue(this.deps.db, this.deps.keyring, name));
      } catch {
        throw new Error(`the secret ${name} does not exist; add it in Settings › Secrets`);
      }
    }
    this.deps.secrets?.remember([...values].map(([name, value]) => ({ name, value })));
    const resolve = (v: { secret: string } | { value: string }) => ("secret" in v ? values.get(v.secret)! : v.value);
    if (live.config.transport === "http") {
      return {
        transport: "http",
        url: live.config.http.url,
        headers: Object.fromEntries(Object.entries(live.config.http.headers).map(([k, v]) => [k, resolve(v)])),
      };
    }
    const { stdio } = live.config;
    return {
      transport: "stdio",
      command: stdio.command,
      args: stdio.args,
      env: Object.fromEntries(Object.entries(stdio.env).map(([k, v]) => [k, resolve(v)])),
      dir: path.join(this.deps.dataDir, "mcp", "servers", live.name),
      network: stdio.network,
      packages: this.deps.packagesDir ?? path.resolve("node_modules"),
      pidFile: path.join(this.pidDir, `${live.name}.pid`),
    };
  }

  /** Starts the server (once at a time) and reads its tools. */
  private connect(live: Live): Promise<void> {
    if (live.starting) return live.starting;
    if (live.connection && live.health === "ready") return Promise.resolve();
    live.starting = this.doConnect(live).finally(() => (live.starting = null));
    return live.starting;
  }

  private async doConnect(live: Live): Promise<void> {
    await this.setHealth(live, "starting", null);
    let connection: McpConnection | null = null;
    try {
      const launch = await this.launchOf(live);
      const elicitations = this.deps.elicitations;
      connection = new McpConnection(launch, {
        onToolsChanged: () => void this.relist(live, connection!),
        onLost: (why) => void this.lost(live, connection!, why),
        ...(elicitations
          ? {
              onElicit: async (params, signal, callers) => {
                // The protocol does not say which call asks: with more than one in flight, nobody can be asked safely.
                const calls = callers.filter((c): c is ElicitCall => !!c);
                if (calls.length !== 1) {
                  this.deps.log.error(
                    `the MCP server ${live.name} asked a person something while ${calls.length} calls were in flight; declined`,
                  );
                  return { action: "decline" };
                }
                return elicitations.ask({ ...calls[0], signal: AbortSignal.any([signal, calls[0].signal]) }, params);
              },
            }
          : {}),
      });
      live.info = await connection.connect(this.deps.connectTimeoutMs);
      if (this.stopped || this.live.get(live.name) !== live || !live.enabled) {
        await connection.close();
        return;
      }
      live.connection = connection;
      await this.readTools(live, connection);
      await this.setHealth(live, "ready", null);
    } catch (err) {
      const tail = err instanceof McpConnectError ? err.stderrTail : (connection?.stderrTail ?? "");
      live.stderrTail = this.redact(tail);
      if (connection && live.connection === connection) live.connection = null;
      await connection?.close();
      await this.setHealth(live, "failed", this.redact(describeMcpError(err)));
      this.deps.log.error(`the MCP server ${live.name} could not start: ${live.reason}`);
      throw err;
    }
  }

  private async lost(live: Live, connection: McpConnection, why: string) {
    if (live.connection !== connection) return;
    live.connection = null;
    live.stderrTail = this.redact(connection.stderrTail);
    await connection.close();
    await this.setHealth(live, "failed", this.redact(`The server stopped: ${why}`)).catch(() => {});
  }

  private async disconnect(live: Live) {
    const connection = live.connection;
    live.connection = null;
    await live.starting?.catch(() => {});
    await connection?.close();
    // A start that was under way finished meanwhile: close what it opened.
    const late = live.connection as McpConnection | null;
    live.connection = null;
    await late?.close();
  }

  private redact(text: string): string {
    return this.deps.secrets ? this.deps.secrets.text(text) : text;
  }

  private async setHealth(live: Live, health: ServerHealth, reason: string | null) {
    live.health = health;
    live.reason = reason;
    await this.deps.db.mcpServer
      .update({
        where: { id: live.id },
        data: {
          state: health,
          stateReason: reason,
          stderrTail: health === "failed" ? live.stderrTail.slice(-8192) || null : null,
          ...(health === "ready" ? { lastSeenAt: new Date(), serverInfo: JSON.stringify(live.info) } : {}),
        },
      })
      .catch(() => {}); // removed meanwhile
  }

  private async relist(live: Live, connection: McpConnection) {
    if (live.connection !== connection) return;
    if (live.starting) {
      live.relist = true;
      return;
    }
    try {
      await this.readTools(live, connection);
    } catch (err) {
      this.deps.log.error(`the MCP server ${live.name}'s new tool list could not be read`, err);
    }
  }

  /**
   * The server's tool list against the pinned one: a new tool is stored off;
   * a tool whose definition changed is taken off (state "changed") until an
   * admin reviews it; a tool the server no longer lists is "removed".
   */
  private async readTools(live: Live, connection: McpConnection): Promise<void> {
    do {
      live.relist = false;
      const tools = await connection.listTools();
      await this.pinTools(live, tools);
    } while (live.relist && live.connection === connection);
  }

  private async pinTools(live: Live, tools: Tool[]) {
    const db = this.deps.db;
    const rows: ToolRow[] = await db.mcpTool.findMany({ where: { serverId: live.id } });
    const byName = new Map(rows.map((r) => [r.name, r]));
    const seen = new Set<string>();
    for (const tool of tools) {
      if (typeof tool.name !== "string" || !tool.name || tool.name.length > 128 || seen.has(tool.name)) continue;
      seen.add(tool.name);
      let def: McpToolDefinition;
      let hash: string;
      let canonical: string;
      try {
        def = definitionOf(tool);
        canonical = canonicalMcpJson(def);
        hash = definitionHash(def);
      } catch (err) {
        this.deps.log.error(`the MCP server ${live.name}'s tool ${tool.name.slice(0, 64)} is refused: ${(err as Error).message}`);
        continue;
      }
      const tokens = definitionTokens(def);
      const row = byName.get(tool.name);
      if (!row) {
        await db.mcpTool.create({
          data: {
            serverId: live.id,
            name: tool.name,
            exposedName: mcpToolName(live.name, tool.name),
            definition: canonical,
            pinnedHash: hash,
            state: "disabled",
            tokens,
          },
        });
        continue;
      }
      if (row.pinnedHash === hash) {
        if (row.pendingHash || row.state === "removed") {
          const state = row.state === "removed" ? "disabled" : row.state === "changed" ? "enabled" : row.state;
          await db.mcpTool.update({ where: { id: row.id }, data: { pendingDefinition: null, pendingHash: null, state } });
        }
        continue;
      }
      if (row.state === "enabled" || row.state === "changed") {
        // The rug pull: an approved tool now says something else. Off until reviewed.
        if (row.pendingHash === hash) continue;
        await db.mcpTool.update({ where: { id: row.id }, data: { state: "changed", pendingDefinition: canonical, pendingHash: hash } });
        await recordAudit(db, {
          kind: "mcp.tool.changed",
          actorId: "system",
          actorName: "Rein",
          channel: "kernel",
          subject: `mcp:${live.name}/${tool.name}`,
          fromState: row.state,
          toState: "changed",
          detail: { server: live.name, tool: tool.name, pinnedHash: row.pinnedHash, newHash: hash },
        });
        this.deps.log.info(`  MCP: the tool ${tool.name} of ${live.name} changed its definition; it is off until an admin reviews it`);
      } else {
        // Never approved: nothing to protect; the stored definition follows the server.
        await db.mcpTool.update({
          where: { id: row.id },
          data: { definition: canonical, pinnedHash: hash, pendingDefinition: null, pendingHash: null, tokens, state: "disabled" },
        });
      }
    }
    for (const row of rows) {
      if (!seen.has(row.name) && row.state !== "removed") await db.mcpTool.update({ where: { id: row.id }, data: { state: "removed" } });
    }
    await this.syncRegistry(live.id);
  }

  // ---- the registry -----------------------------------------------------------

  /** Puts the server's enabled tools into the registry and takes every other one of its tools out. */
  private async syncRegistry(serverId: string) {
    const live = [...this.live.values()].find((l) => l.id === serverId);
    const rows: ToolRow[] = await this.deps.db.mcpTool.findMany({ where: { serverId }, orderBy: { name: "asc" } });
    for (const row of rows) {
      const on = !!live && live.enabled && row.state === "enabled";
      const current = this.granted.get(row.exposedName);
      const signature = live
        ? [row.pinnedHash, row.replayOverride, row.allowedAgents, row.allowedTeams, live.config.callTimeoutSec].join("|")
        : "";
      if (on && current?.signature === signature) continue;
      if (current) {
        this.deps.registry.unregister(row.exposedName);
        this.granted.delete(row.exposedName);
      }
      if (!on || !live) continue;
      if (this.deps.registry.get(row.exposedName)) {
        this.deps.log.error(`the MCP tool ${row.name} of ${live.name} is not offered: another tool is already called ${row.exposedName}`);
        continue;
      }
      this.deps.registry.register(mcpToolDefinition(this.pinnedOf(live, row), (tool, args, ctx) => this.call(tool, args, ctx)));
      this.granted.set(row.exposedName, {
        exposedName: row.exposedName,
        server: live.name,
        signature,
        agents: json(row.allowedAgents, []),
        teams: json(row.allowedTeams, []),
        tokens: row.tokens,
      });
    }
  }

  private pinnedOf(live: Live, row: ToolRow): PinnedTool {
    const def = json<McpToolDefinition>(row.definition, { name: row.name });
    const schema =
      def.inputSchema && typeof def.inputSchema === "object" ? (def.inputSchema as Record<string, unknown>) : { type: "object" };
    return {
      server: live.name,
      name: row.name,
      exposedName: row.exposedName,
      description: typeof def.description === "string" ? def.description : "",
      inputSchema: schema,
      annotations: (def.annotations as McpToolAnnotations | undefined) ?? null,
      replayOverride: (row.replayOverride as ReplayClass | null) ?? null,
      callTimeoutMs: live.config.callTimeoutSec * 1000,
    };
  }

  private inScope(granted: Granted, agent: string, teamId: string | null | undefined): boolean {
    const agentOk = granted.agents.includes("*") || granted.agents.includes(agent);
    // Team scopes hold ids: a name can move to another team (docs/security.md#teams-are-referenced-by-id).
    const teamOk = granted.teams.includes("*") || (!!teamId && granted.teams.includes(teamId));
    return agentOk && teamOk;
  }

  /**
   * Exposed names of enabled tools no run of this person's teams could be
   * given: an admin limited them to other teams, so lists of tools leave out
   * their names and descriptions (docs/security.md#skill-and-tool-names).
   */
  hiddenToolNames(actor: Actor): Set<string> {
    if (actor.role === "admin") return new Set();
    const reaches = (g: Granted) => g.teams.includes("*") || g.teams.some((t) => actor.teamIds.includes(t));
    return new Set([...this.granted.values()].filter((g) => !reaches(g)).map((g) => g.exposedName));
  }

  /**
   * The MCP tools a run's agent gets now: the enabled ones in scope for it
   * and its team, as many as fit the token budget. What does not fit is left
   * out and said so on the run's timeline, once, instead of silently.
   */
  toolsFor(run: { id: string; teamId: string | null }, spec: { name: string; tools: string[] }): string[] {
    if (this.granted.size === 0) return [];
    // The tool's scope decides; an agent's spec naming the tool does not widen it (the call would be refused).
    const mine = [...this.granted.values()].filter((g) => this.inScope(g, spec.name, run.teamId));
    let used = 0;
    const given: string[] = [];
    const left: Array<{ tool: string; tokens: number }> = [];
    for (const g of mine) {
      if (used + g.tokens <= this.budget) {
        used += g.tokens;
        given.push(g.exposedName);
      } else left.push({ tool: g.exposedName, tokens: g.tokens });
    }
    if (left.length && !this.warned.has(run.id) && this.deps.warn) {
      this.warned.add(run.id);
      void this.deps
        .warn(run.id, { budget: this.budget, used, given: given.length, left })
        .catch((err) => this.deps.log.error("the MCP token budget warning could not be recorded", err));
    }
    return given;
  }

  private async loadBudget() {
    const row = await this.deps.db.setting.findUnique({ where: { key: TOKEN_BUDGET_SETTING } }).catch(() => null);
    const value = row ? Number(JSON.parse(row.value)) : NaN;
    this.budget = Number.isInteger(value) && value > 0 ? value : DEFAULT_TOOL_TOKEN_BUDGET;
  }

  // ---- calls --------------------------------------------------------------------

  private async call(tool: PinnedTool, args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    const granted = this.granted.get(tool.exposedName);
    if (!granted)
      throw new ToolError(
        "MCP_TOOL_OFF",
        `The MCP tool ${tool.name} of ${tool.server} is turned off (an admin turned it off, or its definition changed and waits for review)`,
      );
    if (!this.inScope(granted, ctx.agent.name, ctx.teamId)) {
      throw new ToolError(
        "MCP_TOOL_NOT_IN_SCOPE",
        `The MCP tool ${tool.name} of ${tool.server} is not given to the agent ${ctx.agent.name} or its team; an admin can change that in Settings › MCP servers`,
      );
    }
    const live = this.live.get(tool.server);
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
    if (this.granted.get(tool.exposedName)?.signature !== granted.signature)
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

  // ---- what admins do -------------------------------------------------------------

  async add(actor: Actor, input: unknown, channel = "admin"): Promise<McpServerView> {
    requireMcpAdmin(actor, "Adding an MCP server");
    const data = parseInput(AddMcpServerInput, input);
    if (this.live.has(data.name) || (await this.deps.db.mcpServer.findUnique({ where: { name: data.name } })))
      throw new McpError("CONFLICT", `There is already an MCP server named ${data.name}`);
    const config =
      data.transport === "stdio"
        ? { stdio: data.stdio, callTimeoutSec: data.callTimeoutSec }
        : { http: data.http, callTimeoutSec: data.callTimeoutSec };
    await this.checkSecrets({ transport: data.transport, ...config } as McpServerConfig);
    const row = await this.deps.db.mcpServer.create({
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
    const live = this.track(row);
    if (live.enabled) await this.connect(live).catch(() => {});
    return this.get(actor, data.name);
  }

  /** The bundled demo server, which needs no network: the MCP project's "everything" server. */
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
    const live = this.liveOf(name);
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
    const { transport: _t, ...stored } = config;
    await this.deps.db.mcpServer.update({ where: { id: live.id }, data: { config: JSON.stringify(stored), enabled } });
    await this.audit(actor, channel, "mcp.server.updated", name, live.enabled ? "enabled" : "disabled", enabled ? "enabled" : "disabled", {
      changed: Object.keys(data),
    });
    live.config = config;
    live.enabled = enabled;
    await this.disconnect(live);
    await this.setHealth(live, "stopped", enabled ? null : "Turned off by an admin");
    await this.syncRegistry(live.id);
    if (enabled) await this.connect(live).catch(() => {});
    return this.get(actor, name);
  }

  async remove(actor: Actor, name: string, channel = "admin"): Promise<void> {
    requireMcpAdmin(actor, "Removing an MCP server");
    const live = this.liveOf(name);
    this.live.delete(name);
    live.enabled = false;
    await this.disconnect(live);
    for (const [exposed, g] of this.granted) {
      if (g.server !== name) continue;
      this.deps.registry.unregister(exposed);
      this.granted.delete(exposed);
    }
    await this.deps.db.mcpServer.delete({ where: { id: live.id } });
    await this.audit(actor, channel, "mcp.server.removed", name, "enabled", "removed", {});
  }

  /** Restarts the server now and reports how it went (the page's "Test" button). */
  async test(actor: Actor, name: string): Promise<McpServerView> {
    requireMcpAdmin(actor, "Testing an MCP server");
    const live = this.liveOf(name);
    if (!live.enabled) throw new McpError("CONFLICT", `The MCP server ${name} is turned off; turn it on to test it`);
    await this.disconnect(live);
    await this.connect(live).catch(() => {});
    return this.get(actor, name);
  }

  async setTool(actor: Actor, server: string, tool: string, input: unknown, channel = "admin"): Promise<McpToolView> {
    requireMcpAdmin(actor, "Changing an MCP tool");
    const live = this.liveOf(server);
    const data = parseInput(SetMcpToolInput, input);
    const row = await this.toolRow(live, tool);
    if (data.enabled && row.state === "changed")
      throw new McpError("CONFLICT", `The tool ${tool} changed its definition since it was approved; review the difference first`);
    if (data.enabled && row.state === "removed") throw new McpError("CONFLICT", `The server no longer offers ${tool}`);
    const teams = data.allowedTeams ? await this.teamListOf(data.allowedTeams) : undefined;
    const agents = data.allowedAgents;
    let allowedAgents = agents ?? json<string[]>(row.allowedAgents, []);
    let allowedTeams = teams ?? json<string[]>(row.allowedTeams, []);
    // Turned on with a list nobody filled in: everyone on that side, as the page says; the admin narrows it.
    if (data.enabled && !agents && !allowedAgents.length) allowedAgents = ["*"];
    if (data.enabled && !teams && !allowedTeams.length) allowedTeams = ["*"];
    if (data.enabled) {
      const table = new McpNameTable((n) => !this.granted.has(n) && !!this.deps.registry.get(n));
      try {
        table.add(server, tool);
      } catch (err) {
        if (err instanceof McpNameError) throw new McpError("CONFLICT", err.message);
        throw err;
      }
    }
    const state = data.enabled === undefined ? row.state : data.enabled ? "enabled" : row.state === "enabled" ? "disabled" : row.state;
    await this.deps.db.mcpTool.update({
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
    await this.syncRegistry(live.id);
    return (await this.toolsOf(live)).find((t) => t.name === tool)!;
  }

  /** An admin's answer to a changed definition: accept pins the new one (the tool is on again), reject keeps it off. */
  async review(actor: Actor, server: string, tool: string, accept: boolean, channel = "admin"): Promise<McpToolView> {
    requireMcpAdmin(actor, "Reviewing an MCP tool");
    const live = this.liveOf(server);
    const row = await this.toolRow(live, tool);
    if (row.state !== "changed" || !row.pendingDefinition || !row.pendingHash)
      throw new McpError("CONFLICT", `The tool ${tool} has no change waiting for review`);
    const def = json<McpToolDefinition>(row.pendingDefinition, { name: tool });
    const moved = await this.deps.db.mcpTool.updateMany({
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
    await this.syncRegistry(live.id);
    return (await this.toolsOf(live)).find((t) => t.name === tool)!;
  }

  async setTokenBudget(actor: Actor, tokens: number, channel = "admin"): Promise<number> {
    requireMcpAdmin(actor, "Changing the MCP token budget");
    if (!Number.isInteger(tokens) || tokens < 500 || tokens > 500_000)
      throw new McpError("INVALID_INPUT", "The budget is a whole number of tokens from 500 to 500,000");
    await this.deps.db.setting.upsert({
      where: { key: TOKEN_BUDGET_SETTING },
      create: { key: TOKEN_BUDGET_SETTING, value: JSON.stringify(tokens) },
      update: { value: JSON.stringify(tokens) },
    });
    await this.audit(actor, channel, "mcp.budget.updated", TOKEN_BUDGET_SETTING, String(this.budget), String(tokens), {});
    this.budget = tokens;
    this.warned.clear();
    return tokens;
  }

  // ---- what people read --------------------------------------------------------------

  async list(actor: Actor): Promise<{ servers: McpServerView[]; budget: McpBudgetView }> {
    requireMcpAdmin(actor, "Reading MCP servers");
    const servers = [];
    for (const live of [...this.live.values()].sort((a, b) => a.name.localeCompare(b.name))) servers.push(await this.viewOf(live, false));
    return { servers, budget: await this.budgetView() };
  }

  async get(actor: Actor, name: string): Promise<McpServerView> {
    requireMcpAdmin(actor, "Reading an MCP server");
    return this.viewOf(this.liveOf(name), true);
  }

  async tools(actor: Actor, name: string): Promise<McpToolView[]> {
    requireMcpAdmin(actor, "Reading an MCP server's tools");
    return this.toolsOf(this.liveOf(name));
  }

  /** How many MCP tools wait for an admin's review (the Settings badge). */
  async pendingReviews(): Promise<number> {
    return this.deps.db.mcpTool.count({ where: { state: "changed" } });
  }

  private async budgetView(): Promise<McpBudgetView> {
    const agents = await this.deps.db.agent
      .findMany({ where: { archivedAt: null }, select: { name: true } })
      .catch(() => [] as Array<{ name: string }>);
    const byAgent = agents
      .map((a) => {
        const mine = [...this.granted.values()].filter((g) => g.agents.includes("*") || g.agents.includes(a.name));
        return { agent: a.name, tools: mine.length, tokens: mine.reduce((s, g) => s + g.tokens, 0) };
      })
      .filter((a) => a.tools > 0)
      .sort((x, y) => y.tokens - x.tokens);
    return {
      tokens: this.budget,
      default: DEFAULT_TOOL_TOKEN_BUDGET,
      overBudget: byAgent.filter((a) => a.tokens > this.budget),
      agents: byAgent,
    };
  }

  private async toolRow(live: Live, tool: string): Promise<ToolRow> {
    const row = await this.deps.db.mcpTool.findUnique({ where: { serverId_name: { serverId: live.id, name: tool } } });
    if (!row) throw new McpError("NOT_FOUND", `The MCP server ${live.name} has no tool named ${tool}`);
    return row;
  }

  private async toolsOf(live: Live): Promise<McpToolView[]> {
    const rows: ToolRow[] = await this.deps.db.mcpTool.findMany({ where: { serverId: live.id }, orderBy: { name: "asc" } });
    // Read fresh each time: a team can be renamed at any moment.
    const teamNames = await teamNamesById(
      this.deps.db,
      rows.flatMap((r) => json<string[]>(r.allowedTeams, [])),
    );
    return rows.map((row) => {
      const def = json<McpToolDefinition>(row.definition, { name: row.name });
      const pending = row.pendingDefinition ? json<McpToolDefinition>(row.pendingDefinition, { name: row.name }) : null;
      const annotations = (def.annotations as McpToolAnnotations | undefined) ?? null;
      const pinned = this.pinnedOf(live, row);
      return {
        name: row.name,
        exposedName: row.exposedName,
        policyName: `mcp:${live.name}/${row.name}`,
        state: row.state as McpToolState,
        live: this.granted.has(row.exposedName),
        title: typeof def.title === "string" ? def.title : null,
        description: pinned.description,
        inputSchema: def.inputSchema ?? null,
        annotations,
        replayClass: mcpToolDefinition(pinned, async () => null).replayClass,
        replayOverride: (row.replayOverride as ReplayClass | null) ?? null,
        allowedAgents: json<string[]>(row.allowedAgents, []),
        allowedTeams: json<string[]>(row.allowedTeams, []),
        teams: json<string[]>(row.allowedTeams, []).flatMap((id) => (teamNames.has(id) ? [{ id, name: teamNames.get(id)! }] : [])),
        tokens: row.tokens,
        pinnedHash: row.pinnedHash,
        change: pending ? { hash: row.pendingHash!, definition: pending, pinned: def } : null,
      };
    });
  }

  private async viewOf(live: Live, withTools: boolean): Promise<McpServerView> {
    const row = await this.deps.db.mcpServer.findUnique({ where: { id: live.id } });
    const tools = await this.toolsOf(live);
    const { transport: _t, ...config } = live.config;
    return {
      name: live.name,
      transport: live.config.transport,
      enabled: live.enabled,
      health: live.health,
      reason: live.reason,
      stderrTail: live.health === "failed" ? live.stderrTail || row?.stderrTail || null : null,
      info: live.info ?? json<McpServerInfo | null>(row?.serverInfo, null),
      lastSeenAt: row?.lastSeenAt?.toISOString() ?? null,
      createdAt: row?.createdAt.toISOString() ?? new Date().toISOString(),
      config: config as McpServerView["config"],
      toolCount: tools.length,
      enabledCount: tools.filter((t) => t.state === "enabled").length,
      changedCount: tools.filter((t) => t.state === "changed").length,
      enabledTokens: tools.filter((t) => t.state === "enabled").reduce((s, t) => s + t.tokens, 0),
      ...(withTools ? { tools } : {}),
    };
  }

  private async checkSecrets(config: McpServerConfig) {
    const names = secretsNamed(config);
    if (!names.length) return;
    const found = await this.deps.db.secret.findMany({ where: { name: { in: names } }, select: { name: true } });
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
    const teams = await resolveTeamRefs(this.deps.db, refs);
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
    await recordAudit(this.deps.db, { kind, actorId: actor.userId, actorName: actor.name, channel, subject, fromState, toState, detail });
  }
}

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
  tools?: McpToolView[];
}

export interface McpBudgetView {
  tokens: number;
  default: number;
  agents: Array<{ agent: string; tools: number; tokens: number }>;
  overBudget: Array<{ agent: string; tools: number; tokens: number }>;
}
