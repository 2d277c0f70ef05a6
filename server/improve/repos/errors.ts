// What can go wrong with a repository: a DomainError whose code each
// transport maps through one table (docs/development.md#errors).
import { DomainError, issuesOf } from "@/server/errors";

export type RepositoryErrorCode = "INVALID_INPUT" | "NOT_FOUND" | "FORBIDDEN" | "CONFLICT" | "SANDBOX_UNAVAILABLE";

export class RepositoryError extends DomainError {
  constructor(
    code: RepositoryErrorCode,
    message: string,
    /** Every problem found in the input, by field. */
    readonly problems: Array<{ field: string; message: string }> = [],
  ) {
    super(code, message, issuesOf(problems));
    this.name = "RepositoryError";
  }
}

export const repositoryNotFound = (id: string) => new RepositoryError("NOT_FOUND", `There is no repository ${id}`);
