// MCP servers (docs/mcp.md): admins attach them; Rein starts each, keeps its
// health, pins every tool's definition, and puts the tools an admin enabled
// into the tool registry for the agents and teams in their scope. A server
// whose tool definitions change has those tools taken off until an admin
// reviews the difference; nothing a server says reaches a model unreviewed.
//
// McpServers is the one object the rest of Rein holds. It composes the parts:
// connections.ts (starting servers, health, relisting), pinning.ts (a tool
// list against the pins), agent-tools.ts (the registry, scope, budget, calls),
// admin.ts and views.ts (what admins do and read), over one shared state.ts.
import type { Actor } from "@/server/identity";
import { McpAdmin } from "./admin";
import { McpAgentTools } from "./agent-tools";
import { ServerConnections } from "./connections";
import { McpOAuth, type OAuthCallback, type OAuthOutcome } from "./oauth";
import { pinTools } from "./pinning";
import { mcpState, type LiveServer, type McpDeps, type McpState } from "./state";
import { getServer, listServers, pendingReviews, serverTools, type McpBudgetView, type McpServerView, type McpToolView } from "./views";

export class McpServers {
  private readonly state: McpState;
  /** Attached servers, by name: the map the parts share, kept here too so a test can reach a server's process. */
  private readonly live: Map<string, LiveServer>;
  private readonly connections: ServerConnections;
  private readonly agentTools: McpAgentTools;
  private readonly admin: McpAdmin;
  private readonly oauth: McpOAuth;

  constructor(deps: McpDeps) {
    this.state = mcpState(deps);
    this.live = this.state.live;
    this.connections = new ServerConnections(this.state, async (live, tools) => {
      await pinTools(deps, live, tools);
      await this.agentTools.sync(live.id);
    });
    this.agentTools = new McpAgentTools(this.state, (live) => this.connections.connect(live));
    this.admin = new McpAdmin(this.state, this.connections, this.agentTools);
    this.oauth = new McpOAuth(this.state, this.connections);
  }

  /** Kills what a killed Rein left running, then starts every enabled server (without waiting for them). */
  async start(): Promise<{ servers: number; leftovers: number }> {
    const leftovers = this.connections.killLeftovers();
    await this.agentTools.loadBudget();
    const rows = await this.state.deps.db.mcpServer.findMany({ orderBy: { name: "asc" } });
    for (const row of rows) {
      const live = this.connections.track(row);
      // The pinned, enabled tools are offered from the start; a call waits for its server.
      await this.agentTools.sync(live.id);
      if (live.enabled) void this.connections.connect(live).catch(() => {});
    }
    return { servers: rows.length, leftovers };
  }

  stop(): Promise<void> {
    return this.connections.stopAll();
  }

  // ---- what agents get ---------------------------------------------------------

  hiddenToolNames(actor: Actor): Set<string> {
    return this.agentTools.hiddenToolNames(actor);
  }

  toolsFor(run: { id: string; teamId: string | null }, spec: { name: string; tools: string[] }): string[] {
    return this.agentTools.toolsFor(run, spec);
  }

  // ---- what admins do ----------------------------------------------------------

  add(actor: Actor, input: unknown, channel = "admin"): Promise<McpServerView> {
    return this.admin.add(actor, input, channel);
  }

  addDemo(actor: Actor, channel = "admin"): Promise<McpServerView> {
    return this.admin.addDemo(actor, channel);
  }

  update(actor: Actor, name: string, input: unknown, channel = "admin"): Promise<McpServerView> {
    return this.admin.update(actor, name, input, channel);
  }

  remove(actor: Actor, name: string, channel = "admin"): Promise<void> {
    return this.admin.remove(actor, name, channel);
  }

  test(actor: Actor, name: string): Promise<McpServerView> {
    return this.admin.test(actor, name);
  }

  setTool(actor: Actor, server: string, tool: string, input: unknown, channel = "admin"): Promise<McpToolView> {
    return this.admin.setTool(actor, server, tool, input, channel);
  }

  review(actor: Actor, server: string, tool: string, accept: boolean, channel = "admin"): Promise<McpToolView> {
    return this.admin.review(actor, server, tool, accept, channel);
  }

  setTokenBudget(actor: Actor, tokens: number, channel = "admin"): Promise<number> {
    return this.admin.setTokenBudget(actor, tokens, channel);
  }

  /** Starts an admin's OAuth authorization at a hosted server: where to send their browser (docs/mcp.md#oauth). */
  authorize(actor: Actor, name: string, channel = "admin"): Promise<{ authorizationUrl: string }> {
    return this.oauth.begin(actor, name, channel);
  }

  /** The authorization server sent the admin back to Rein. */
  finishAuthorization(actor: Actor, query: OAuthCallback): Promise<OAuthOutcome> {
    return this.oauth.finish(actor, query);
  }

  forgetAuthorization(actor: Actor, name: string, channel = "admin"): Promise<void> {
    return this.oauth.forget(actor, name, channel);
  }

  // ---- what admins read --------------------------------------------------------

  list(actor: Actor): Promise<{ servers: McpServerView[]; budget: McpBudgetView }> {
    return listServers(this.state, actor);
  }

  get(actor: Actor, name: string): Promise<McpServerView> {
    return getServer(this.state, actor, name);
  }

  tools(actor: Actor, name: string): Promise<McpToolView[]> {
    return serverTools(this.state, actor, name);
  }

  pendingReviews(): Promise<number> {
    return pendingReviews(this.state);
  }
}
