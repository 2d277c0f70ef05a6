// Rein's one error model: every refusal is a DomainError with a code from one
// closed list, and each transport (REST, tRPC, MCP, sockets) turns a code into
// its own words through ERROR_TABLE alone (docs/development.md#errors). The
// browser imports this module for the code list, so it stays free of server code.

/** The codes a client can see; REST answers them as `error.code` (docs/api.md#errors). */
export const ERROR_CODES = [
  "INVALID_INPUT",
  "INVALID_JSON",
  "BAD_PATH",
  "UNKNOWN_AGENT",
  "UNKNOWN_MODEL",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "CROSS_ORIGIN",
  "NOT_FOUND",
  "METHOD_NOT_ALLOWED",
  "CONFLICT",
  "CLOSED",
  "NO_WORKSPACE",
  "GONE",
  "PAYLOAD_TOO_LARGE",
  "UNPROCESSABLE",
  "UNSUPPORTED_MEDIA_TYPE",
  "RATE_LIMITED",
  "INTERNAL_ERROR",
  "UNAVAILABLE",
  "SANDBOX_UNAVAILABLE",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** tRPC's own codes (those of @trpc/server that Rein uses), spelled here so the browser needs no server package. */
export type TrpcErrorCode =
  | "PARSE_ERROR"
  | "BAD_REQUEST"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "METHOD_NOT_SUPPORTED"
  | "CONFLICT"
  | "PRECONDITION_FAILED"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "UNPROCESSABLE_CONTENT"
  | "TOO_MANY_REQUESTS"
  | "INTERNAL_SERVER_ERROR";

export interface ErrorMapping {
  /** REST's HTTP status. */
  status: number;
  /** The code a tRPC client (the browser) sees in `error.data.code`. */
  trpc: TrpcErrorCode;
  /** The JSON-RPC error code of an MCP request refused before any method runs. */
  jsonRpc: number;
  /** What a socket acknowledgement says when the error itself has no words a person may read. */
  socket: string;
  /** When a client gets it, for the docs' table (docs/api.md#errors). */
  when: string;
}

/** JSON-RPC 2.0's reserved codes; -32000 is the start of the implementation-defined server errors. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INTERNAL = -32603;
const SERVER_ERROR = -32000;

/** The one table every transport maps through: a test walks it (server/errors/errors.test.ts). */
export const ERROR_TABLE: Readonly<Record<ErrorCode, ErrorMapping>> = {
  INVALID_INPUT: {
    status: 400,
    trpc: "BAD_REQUEST",
    jsonRpc: INVALID_REQUEST,
    socket: "That message cannot be taken",
    when: "The body, the query or a field is not what the route takes; `issues` names each field.",
  },
  INVALID_JSON: {
    status: 400,
    trpc: "PARSE_ERROR",
    jsonRpc: PARSE_ERROR,
    socket: "That message is not valid JSON",
    when: "The body is not valid JSON.",
  },
  BAD_PATH: {
    status: 400,
    trpc: "BAD_REQUEST",
    jsonRpc: INVALID_REQUEST,
    socket: "That path cannot be taken",
    when: "The path is malformed, or a file path points outside the workspace.",
  },
  UNKNOWN_AGENT: {
    status: 400,
    trpc: "BAD_REQUEST",
    jsonRpc: INVALID_REQUEST,
    socket: "There is no such agent",
    when: "The run names an agent that does not exist.",
  },
  UNKNOWN_MODEL: {
    status: 400,
    trpc: "BAD_REQUEST",
    jsonRpc: INVALID_REQUEST,
    socket: "There is no such model",
    when: "The run names a model that is not configured.",
  },
  UNAUTHORIZED: {
    status: 401,
    trpc: "UNAUTHORIZED",
    jsonRpc: SERVER_ERROR,
    socket: "Log in to continue",
    when: "No token, or one that is unknown, revoked or expired.",
  },
  FORBIDDEN: {
    status: 403,
    trpc: "FORBIDDEN",
    jsonRpc: SERVER_ERROR,
    socket: "Your role does not allow that",
    when: "The user's role is below the route's (the table below), or below what the thing asks for.",
  },
  CROSS_ORIGIN: {
    status: 403,
    trpc: "FORBIDDEN",
    jsonRpc: SERVER_ERROR,
    socket: "Requests from another site are refused",
    when: "A request relying on a login cookie came from another site.",
  },
  NOT_FOUND: {
    status: 404,
    trpc: "NOT_FOUND",
    jsonRpc: SERVER_ERROR,
    socket: "It was not found",
    when: "No such route, or no such run, request, agent, provider, model or secret that you can see.",
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    trpc: "METHOD_NOT_SUPPORTED",
    jsonRpc: SERVER_ERROR,
    socket: "That is not allowed here",
    when: "The path exists, with other methods.",
  },
  CONFLICT: {
    status: 409,
    trpc: "CONFLICT",
    jsonRpc: SERVER_ERROR,
    socket: "That cannot be done in the current state",
    when: "The thing is in the wrong state (pausing a finished run) or was changed meanwhile.",
  },
  CLOSED: {
    status: 409,
    trpc: "CONFLICT",
    jsonRpc: SERVER_ERROR,
    socket: "It is already closed",
    when: "The human request was already decided.",
  },
  NO_WORKSPACE: {
    status: 409,
    trpc: "PRECONDITION_FAILED",
    jsonRpc: SERVER_ERROR,
    socket: "The run has no workspace yet",
    when: "The run has not started, so it has no workspace yet.",
  },
  GONE: {
    status: 410,
    trpc: "BAD_REQUEST",
    jsonRpc: SERVER_ERROR,
    socket: "It has expired",
    when: "An invitation or reset link has expired.",
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    trpc: "PAYLOAD_TOO_LARGE",
    jsonRpc: INVALID_REQUEST,
    socket: "That message is too large",
    when: "The body is larger than the route takes (2 MB for most).",
  },
  UNPROCESSABLE: {
    status: 422,
    trpc: "UNPROCESSABLE_CONTENT",
    jsonRpc: INVALID_REQUEST,
    socket: "That cannot be shown here",
    when: "The file cannot be shown as text (it is binary).",
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    trpc: "UNSUPPORTED_MEDIA_TYPE",
    jsonRpc: INVALID_REQUEST,
    socket: "That message is not JSON",
    when: "A body that is not JSON.",
  },
  RATE_LIMITED: {
    status: 429,
    trpc: "TOO_MANY_REQUESTS",
    jsonRpc: SERVER_ERROR,
    socket: "Too many attempts; wait a moment",
    when: "Too many attempts from one address; wait and try again.",
  },
  INTERNAL_ERROR: {
    status: 500,
    trpc: "INTERNAL_SERVER_ERROR",
    jsonRpc: INTERNAL,
    socket: "That failed; try again",
    when: "A fault of Rein's; the server log has the details.",
  },
  UNAVAILABLE: {
    status: 503,
    trpc: "PRECONDITION_FAILED",
    jsonRpc: SERVER_ERROR,
    socket: "That is not available on this server",
    when: "The server runs without that part (secrets, MCP servers, self-improvement...).",
  },
  SANDBOX_UNAVAILABLE: {
    status: 503,
    trpc: "PRECONDITION_FAILED",
    jsonRpc: SERVER_ERROR,
    socket: "The sandbox is not available",
    when: "The file sandbox the request needs is missing.",
  },
};

/** One invalid field: `path` is dotted (`spec.tools.0`), empty for the input as a whole. */
export interface ErrorIssue {
  path: string;
  message: string;
}

export interface ErrorDetails {
  /** Each invalid field, for a form to show beside it (REST `error.issues`, tRPC `error.data.issues`). */
  issues?: ErrorIssue[];
}

/** The words REST, the CLI and sockets show for an error Rein did not mean a person to read. */
export const INTERNAL_MESSAGE = "Rein hit an internal error; the server log has details";

/**
 * A refusal a person may read: the code says which kind (and so the status on
 * each transport), the message says what is wrong in their words. Areas
 * extend it and keep their class names, so callers still catch with instanceof.
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.name = "DomainError";
  }

  get issues(): ErrorIssue[] | undefined {
    return this.details.issues?.length ? this.details.issues : undefined;
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && (ERROR_CODES as readonly string[]).includes(value);
}

/** Details holding the field problems an area collected, or none when there are none. */
export function issuesOf(problems: ReadonlyArray<{ field?: string; message: string }> | undefined): ErrorDetails {
  return problems?.length ? { issues: problems.map((p) => ({ path: p.field ?? "", message: p.message })) } : {};
}
