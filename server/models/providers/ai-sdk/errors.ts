// Whatever a provider call threw, as a ProviderError the router can act on.
// Messages never carry the API key, request bodies or headers.
import { APICallError } from "@ai-sdk/provider";
import { ProviderError, providerErrorFromStatus, type ProviderErrorKind } from "../../errors";
import { ProviderTimeout } from "./fetch";

export interface ErrorContext {
  provider: string;
  /** Values to scrub from messages (the API key). */
  secrets: ReadonlyArray<string | undefined>;
}

/**
 * The provider's stream ended without its closing event (the SDK's
 * "interrupted" finish). The response arrived but was cut short, so it counts
 * as a server error: retryable, and the router may fail over when no text
 * reached the watcher yet.
 */
export class StreamInterrupted extends Error {
  constructor() {
    super("the response stream ended before the provider finished it");
    this.name = "StreamInterrupted";
  }
}

const NETWORK_CODES = /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EPIPE|ETIMEDOUT|UND_ERR_\w+)$/;

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e != null && chain.length < 8 && !chain.includes(e); e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

function scrub(text: string, secrets: ErrorContext["secrets"]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join("[redacted]");
  return out;
}

/** Error bodies inside a stream (OpenAI's `error` chunk, Anthropic's `error` event) name a type, not a status. */
function kindOfErrorType(type: string): ProviderErrorKind {
  if (/rate_limit|too_many/.test(type)) return "rate_limit";
  if (/auth|permission|invalid_api_key/.test(type)) return "auth";
  if (/invalid_request|not_found|bad_request/.test(type)) return "bad_request";
  if (/timeout/.test(type)) return "timeout";
  return "server";
}

export function classifyError(error: unknown, ctx: ErrorContext): ProviderError {
  const e = classify(error, ctx);
  const message = scrub(e.message, ctx.secrets);
  return message === e.message
    ? e
    : new ProviderError({ kind: e.kind, status: e.status, retryAfterMs: e.retryAfterMs, provider: e.provider, message });
}

function classify(error: unknown, ctx: ErrorContext): ProviderError {
  if (error instanceof ProviderError) return error;
  const chain = causes(error);
  const timeout = chain.find((e): e is ProviderTimeout => e instanceof ProviderTimeout);
  if (timeout) {
    return new ProviderError({
      kind: "timeout",
      provider: ctx.provider,
      message: `${ctx.provider}: timed out: no response for ${timeout.timeoutMs} ms`,
    });
  }
  if (error instanceof StreamInterrupted) {
    return new ProviderError({ kind: "server", provider: ctx.provider, message: `${ctx.provider}: ${error.message}` });
  }
  if (APICallError.isInstance(error) && error.statusCode !== undefined) {
    return providerErrorFromStatus({
      status: error.statusCode,
      headers: error.responseHeaders,
      detail: error.message,
      provider: ctx.provider,
    });
  }
  const network = chain.find(
    (e) => typeof (e as { code?: unknown })?.code === "string" && NETWORK_CODES.test((e as { code: string }).code),
  );
  if (APICallError.isInstance(error) || network || (error instanceof TypeError && /fetch failed/i.test(error.message))) {
    const detail = network instanceof Error ? network.message : error instanceof Error ? error.message : String(error);
    return new ProviderError({ kind: "network", provider: ctx.provider, message: `${ctx.provider}: network error: ${detail}` });
  }
  // An error reported inside a stream, or a response the SDK could not read.
  const body = (error as { error?: unknown })?.error ?? error;
  const type = [(body as { type?: unknown })?.type, (body as { code?: unknown })?.code].filter((t) => typeof t === "string").join(" ");
  const message =
    error instanceof Error
      ? error.message
      : typeof (body as { message?: unknown })?.message === "string"
        ? (body as { message: string }).message
        : JSON.stringify(body);
  return new ProviderError({
    kind: type ? kindOfErrorType(type) : "server",
    provider: ctx.provider,
    message: `${ctx.provider}: ${type ? `${type}: ` : ""}${(message ?? "unknown error").slice(0, 500)}`,
  });
}
