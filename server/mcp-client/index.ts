// Rein as an MCP client (docs/mcp.md): the MCP servers admins attach as tool
// sources, the pinned tools agents get, the settings around them, and the
// protocol client underneath (connections, the sandboxed stdio transport,
// names, pins, bounds). Rein's own MCP server is server/mcp-server. Other code
// imports only this file.
export { McpServers } from "./service";
export { McpError, requireMcpAdmin, type McpErrorCode } from "./errors";
export { DEFAULT_TOOL_TOKEN_BUDGET, type McpDeps, type ServerHealth, type McpToolState } from "./state";
export { DEMO_SERVER_NAME } from "./admin";
export { definitionTokens } from "./pinning";
export type { McpServerView, McpToolView, McpBudgetView } from "./views";
export { AddMcpServerInput, UpdateMcpServerInput, SetMcpToolInput, MCP_SERVER_NAME, REPLAY_CLASSES, type McpServerConfig } from "./input";
export { resultForAgent, MAX_DESCRIPTION, MAX_RESULT_CHARS } from "./tool";
export { McpElicitations, ELICITATION_SLOT, withDefaults, type ElicitDeps, type ElicitCall } from "./elicit";
export { MCP_NAME_LIMIT, McpNameError, McpNameTable, mcpPolicyName, mcpToolName, type NamedTool } from "./names";
export { mcpReplayClass, type McpToolAnnotations } from "./annotations";
export {
  MAX_DEFINITION_BYTES,
  MAX_DEFINITION_DEPTH,
  McpDefinitionError,
  canonicalJson as canonicalMcpJson,
  compareToolList,
  definitionHash,
  type McpToolDefinition,
  type ToolListChange,
} from "./pin";
export { SandboxedStdioTransport, killLeftoverServers, writePidFile, MCP_PACKAGES_DIR, STDERR_TAIL_CHARS, type StdioLaunch } from "./stdio";
export {
  McpConnection,
  McpConnectError,
  McpCallTimeout,
  McpAnswerTooLarge,
  CONNECT_TIMEOUT_MS,
  MAX_OPEN_QUESTIONS,
  CALL_IDLE_TIMEOUT_MS,
  MAX_TOOLS,
  describe as describeMcpError,
  type McpLaunch,
  type McpProgress,
  type McpCallOptions,
  type McpServerInfo,
  type McpConnectionHooks,
} from "./connection";
export {
  McpTaskFailed,
  McpTaskNeedsInput,
  McpTaskUnsupported,
  TASKS_EXTENSION,
  MIN_POLL_MS,
  MAX_POLL_MS,
  MAX_TASK_ID_CHARS,
  MAX_STATUS_CHARS,
  type TaskSupport,
} from "./tasks";
export { BoundedLineReader, sniffId, type OversizedLine } from "./lines";
export {
  MAX_MCP_MESSAGE_BYTES,
  MAX_JSON_VALUES,
  MAX_DISTINCT_NAMES,
  MAX_CONTENT_ITEMS,
  tooComplexMessage,
  checkContentItems,
  ANSWER_TOO_LARGE,
  tooLargeMessage,
} from "./limits";
export { parseMessage, checkParse, INLINE_PARSE_BYTES, type Parsed, type Checked } from "./parse";
export { boundedMcpFetch } from "./http-bounds";
export { OAUTH_CALLBACK_PATH, type McpOAuthView, type OAuthCallback, type OAuthOutcome } from "./oauth";
export { handleOAuthCallback, isOAuthCallbackPath } from "./oauth-callback";
