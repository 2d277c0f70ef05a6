// MCP servers as tool sources (docs/mcp.md, issue 18): what admins attach,
// the pinned tools agents get, and the settings around them. The protocol
// client (connections, the sandboxed stdio transport, names, pins) is in
// server/tools/mcp. Other code imports only this file.
export {
  McpServers,
  McpError,
  DEFAULT_TOOL_TOKEN_BUDGET,
  DEMO_SERVER_NAME,
  definitionTokens,
  requireMcpAdmin,
  type McpDeps,
  type McpErrorCode,
  type McpServerView,
  type McpToolView,
  type McpBudgetView,
  type ServerHealth,
  type McpToolState,
} from "./service";
export { AddMcpServerInput, UpdateMcpServerInput, SetMcpToolInput, MCP_SERVER_NAME, REPLAY_CLASSES, type McpServerConfig } from "./input";
export { resultForAgent, MAX_DESCRIPTION, MAX_RESULT_CHARS } from "./tool";
export { McpElicitations, ELICITATION_SLOT, withDefaults, type ElicitDeps, type ElicitCall } from "./elicit";
