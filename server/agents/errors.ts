// What can go wrong with an agent: a DomainError whose code each transport
// maps through one table (docs/development.md#errors).
import { DomainError, issuesOf } from "@/server/errors";
import type { SpecProblem } from "./input";

export type AgentErrorCode = "INVALID_INPUT" | "NOT_FOUND" | "FORBIDDEN" | "CONFLICT";

export class AgentError extends DomainError {
  constructor(
    code: AgentErrorCode,
    message: string,
    /** A spec's problems, by field, when the spec was refused. */
    public readonly problems: SpecProblem[] = [],
  ) {
    super(code, message, issuesOf(problems));
    this.name = "AgentError";
  }
}

/** A spec with problems: all of them at once, the message lists them in words. */
export function invalidSpec(problems: SpecProblem[]): AgentError {
  const shown = problems.slice(0, 10).map((p) => p.message);
  const more = problems.length > shown.length ? ` (and ${problems.length - shown.length} more)` : "";
  return new AgentError(
    "INVALID_INPUT",
    `The agent spec has ${problems.length === 1 ? "a problem" : `${problems.length} problems`}: ${shown.join("; ")}${more}`,
    problems,
  );
}

export const agentNotFound = (name: string) => new AgentError("NOT_FOUND", `There is no agent named ${name}`);
