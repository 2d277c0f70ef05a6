// A run's files as MCP resources (docs/mcp-server.md#resources):
// rein://runs/{runId}/files lists the workspace, rein://runs/{runId}/files/{path}
// reads a text file in it. Team-scoped like the Files tab; the paths are the
// agent's, so they are only ever opened by the run's file service in its
// sandbox (server/tools/workspace-files.ts), never by the server.
import { ProtocolError, ResourceTemplate, type McpServer } from "@modelcontextprotocol/server";
import { RunNotFoundError, getRun } from "@/server/kernel";
import { WorkspaceFileError, workspaceFiles, type TreeNode } from "@/server/tools";
import type { ToolContext } from "./context";

export const RUN_FILES_TEMPLATE = "rein://runs/{runId}/files";
export const RUN_FILE_TEMPLATE = "rein://runs/{runId}/files/{+path}";
/** The most files one listing names (breadth first: the top levels are kept whole). */
export const MAX_LISTED_FILES = 1_000;
/** JSON-RPC codes of the MCP specification: a resource that does not exist, and bad parameters. */
const RESOURCE_NOT_FOUND = -32002;
const INVALID_PARAMS = -32602;

function flatten(nodes: TreeNode[], into: Array<{ path: string; size: number }> = []) {
  for (const node of nodes) {
    if (node.type === "file") into.push({ path: node.path, size: node.size });
    else flatten(node.children, into);
  }
  return into;
}

/** The run's file service, for a run the caller may see; a missing run or a refused path is an MCP error a client can show. */
async function filesOf(ctx: ToolContext, runId: string, uri: string) {
  try {
    const run = await getRun(ctx.db, runId, ctx.actor);
    return workspaceFiles(ctx.kernel.deps.workspaceFor(run.id));
  } catch (err) {
    if (err instanceof RunNotFoundError) throw new ProtocolError(RESOURCE_NOT_FOUND, err.message, { uri });
    throw err;
  }
}

function refusal(err: unknown, uri: string): never {
  if (err instanceof WorkspaceFileError) {
    throw new ProtocolError(err.code === "NOT_FOUND" || err.code === "NO_WORKSPACE" ? RESOURCE_NOT_FOUND : INVALID_PARAMS, err.message, {
      uri,
      code: err.code,
    });
  }
  throw err;
}

const variable = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join("/") : (value ?? ""));

export function registerRunFiles(server: McpServer, ctx: ToolContext): void {
  server.registerResource(
    "run-files",
    new ResourceTemplate(RUN_FILES_TEMPLATE, { list: undefined }),
    { title: "A run's files", description: "The files of a Rein run's workspace, as JSON (path and size)", mimeType: "application/json" },
    async (uri, variables) => {
      const runId = decodeURIComponent(variable(variables.runId));
      const files = await filesOf(ctx, runId, uri.href);
      const tree = await files.tree(MAX_LISTED_FILES).catch((err) => refusal(err, uri.href));
      const body = { runId, exists: tree.exists, files: flatten(tree.entries), truncated: tree.truncated };
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(body) }] };
    },
  );
  server.registerResource(
    "run-file",
    new ResourceTemplate(RUN_FILE_TEMPLATE, { list: undefined }),
    {
      title: "A file of a run",
      description: "A text file of a Rein run's workspace (binary and large files are refused)",
      mimeType: "text/plain",
    },
    async (uri, variables) => {
      let runId: string;
      let path: string;
      try {
        runId = decodeURIComponent(variable(variables.runId));
        path = decodeURIComponent(variable(variables.path));
      } catch {
        throw new ProtocolError(INVALID_PARAMS, "The URI is not well encoded", { uri: uri.href });
      }
      const files = await filesOf(ctx, runId, uri.href);
      const file = await files.readText(path).catch((err) => refusal(err, uri.href));
      return { contents: [{ uri: uri.href, mimeType: "text/plain", text: file.content }] };
    },
  );
}
