// Rein as an MCP server (docs/mcp-server.md): one McpServer per request, for
// the person whose token sent it, with Rein's run and human-request tools
// and the run events resource.
import { McpServer } from "@modelcontextprotocol/server";
import type { ToolContext } from "./context";
import { registerRunEvents } from "./events-resource";
import { registerRunFiles } from "./files-resource";
import { REQUEST_TOOLS } from "./request-tools";
import { RUN_TOOLS } from "./run-tools";
import { TASKS_EXTENSION, registerTaskMethods } from "./tasks";
import { registerTool, type McpTool } from "./tool";

export const MCP_TOOLS: readonly McpTool[] = [...RUN_TOOLS, ...REQUEST_TOOLS] as unknown as McpTool[];

const INSTRUCTIONS =
  "Rein runs AI agents under policy, with people in the loop. list_agents shows what you can run; start_run starts a run and returns at once; " +
  "wait_for_run follows it until it ends or waits for a person; answer_human_request answers what it asks (with the role that needs). " +
  "Every call is made as the person whose API token you hold, and is audited.";

/** `modern`: a server for a 2026-07-28 request, which also offers runs as tasks (tasks.ts). */
export function buildMcpServer(ctx: ToolContext, { modern = false } = {}): McpServer {
  const server = new McpServer(
    { name: "rein", title: "Rein", version: "0.1.0" },
    {
      capabilities: { logging: {}, ...(modern ? { extensions: { [TASKS_EXTENSION]: {} } } : {}) } as never,
      instructions: INSTRUCTIONS,
    },
  );
  for (const tool of MCP_TOOLS) registerTool(server, ctx, tool);
  registerRunEvents(server, ctx);
  registerRunFiles(server, ctx);
  if (modern) registerTaskMethods(server, ctx);
  return server;
}
