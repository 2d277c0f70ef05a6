// The transports' side of the error model (docs/development.md#errors): any
// thrown value becomes a DomainError once, and each transport reads its words
// for the code from ERROR_TABLE. Anything Rein did not mean a person to read
// becomes INTERNAL_ERROR, logged here and never shown.
import { TRPCError } from "@trpc/server";
import { ZodError } from "zod";
import { DomainError, ERROR_TABLE, INTERNAL_MESSAGE, type ErrorCode, type ErrorIssue } from "@/lib/error-codes";

export {
  DomainError,
  ERROR_CODES,
  ERROR_TABLE,
  INTERNAL_MESSAGE,
  isErrorCode,
  issuesOf,
  type ErrorCode,
  type ErrorDetails,
  type ErrorIssue,
  type ErrorMapping,
} from "@/lib/error-codes";

/** Zod's problems as issues: the dotted path of each field and its message. */
export function zodIssues(err: ZodError): ErrorIssue[] {
  return err.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message }));
}

/** The words of input that failed its schema, each field named (`body` when the whole input is wrong). */
export function invalidInput(err: ZodError, whole = "body"): DomainError {
  const issues = zodIssues(err);
  return new DomainError("INVALID_INPUT", issues.map((i) => `${i.path || whole}: ${i.message}`).join("; "), { issues });
}

/**
 * What a thrown value is as a domain error. `where` names the transport in
 * the log line written for an unexpected error, whose own message stays there.
 */
export function toDomainError(err: unknown, where: string, whole = "body"): DomainError {
  if (err instanceof DomainError) return err;
  if (err instanceof ZodError) return invalidInput(err, whole);
  console.error(`${where} error`, err);
  return new DomainError("INTERNAL_ERROR", INTERNAL_MESSAGE);
}

/** REST's answer: the status and `{ error: { code, message, issues? } }` (docs/api.md#errors). */
export function httpErrorBody(err: DomainError): {
  status: number;
  body: { error: { code: ErrorCode; message: string; issues?: ErrorIssue[] } };
} {
  const issues = err.issues;
  return { status: ERROR_TABLE[err.code].status, body: { error: { code: err.code, message: err.message, ...(issues ? { issues } : {}) } } };
}

/**
 * tRPC's error for a domain error; the error formatter puts `code` and
 * `issues` into `error.data` from its cause. Null for a TRPCError tRPC raised
 * itself (a bad request line, a procedure that does not exist): those keep theirs.
 */
export function trpcErrorOf(err: unknown): TRPCError | null {
  if (err instanceof DomainError || err instanceof ZodError) {
    const domain = toDomainError(err, "tRPC", "input");
    return new TRPCError({ code: ERROR_TABLE[domain.code].trpc, message: domain.message, cause: domain });
  }
  return null;
}

/** A JSON-RPC error object for an MCP request refused before any method runs. */
export function jsonRpcError(err: DomainError): { code: number; message: string } {
  return { code: ERROR_TABLE[err.code].jsonRpc, message: err.message };
}

/** A socket handler's failed acknowledgement. */
export interface SocketFailure {
  ok: false;
  code: ErrorCode;
  error: string;
}

/**
 * A socket acknowledgement for a failure: the error's own words when Rein
 * meant them for a person, else the table's for INTERNAL_ERROR (the handler
 * logs what it means to keep; nothing of the error itself reaches the browser).
 */
export function socketFailure(err: unknown): SocketFailure {
  const domain = err instanceof DomainError ? err : err instanceof ZodError ? invalidInput(err, "message") : null;
  return domain ? { ok: false, code: domain.code, error: domain.message } : socketRefusal("INTERNAL_ERROR");
}

/** A socket failure from a code alone, in the table's words. */
export function socketRefusal(code: ErrorCode, message = ERROR_TABLE[code].socket): SocketFailure {
  return { ok: false, code, error: message };
}
