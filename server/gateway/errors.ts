// The gateway's one error type and its one table (docs/gateway.md#errors):
// every refusal has a kind, and each wire protocol reads its status, error type
// and headers from REFUSALS alone. The words are written for the agent: they
// name no provider key, no provider address and no part of Rein's server.
import { ZodError } from "zod";
import type { Protocol } from "./types";

export type RefusalKind =
  | "unauthorized"
  | "not_found"
  | "method_not_allowed"
  | "invalid_json"
  | "invalid_request"
  | "too_large"
  | "not_running"
  | "call_cap"
  | "budget"
  | "unknown_model"
  | "rate_limited"
  | "upstream"
  | "unavailable"
  | "internal";

interface RefusalMapping {
  status: number;
  /** OpenAI's `error.type` and `error.code`. */
  openai: { type: string; code: string | null };
  /** Anthropic's `error.type`. */
  anthropic: string;
  /**
   * Refusals another attempt cannot change: OpenAI's and Anthropic's clients
   * honour `x-should-retry: false` and give up at once (docs/gateway.md#budgets-and-the-call-cap).
   */
  final?: boolean;
}

export const REFUSALS: Readonly<Record<RefusalKind, RefusalMapping>> = {
  unauthorized: {
    status: 401,
    openai: { type: "invalid_request_error", code: "invalid_api_key" },
    anthropic: "authentication_error",
    final: true,
  },
  not_found: { status: 404, openai: { type: "invalid_request_error", code: "not_found" }, anthropic: "not_found_error" },
  method_not_allowed: {
    status: 405,
    openai: { type: "invalid_request_error", code: "method_not_allowed" },
    anthropic: "invalid_request_error",
  },
  invalid_json: { status: 400, openai: { type: "invalid_request_error", code: "invalid_json" }, anthropic: "invalid_request_error" },
  invalid_request: { status: 400, openai: { type: "invalid_request_error", code: null }, anthropic: "invalid_request_error" },
  too_large: { status: 413, openai: { type: "invalid_request_error", code: "request_too_large" }, anthropic: "request_too_large" },
  not_running: {
    status: 409,
    openai: { type: "invalid_request_error", code: "run_not_running" },
    anthropic: "invalid_request_error",
    final: true,
  },
  call_cap: { status: 429, openai: { type: "insufficient_quota", code: "call_cap_reached" }, anthropic: "rate_limit_error", final: true },
  budget: { status: 402, openai: { type: "insufficient_quota", code: "budget_exceeded" }, anthropic: "billing_error", final: true },
  unknown_model: { status: 400, openai: { type: "invalid_request_error", code: "model_not_found" }, anthropic: "invalid_request_error" },
  rate_limited: { status: 429, openai: { type: "rate_limit_error", code: "rate_limit_exceeded" }, anthropic: "rate_limit_error" },
  upstream: { status: 502, openai: { type: "server_error", code: "upstream_error" }, anthropic: "api_error" },
  unavailable: { status: 503, openai: { type: "server_error", code: "unavailable" }, anthropic: "overloaded_error" },
  internal: { status: 500, openai: { type: "server_error", code: null }, anthropic: "api_error" },
};

/** A request the gateway refuses, with the headers its answer needs. */
export class GatewayRefusal extends Error {
  constructor(
    readonly kind: RefusalKind,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "GatewayRefusal";
  }
}

/** Zod's problems in words, each field named by its path ("messages.3.content.0.id: ..."). */
export function invalidRequest(err: ZodError): GatewayRefusal {
  const words = problems(err.issues, [])
    .slice(0, 5)
    .map((p) => `${p.path.length ? p.path.join(".") : "body"}: ${p.message}`)
    .join("; ");
  return new GatewayRefusal("invalid_request", `Invalid request: ${words}`);
}

type Issue = ZodError["issues"][number];

/** A union that failed says "Invalid input"; the branch that got furthest says what is wrong, and where. */
function problems(issues: readonly Issue[], prefix: PropertyKey[]): Array<{ path: string[]; message: string }> {
  const reach = (branch: readonly Issue[]) => Math.max(0, ...branch.map((i) => i.path.length));
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if (issue.code === "invalid_union" && issue.errors.length) {
      const furthest = issue.errors.reduce((a, b) => (reach(b) > reach(a) ? b : a));
      if (reach(furthest) > 0) return problems(furthest, path);
    }
    return [{ path: path.map(String), message: issue.message }];
  });
}

/** What a thrown value is as a refusal; anything unexpected is logged by the caller and answered without its words. */
export function refusalOf(err: unknown): GatewayRefusal {
  if (err instanceof GatewayRefusal) return err;
  if (err instanceof ZodError) return invalidRequest(err);
  return new GatewayRefusal("internal", "The model gateway hit an internal error; the run's timeline may say more");
}

/** The error body and headers in the protocol's own shape. */
export function errorAnswer(protocol: Protocol, refusal: GatewayRefusal) {
  const m = REFUSALS[refusal.kind];
  const headers = { ...(m.final ? { "x-should-retry": "false" } : {}), ...refusal.headers };
  const body =
    protocol === "anthropic"
      ? { type: "error", error: { type: m.anthropic, message: refusal.message } }
      : { error: { message: refusal.message, type: m.openai.type, param: null, code: m.openai.code } };
  return { status: m.status, headers, body };
}
