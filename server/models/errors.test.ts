// ProviderError kinds and Retry-After, which the router's failover acts on.
import { describe, expect, it } from "vitest";
import { ProviderError, kindOfStatus, parseRetryAfter, providerErrorFromStatus } from "./errors";

describe("kindOfStatus", () => {
  it("maps statuses to the kinds failover distinguishes", () => {
    expect([429, 408, 401, 403, 500, 502, 503, 529, 400, 404, 422].map(kindOfStatus)).toEqual([
      "rate_limit",
      "timeout",
      "auth",
      "auth",
      "server",
      "server",
      "server",
      "server",
      "bad_request",
      "bad_request",
      "bad_request",
    ]);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");

  it("reads seconds, HTTP dates and retry-after-ms (which wins)", () => {
    expect(parseRetryAfter({ "Retry-After": "30" }, now)).toBe(30_000);
    expect(parseRetryAfter({ "retry-after": "1.5" }, now)).toBe(1500);
    expect(parseRetryAfter({ "retry-after": "Thu, 01 Jan 2026 00:00:45 GMT" }, now)).toBe(45_000);
    expect(parseRetryAfter({ "retry-after": "Wed, 31 Dec 2025 23:00:00 GMT" }, now)).toBe(0);
    expect(parseRetryAfter({ "retry-after-ms": "250", "retry-after": "30" }, now)).toBe(250);
    expect(parseRetryAfter(new Headers({ "retry-after": "2" }), now)).toBe(2000);
  });

  it("is undefined when absent or unreadable", () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter({}, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after": "soon" }, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after": "-5" }, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after-ms": "x", "retry-after": "3" }, now)).toBe(3000);
  });
});

describe("ProviderError", () => {
  it("says which kinds are worth another attempt", () => {
    const kinds = ["rate_limit", "server", "timeout", "network", "auth", "bad_request"] as const;
    expect(kinds.map((kind) => new ProviderError({ kind, message: "m" }).retryable)).toEqual([true, true, true, true, false, false]);
  });

  it("names the provider, the status and the provider's message, bounded", () => {
    const e = providerErrorFromStatus({
      status: 429,
      headers: { "retry-after": "4" },
      detail: "slow down " + "x".repeat(1000),
      provider: "openai",
    });
    expect(e).toMatchObject({ kind: "rate_limit", status: 429, retryAfterMs: 4000, provider: "openai" });
    expect(e.message.startsWith("openai: rate limited (HTTP 429): slow down")).toBe(true);
    expect(e.message.length).toBeLessThan(600);
  });
});
