// What a tool call that went wrong tells the model: a code and a sentence it
// can act on. Domain errors pass through with their code from the one list
// (docs/development.md#errors); anything else is logged and reported as an
// internal error, so no stack or query leaks.
import type { CallToolResult } from "@modelcontextprotocol/server";
import { ZodError } from "zod";
import { DomainError, INTERNAL_MESSAGE, invalidInput, type ErrorCode } from "@/server/errors";

/** A refusal a tool raises itself (a missing role, an unavailable service). */
export class McpToolError extends DomainError {
  constructor(code: ErrorCode, message: string) {
    super(code, message);
    this.name = "McpToolError";
  }
}

export interface ToolFailure {
  code: ErrorCode;
  message: string;
}

export function describeFailure(err: unknown): ToolFailure | null {
  const domain = err instanceof ZodError ? invalidInput(err, "input") : err;
  return domain instanceof DomainError ? { code: domain.code, message: domain.message } : null;
}

export const INTERNAL_FAILURE: ToolFailure = { code: "INTERNAL_ERROR", message: INTERNAL_MESSAGE };

export function failureResult(failure: ToolFailure): CallToolResult {
  return { isError: true, content: [{ type: "text", text: `${failure.code}: ${failure.message}` }] };
}
