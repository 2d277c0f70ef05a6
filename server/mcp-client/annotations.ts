// What an MCP tool's annotations mean for replay (issue 18, docs/mcp.md).
// Annotations are hints from a server nobody here wrote: only a tool that
// says it reads and changes nothing is replayed freely; one that says calling
// it twice does no more than once is replayed with its key; anything else,
// the unannotated included, is treated as destructive. An admin's override
// wins, either way.
import type { ReplayClass } from "@/server/tools";

export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export function mcpReplayClass(annotations: McpToolAnnotations | null | undefined, override?: ReplayClass | null): ReplayClass {
  if (override) return override;
  if (!annotations || typeof annotations !== "object") return "unsafe_on_replay";
  if (annotations.readOnlyHint === true) return "pure";
  // The protocol's idempotentHint means something only for a tool that writes.
  if (annotations.idempotentHint === true) return "idempotent_with_key";
  return "unsafe_on_replay";
}
