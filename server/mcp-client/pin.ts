// Pinned MCP tool definitions (issue 18): when an admin enables a tool, Rein
// keeps a hash of everything the model is told about it (name, title,
// description, schemas, annotations). A server that later changes any of it
// ("rug pull") has that tool disabled until an admin reviews the difference.
// The definitions are hostile input: hashing them is bounded in depth and size.
import crypto from "node:crypto";

export interface McpToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}

export const MAX_DEFINITION_DEPTH = 64;
export const MAX_DEFINITION_BYTES = 256 * 1024;

export class McpDefinitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "McpDefinitionError";
  }
}

/** JSON with every object's keys sorted, so the same definition always hashes the same; refuses what is too deep or too big. */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  let size = 0;
  const push = (s: string) => {
    size += s.length;
    if (size > MAX_DEFINITION_BYTES) throw new McpDefinitionError(`A tool definition is larger than ${MAX_DEFINITION_BYTES / 1024} KiB`);
    out.push(s);
  };
  const walk = (v: unknown, depth: number) => {
    if (depth > MAX_DEFINITION_DEPTH) throw new McpDefinitionError(`A tool definition nests deeper than ${MAX_DEFINITION_DEPTH} levels`);
    if (v === null || typeof v === "number" || typeof v === "boolean" || typeof v === "string") return push(JSON.stringify(v) ?? "null");
    if (Array.isArray(v)) {
      push("[");
      v.forEach((x, i) => {
        if (i) push(",");
        walk(x === undefined ? null : x, depth + 1);
      });
      return push("]");
    }
    if (typeof v === "object") {
      push("{");
      const keys = Object.keys(v as object)
        .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
        .sort();
      keys.forEach((k, i) => {
        if (i) push(",");
        push(`${JSON.stringify(k)}:`);
        walk((v as Record<string, unknown>)[k], depth + 1);
      });
      return push("}");
    }
    push("null");
  };
  walk(value, 0);
  return out.join("");
}

/** The hash an admin's approval pins. */
export function definitionHash(def: McpToolDefinition): string {
  const { name, title, description, inputSchema, outputSchema, annotations } = def;
  return crypto
    .createHash("sha256")
    .update(canonicalJson({ name, title, description, inputSchema, outputSchema, annotations }))
    .digest("hex");
}

export interface ToolListChange {
  added: string[];
  removed: string[];
  /** Tools whose definition differs from the pinned one: disabled until reviewed. */
  changed: string[];
  unchanged: string[];
}

/** The server's tool list now against the pinned hashes (by tool name). */
export function compareToolList(pinned: ReadonlyMap<string, string>, current: readonly McpToolDefinition[]): ToolListChange {
  const change: ToolListChange = { added: [], removed: [], changed: [], unchanged: [] };
  const seen = new Set<string>();
  for (const def of current) {
    if (seen.has(def.name)) throw new McpDefinitionError(`The server lists the tool ${def.name} twice`);
    seen.add(def.name);
    const pin = pinned.get(def.name);
    if (pin === undefined) change.added.push(def.name);
    else if (pin === definitionHash(def)) change.unchanged.push(def.name);
    else change.changed.push(def.name);
  }
  for (const name of pinned.keys()) if (!seen.has(name)) change.removed.push(name);
  for (const list of Object.values(change)) list.sort();
  return change;
}
