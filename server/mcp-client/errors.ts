// The one error MCP server administration throws (docs/mcp.md): a DomainError
// whose code each transport maps once, plus the checks that raise it for
// everyone alike (the admin role, an admin's input against its schema).
import { DomainError, issuesOf } from "@/server/errors";
import type { Actor } from "@/server/identity";

export type McpErrorCode = "NOT_FOUND" | "FORBIDDEN" | "INVALID_INPUT" | "CONFLICT" | "UNAVAILABLE";

export class McpError extends DomainError {
  constructor(
    code: McpErrorCode,
    message: string,
    public readonly problems?: Array<{ field: string; message: string }>,
  ) {
    super(code, message, issuesOf(problems));
    this.name = "McpError";
  }
}

export function requireMcpAdmin(actor: Actor, what: string) {
  if (actor.role !== "admin") throw new McpError("FORBIDDEN", `${what} needs the admin role; you are ${actor.role}`);
}

/** The input parsed by its schema, or INVALID_INPUT naming every field that is wrong. */
export function parseInput<T>(
  schema: {
    safeParse(
      v: unknown,
    ): { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
  },
  input: unknown,
): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => ({ field: i.path.map(String).join(".") || "(input)", message: i.message }));
  throw new McpError("INVALID_INPUT", problems.map((p) => `${p.field}: ${p.message}`).join("; "), problems);
}
