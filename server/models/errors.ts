// Why a model call failed, in terms the router's failover acts on (429, 5xx
// and timeouts cool a deployment down and move on:
// docs/models.md#failover-cooldowns-and-the-circuit-breaker).
// Every backend throws these; none is specific to one provider.

export type ProviderErrorKind = "rate_limit" | "server" | "timeout" | "auth" | "bad_request" | "network";

const RETRYABLE: ReadonlySet<ProviderErrorKind> = new Set(["rate_limit", "server", "timeout", "network"]);

export interface ProviderErrorInit {
  kind: ProviderErrorKind;
  message: string;
  /** The configured provider name. */
  provider?: string;
  /** The HTTP status, when the provider answered. */
  status?: number;
  /** How long the provider asked us to wait (Retry-After), in milliseconds. */
  retryAfterMs?: number;
}

export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly provider?: string;
  readonly status?: number;
  readonly retryAfterMs?: number;

  constructor(init: ProviderErrorInit) {
    super(init.message);
    this.name = "ProviderError";
    this.kind = init.kind;
    this.provider = init.provider;
    this.status = init.status;
    this.retryAfterMs = init.retryAfterMs;
  }

  /** Whether another attempt (here after a pause, or on another candidate) may succeed. */
  get retryable(): boolean {
    return RETRYABLE.has(this.kind);
  }
}

export function isProviderError(error: unknown): error is ProviderError {
  return error instanceof ProviderError;
}

/** How providers word "the prompt is longer than this model reads" (OpenAI, Anthropic, vLLM, Ollama, Gemini). */
const CONTEXT_LENGTH =
  /context[ _-]?(length|window)|maximum context|prompt is too long|too many (input )?tokens|input is too long|exceeds? the (model'?s )?(maximum|context)|max_tokens.*exceed|token limit/i;

/** The provider refused the prompt for its length: the kernel starts a fresh session instead of failing the run. */
export function isContextLengthError(error: unknown): boolean {
  if (!isProviderError(error)) return false;
  if (error.kind !== "bad_request" && error.status !== 413) return false;
  return CONTEXT_LENGTH.test(error.message);
}

/** The kind an HTTP status means. */
export function kindOfStatus(status: number): ProviderErrorKind {
  if (status === 429) return "rate_limit";
  if (status === 408) return "timeout";
  if (status === 401 || status === 403) return "auth";
  if (status >= 500) return "server";
  return "bad_request";
}

type HeaderBag = Headers | Record<string, string | undefined> | undefined;

function header(headers: HeaderBag, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : bag[key];
}

/**
 * The wait a response asks for: `retry-after-ms` (milliseconds, as OpenAI
 * sends), else `Retry-After` as seconds or an HTTP date. Undefined when absent
 * or unreadable.
 */
export function parseRetryAfter(headers: HeaderBag, now: number = Date.now()): number | undefined {
  const ms = header(headers, "retry-after-ms")?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.round(Number(ms));
  const value = header(headers, "retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  // An HTTP date names a weekday and month; Date.parse would also read "-5" as a year.
  const at = /[A-Za-z]/.test(value) ? Date.parse(value) : NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const DESCRIPTION: Record<ProviderErrorKind, string> = {
  rate_limit: "rate limited",
  server: "server error",
  timeout: "timed out",
  auth: "authentication failed",
  bad_request: "request refused",
  network: "network error",
};

/** A ProviderError for an HTTP answer; `detail` is the provider's own message, if any. */
export function providerErrorFromStatus(init: { status: number; headers?: HeaderBag; detail?: string; provider?: string }): ProviderError {
  const kind = kindOfStatus(init.status);
  const detail = init.detail?.trim().slice(0, 500);
  return new ProviderError({
    kind,
    status: init.status,
    provider: init.provider,
    retryAfterMs: parseRetryAfter(init.headers),
    message: `${init.provider ?? "The provider"}: ${DESCRIPTION[kind]} (HTTP ${init.status})${detail ? `: ${detail}` : ""}`,
  });
}
