// What can go wrong with an agent, as codes both the tRPC and REST layers
// turn into their own (BAD_REQUEST → 400, NOT_FOUND → 404, ...).
import type { SpecProblem } from "./input";

export type AgentErrorCode = "BAD_REQUEST" | "NOT_FOUND" | "FORBIDDEN" | "CONFLICT";

export const AGENT_ERROR_STATUS: Record<AgentErrorCode, number> = { BAD_REQUEST: 400, NOT_FOUND: 404, FORBIDDEN: 403, CONFLICT: 409 };

export class AgentError extends Error {
  constructor(
    public readonly code: AgentErrorCode,
    message: string,
    /** A spec's problems, by field, when the spec was refused. */
    public readonly problems: SpecProblem[] = [],
  ) {
    super(message);
    this.name = "AgentError";
  }
}

/** A spec with problems: all of them at once, the message lists them in words. */
export function invalidSpec(problems: SpecProblem[]): AgentError {
  const shown = problems.slice(0, 10).map((p) => p.message);
  const more = problems.length > shown.length ? ` (and ${problems.length - shown.length} more)` : "";
  return new AgentError("BAD_REQUEST", `The agent spec has ${problems.length === 1 ? "a problem" : `${problems.length} problems`}: ${shown.join("; ")}${more}`, problems);
}

export const agentNotFound = (name: string) => new AgentError("NOT_FOUND", `There is no agent named ${name}`);
