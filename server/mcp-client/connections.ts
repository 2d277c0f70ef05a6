// The live connections to the attached MCP servers (docs/mcp.md#health): each
// server started once at a time (stdio in the sandbox, or over Streamable
// HTTP) with its secrets opened, its health kept in memory and in the
// database, and its tool list read again whenever it says the list changed.
// What a tool list means for the pins is the caller's (onToolList).
import path from "node:path";
import type { Tool } from "@modelcontextprotocol/client";
import { getSecretValue } from "@/server/secrets";
import { McpConnection, McpConnectError, describe as describeMcpError, type McpLaunch } from "./connection";
import type { ElicitCall } from "./elicit";
import { secretsNamed, type McpServerConfig } from "./input";
import { connectionAuthFor } from "./oauth";
import { killLeftoverServers } from "./stdio";
import { storedJson, type LiveServer, type McpState, type ServerHealth } from "./state";

/** A server's tool list, just read: pin it and bring the registry up to date. */
export type OnToolList = (live: LiveServer, tools: Tool[]) => Promise<void>;

export class ServerConnections {
  constructor(
    private readonly state: McpState,
    private readonly onToolList: OnToolList,
  ) {}

  private get pidDir() {
    return path.join(this.state.deps.dataDir, "mcp", "pids");
  }

  /** Kills the servers a killed Rein left running; how many there were. */
  killLeftovers(): number {
    return killLeftoverServers(this.pidDir);
  }

  /** Holds a server from its database row, not started. */
  track(row: { id: string; name: string; transport: string; config: string; enabled: boolean }): LiveServer {
    const live: LiveServer = {
      id: row.id,
      name: row.name,
      config: { transport: row.transport, ...storedJson(row.config, {}) } as McpServerConfig,
      enabled: row.enabled,
      health: "stopped",
      reason: null,
      stderrTail: "",
      info: null,
      connection: null,
      starting: null,
      relist: false,
    };
    this.state.live.set(row.name, live);
    return live;
  }

  /** Starts the server (once at a time) and reads its tools. */
  connect(live: LiveServer): Promise<void> {
    if (live.starting) return live.starting;
    if (live.connection && live.health === "ready") return Promise.resolve();
    live.starting = this.doConnect(live).finally(() => (live.starting = null));
    return live.starting;
  }

  async disconnect(live: LiveServer) {
    const connection = live.connection;
    live.connection = null;
    await live.starting?.catch(() => {});
    await connection?.close();
    // A start that was under way finished meanwhile: close what it opened.
    const late = live.connection as McpConnection | null;
    live.connection = null;
    await late?.close();
  }

  /** Closes every connection; a start still under way closes what it opens. */
  async stopAll(): Promise<void> {
    this.state.stopped = true;
    await Promise.all([...this.state.live.values()].map((l) => this.disconnect(l)));
  }

  async setHealth(live: LiveServer, health: ServerHealth, reason: string | null) {
    live.health = health;
    live.reason = reason;
    await this.state.deps.db.mcpServer
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

  private async launchOf(live: LiveServer): Promise<McpLaunch> {
    const { deps } = this.state;
    const values = new Map<string, string>();
    for (const name of secretsNamed(live.config)) {
      if (!deps.keyring) throw new Error(`the secret ${name} cannot be opened: this server has no secret key`);
      try {
        values.set(name, await getSecretValue(deps.db, deps.keyring, name));
      } catch {
        throw new Error(`the secret ${name} does not exist; add it in Settings › Secrets`);
      }
    }
    deps.secrets?.remember([...values].map(([name, value]) => ({ name, value })));
    const resolve = (v: { secret: string } | { value: string }) => ("secret" in v ? values.get(v.secret)! : v.value);
    if (live.config.transport === "http") {
      const auth = await connectionAuthFor(this.state, live);
      return {
        transport: "http",
        url: live.config.http.url,
        headers: Object.fromEntries(Object.entries(live.config.http.headers).map(([k, v]) => [k, resolve(v)])),
        ...(auth ? { auth } : {}),
      };
    }
    const { stdio } = live.config;
    return {
      transport: "stdio",
      command: stdio.command,
      args: stdio.args,
      env: Object.fromEntries(Object.entries(stdio.env).map(([k, v]) => [k, resolve(v)])),
      dir: path.join(deps.dataDir, "mcp", "servers", live.name),
      network: stdio.network,
      packages: deps.packagesDir ?? path.resolve("node_modules"),
      pidFile: path.join(this.pidDir, `${live.name}.pid`),
    };
  }

  private async doConnect(live: LiveServer): Promise<void> {
    const { deps } = this.state;
    await this.setHealth(live, "starting", null);
    let connection: McpConnection | null = null;
    try {
      const launch = await this.launchOf(live);
      const elicitations = deps.elicitations;
      connection = new McpConnection(launch, {
        onToolsChanged: () => void this.relist(live, connection!),
        onLost: (why) => void this.lost(live, connection!, why),
        ...(elicitations
          ? {
              onElicit: async (params, signal, callers) => {
                // The protocol does not say which call asks: with more than one in flight, nobody can be asked safely.
                const calls = callers.filter((c): c is ElicitCall => !!c);
                if (calls.length !== 1) {
                  deps.log.error(
                    `the MCP server ${live.name} asked a person something while ${calls.length} calls were in flight; declined`,
                  );
                  return { action: "decline" };
                }
                return elicitations.ask({ ...calls[0], signal: AbortSignal.any([signal, calls[0].signal]) }, params);
              },
            }
          : {}),
      });
      live.info = await connection.connect(deps.connectTimeoutMs);
      if (this.state.stopped || this.state.live.get(live.name) !== live || !live.enabled) {
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
      deps.log.error(`the MCP server ${live.name} could not start: ${live.reason}`);
      throw err;
    }
  }

  private async lost(live: LiveServer, connection: McpConnection, why: string) {
    if (live.connection !== connection) return;
    live.connection = null;
    live.stderrTail = this.redact(connection.stderrTail);
    await connection.close();
    await this.setHealth(live, "failed", this.redact(`The server stopped: ${why}`)).catch(() => {});
  }

  private redact(text: string): string {
    return this.state.deps.secrets ? this.state.deps.secrets.text(text) : text;
  }

  private async relist(live: LiveServer, connection: McpConnection) {
    if (live.connection !== connection) return;
    if (live.starting) {
      live.relist = true;
      return;
    }
    try {
      await this.readTools(live, connection);
    } catch (err) {
      this.state.deps.log.error(`the MCP server ${live.name}'s new tool list could not be read`, err);
    }
  }

  /** Reads the tool list until no list_changed arrived while it was being read. */
  private async readTools(live: LiveServer, connection: McpConnection): Promise<void> {
    do {
      live.relist = false;
      const tools = await connection.listTools();
      await this.onToolList(live, tools);
    } while (live.relist && live.connection === connection);
  }
}
