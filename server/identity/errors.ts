// What people and team changes refuse, in words a person reads; each
// transport maps the code through one table (docs/development.md#errors).
import { DomainError, type ErrorCode } from "@/server/errors";

export type PeopleErrorCode =
  | "NOT_FOUND"
  | "CONFLICT"
  | "FORBIDDEN"
  | "INVALID_INPUT"
  /** An invitation or reset link that was never issued, or was mistyped or altered. */
  | "LINK_UNKNOWN"
  | "LINK_EXPIRED"
  | "LINK_USED"
  | "LINK_REVOKED"
  /** Too many bad links from one address: wait. */
  | "THROTTLED";

const KIND: Record<PeopleErrorCode, ErrorCode> = {
  NOT_FOUND: "NOT_FOUND",
  CONFLICT: "CONFLICT",
  FORBIDDEN: "FORBIDDEN",
  INVALID_INPUT: "INVALID_INPUT",
  LINK_UNKNOWN: "NOT_FOUND",
  LINK_EXPIRED: "GONE",
  LINK_USED: "CONFLICT",
  LINK_REVOKED: "CONFLICT",
  THROTTLED: "RATE_LIMITED",
};

export class PeopleError extends DomainError {
  constructor(
    readonly reason: PeopleErrorCode,
    message: string,
  ) {
    super(KIND[reason], message);
    this.name = "PeopleError";
  }
}
