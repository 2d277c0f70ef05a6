// Rein's MCP server (docs/mcp-server.md): Claude Code, Cursor or any MCP client
// launches runs, follows them and answers human requests at /mcp with an API
// token. Other code imports only this file.
export { MAX_MCP_BODY, MCP_PATH, createMcpHandler, isMcpPath, type McpHandlerOptions } from "./handler";
export { MCP_TOOLS } from "./mcp-server";
export { MAX_RESOURCE_EVENTS, RUN_EVENTS_TEMPLATE } from "./events-resource";
export { WAIT_DEFAULT_SEC, WAIT_MAX_SEC } from "./run-tools";
