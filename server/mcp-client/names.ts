// Names of MCP tools as agents see them (issue 18): `<server>__<tool>`, in the
// characters model providers accept for a function name and at most 64 of
// them. A name that had to change (odd characters, too long) ends in a hash of
// the original, so two tools never share one by accident; if they still do,
// or one would take a built-in tool's name, the table refuses it by name.
import crypto from "node:crypto";

export const MCP_NAME_LIMIT = 64;
const SEPARATOR = "__";
const HASH_CHARS = 8;
const SAFE = /^[A-Za-z0-9_-]+$/;

export class McpNameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "McpNameError";
  }
}

const hashOf = (text: string) => crypto.createHash("sha256").update(text).digest("hex").slice(0, HASH_CHARS);
const clean = (part: string) => part.replace(/[^A-Za-z0-9_-]/g, "_");

/** The name an agent calls the tool by: `<server>__<tool>`, made safe and short, with a hash of the original when it had to change. */
export function mcpToolName(server: string, tool: string): string {
  if (!server || !tool) throw new McpNameError("An MCP tool needs its server's name and its own");
  const plain = `${server}${SEPARATOR}${tool}`;
  if (SAFE.test(plain) && plain.length <= MCP_NAME_LIMIT) return plain;
  const suffix = `_${hashOf(`${server}/${tool}`)}`;
  return `${clean(plain).slice(0, MCP_NAME_LIMIT - suffix.length)}${suffix}`;
}

/** What policy rules match the call as (docs/mcp.md): `mcp:<server>/<tool>`, with the original names. */
export const mcpPolicyName = (server: string, tool: string) => `mcp:${server}/${tool}`;

export interface NamedTool {
  server: string;
  tool: string;
  name: string;
}

/**
 * The names of every enabled MCP tool, assigned together. A second tool
 * landing on a name already taken (by another MCP tool or a tool Rein has)
 * is refused, with both named, instead of one silently shadowing the other.
 */
export class McpNameTable {
  private readonly byName = new Map<string, NamedTool>();

  constructor(private readonly reserved: (name: string) => boolean = () => false) {}

  add(server: string, tool: string): NamedTool {
    const name = mcpToolName(server, tool);
    if (this.reserved(name))
      throw new McpNameError(
        `The MCP tool ${tool} of ${server} would be called ${name}, the name of a tool Rein already has; rename it on the server or leave it off`,
      );
    const taken = this.byName.get(name);
    if (taken && (taken.server !== server || taken.tool !== tool)) {
      throw new McpNameError(
        `The MCP tools ${taken.tool} of ${taken.server} and ${tool} of ${server} would both be called ${name}; enable only one of them`,
      );
    }
    const named = { server, tool, name };
    this.byName.set(name, named);
    return named;
  }

  get(name: string): NamedTool | undefined {
    return this.byName.get(name);
  }

  get size(): number {
    return this.byName.size;
  }
}
