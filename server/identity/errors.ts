// What people and team changes refuse, in words a person reads. The API
// layers map the code to their own (tRPC codes, HTTP statuses) in one place.
export type PeopleErrorCode =
  | "NOT_FOUND"
  | "CONFLICT"
  | "FORBIDDEN"
  | "INVALID"
  /** An invitation or reset link that was never issued, or was mistyped or altered. */
  | "LINK_UNKNOWN"
  | "LINK_EXPIRED"
  | "LINK_USED"
  | "LINK_REVOKED"
  /** Too many bad links from one address: wait. */
  | "THROTTLED";

export class PeopleError extends Error {
  constructor(
    readonly code: PeopleErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "PeopleError";
  }
}

/** The HTTP status of each code, for REST v1. */
export const PEOPLE_ERROR_STATUS: Record<PeopleErrorCode, number> = {
  NOT_FOUND: 404,
  CONFLICT: 409,
  FORBIDDEN: 403,
  INVALID: 400,
  LINK_UNKNOWN: 404,
  LINK_EXPIRED: 410,
  LINK_USED: 409,
  LINK_REVOKED: 409,
  THROTTLED: 429,
};
