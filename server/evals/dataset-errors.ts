// What can go wrong with a dataset, as codes the tRPC and REST layers turn
// into their own (BAD_REQUEST → 400, NOT_FOUND → 404, ...).
import type { DatasetProblem } from "./dataset-input";

export type DatasetErrorCode = "BAD_REQUEST" | "NOT_FOUND" | "FORBIDDEN" | "CONFLICT" | "PAYLOAD_TOO_LARGE";

export const DATASET_ERROR_STATUS: Record<DatasetErrorCode, number> = { BAD_REQUEST: 400, NOT_FOUND: 404, FORBIDDEN: 403, CONFLICT: 409, PAYLOAD_TOO_LARGE: 413 };

export class DatasetError extends Error {
  constructor(
    public readonly code: DatasetErrorCode,
    message: string,
    /** Every problem found, by field (or "line N" for a JSONL file), when the input was refused. */
    public readonly problems: DatasetProblem[] = [],
  ) {
    super(message);
    this.name = "DatasetError";
  }
}

/** Input with problems: all of them at once; the message lists the first ten in words. */
export function invalidInput(what: string, problems: DatasetProblem[]): DatasetError {
  const shown = problems.slice(0, 10).map((p) => p.message);
  const more = problems.length > shown.length ? ` (and ${problems.length - shown.length} more)` : "";
  return new DatasetError("BAD_REQUEST", `${what} has ${problems.length === 1 ? "a problem" : `${problems.length} problems`}: ${shown.join("; ")}${more}`, problems);
}

export const datasetNotFound = (id: string) => new DatasetError("NOT_FOUND", `There is no dataset ${id}`);
