import { describe, expect, it } from "vitest";
import { failoverSummary, failoverText, routingFacts, seconds } from "./model-events";

describe("a failed model call in words", () => {
  it("a 429 with Retry-After that failed over", () => {
    expect(
      failoverText({
        model: "openai/gpt-x",
        errorKind: "rate_limit",
        status: 429,
        retryAfterMs: 7000,
        cooldownMs: 7000,
        failoverTo: "local/llama",
      }),
    ).toBe("openai/gpt-x answered 429 (retry after 7 s) — cooled down 7 s, failing over to local/llama");
  });

  it("no status: the kind; text already streamed: why there was no failover", () => {
    expect(
      failoverText({ model: "a/b", errorKind: "timeout", cooldownMs: 15000, noFailover: "text had already reached the watcher" }),
    ).toBe("a/b did not answer in time — cooled down 15 s, no failover: text had already reached the watcher");
    expect(failoverText({ model: "a/b", errorKind: "auth", status: 401 })).toBe("a/b answered 401");
    expect(failoverText({ model: "a/b" })).toBe("a/b failed");
  });

  it("durations read naturally", () => {
    expect(seconds(450)).toBe("450 ms");
    expect(seconds(1500)).toBe("1.5 s");
    expect(seconds(30000)).toBe("30 s");
    expect(seconds(600000)).toBe("10 min");
  });

  it("a routing decision's facts and the failovers before it", () => {
    const facts = routingFacts({
      taskClass: "code",
      pool: null,
      strategy: "ordered",
      complexity: 0.5,
      candidates: ["a/b"],
      skipped: [],
      reason: "r",
    });
    expect(facts.map((f) => f.value)).toEqual(["code", "the rule's order", "0.5", "none (every model allowed)"]);
    expect(failoverSummary(undefined)).toBeNull();
    expect(failoverSummary(1)).toBe("answered after 1 failed attempt on other models");
    expect(failoverSummary(2)).toBe("answered after 2 failed attempts on other models");
  });
});
