// MCP servers as tool sources (issue 18, docs/mcp.md). The pure parts so
// far: how their tools are named for agents and policies, what their
// annotations mean for replay, and the pinned definitions that keep a changed
// tool off until an admin reviews it. The connection manager builds on these.
export { MCP_NAME_LIMIT, McpNameError, McpNameTable, mcpPolicyName, mcpToolName, type NamedTool } from "./names";
export { mcpReplayClass, type McpToolAnnotations } from "./annotations";
export {
  MAX_DEFINITION_BYTES,
  MAX_DEFINITION_DEPTH,
  McpDefinitionError,
  canonicalJson,
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
  CALL_IDLE_TIMEOUT_MS,
  MAX_TOOLS,
  describe as describeMcpError,
  type McpLaunch,
  type McpProgress,
  type McpCallOptions,
  type McpServerInfo,
  type McpConnectionHooks,
} from "./connection";
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
