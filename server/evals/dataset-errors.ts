// What can go wrong with a dataset: a DomainError whose code each transport
// maps through one table (docs/development.md#errors).
import { DomainError, issuesOf } from "@/server/errors";
import type { DatasetProblem } from "./dataset-input";

export type DatasetErrorCode = "INVALID_INPUT" | "NOT_FOUND" | "FORBIDDEN" | "CONFLICT" | "PAYLOAD_TOO_LARGE";

export class DatasetError extends DomainError {
  constructor(
    code: DatasetErrorCode,
    message: string,
    /** Every problem found, by field (or "line N" for a JSONL file), when the input was refused. */
    public readonly problems: DatasetProblem[] = [],
  ) {
    super(code, message, issuesOf(problems));
    this.name = "DatasetError";
  }
}

/** Input with problems: all of them at once; the message lists the first ten in words. */
export function invalidInput(what: string, problems: DatasetProblem[]): DatasetError {
  const shown = problems.slice(0, 10).map((p) => p.message);
  const more = problems.length > shown.length ? ` (and ${problems.length - shown.length} more)` : "";
  return new DatasetError(
    "INVALID_INPUT",
    `${what} has ${problems.length === 1 ? "a problem" : `${problems.length} problems`}: ${shown.join("; ")}${more}`,
    problems,
  );
}

export const datasetNotFound = (id: string) => new DatasetError("NOT_FOUND", `There is no dataset ${id}`);
