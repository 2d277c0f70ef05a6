// What a tool call that went wrong tells the model: a code and a sentence it
// can act on. Errors Rein means people to read pass through; anything else is
// logged and reported as an internal error, so no stack or query leaks.
import { ZodError } from "zod";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { HumanRequestError } from "@/server/hitl";
import { ArchivedAgentError, RunNotFoundError, TeamAccessError, UnknownAgentError } from "@/server/kernel";
import { UnknownModelError } from "@/server/models";
import { SecretNotFoundError, SecretValidationError } from "@/server/secrets";

/** A refusal a tool raises itself (a missing role, an unavailable service). */
export class McpToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "McpToolError";
  }
}

export interface ToolFailure {
  code: string;
  message: string;
}

export function describeFailure(err: unknown): ToolFailure | null {
  if (err instanceof McpToolError) return { code: err.code, message: err.message };
  if (err instanceof ZodError) return { code: "INVALID_INPUT", message: err.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ") };
  if (err instanceof RunNotFoundError) return { code: "NOT_FOUND", message: err.message };
  if (err instanceof TeamAccessError) return { code: err.code, message: err.message };
  if (err instanceof HumanRequestError) return { code: err.code, message: err.message };
  if (err instanceof UnknownAgentError) return { code: "UNKNOWN_AGENT", message: err.message };
  if (err instanceof ArchivedAgentError) return { code: "ARCHIVED", message: err.message };
  if (err instanceof UnknownModelError) return { code: "UNKNOWN_MODEL", message: err.message };
  if (err instanceof SecretNotFoundError || err instanceof SecretValidationError) return { code: "SECRET", message: err.message };
  return null;
}

export const INTERNAL_FAILURE: ToolFailure = { code: "INTERNAL_ERROR", message: "Rein hit an internal error; the server log has details" };

export function failureResult(failure: ToolFailure): CallToolResult {
  return { isError: true, content: [{ type: "text", text: `${failure.code}: ${failure.message}` }] };
}
