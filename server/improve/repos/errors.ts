// What can go wrong with a repository, as codes the tRPC and REST layers turn
// into their own (BAD_REQUEST → 400, NOT_FOUND → 404, ...).
export type RepositoryErrorCode = "BAD_REQUEST" | "NOT_FOUND" | "FORBIDDEN" | "CONFLICT" | "SANDBOX_UNAVAILABLE";

export const REPOSITORY_ERROR_STATUS: Record<RepositoryErrorCode, number> = { BAD_REQUEST: 400, NOT_FOUND: 404, FORBIDDEN: 403, CONFLICT: 409, SANDBOX_UNAVAILABLE: 503 };

export class RepositoryError extends Error {
  constructor(
    readonly code: RepositoryErrorCode,
    message: string,
    /** Every problem found in the input, by field. */
    readonly problems: Array<{ field: string; message: string }> = [],
  ) {
    super(message);
    this.name = "RepositoryError";
  }
}

export const repositoryNotFound = (id: string) => new RepositoryError("NOT_FOUND", `There is no repository ${id}`);
