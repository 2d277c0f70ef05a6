import { describe, expect, it } from "vitest";
import { ProviderError, type LanguageModel, type StreamPart } from "@/server/models";
import { CircuitBreaker, CircuitOpenError, RateLimiter, guardModel } from "./index";

describe("the rate limiter", () => {
  it("lets `rps` calls through at once, then spaces them at 1/rps; other keys and unlimited keys never wait", async () => {
    let now = 0;
    const limiter = new RateLimiter(
      (k) => (k === "openai" ? 2 : undefined),
      () => now,
    );
    await limiter.acquire("openai");
    await limiter.acquire("openai");
    let third = false;
    const pending = limiter.acquire("openai").then(() => (third = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(third).toBe(false);
    await limiter.acquire("scripted");
    now += 500; // half a second later one token is back
    await pending;
    expect(third).toBe(true);
  });

  it("stops waiting when the caller aborts", async () => {
    const limiter = new RateLimiter(
      () => 1,
      () => 0,
    );
    await limiter.acquire("p");
    const abort = new AbortController();
    const waiting = limiter.acquire("p", abort.signal);
    abort.abort(new Error("canceled"));
    await expect(waiting).rejects.toThrow("canceled");
  });
});

describe("the circuit breaker", () => {
  it("opens after N failures in a row, half-opens after the cooldown for one trial, closes on success", () => {
    let now = 0;
    const breaker = new CircuitBreaker({ failures: 3, cooldownMs: 1000, now: () => now });
    breaker.failure("p");
    breaker.failure("p");
    breaker.success("p"); // not in a row
    breaker.failure("p");
    breaker.failure("p");
    expect(breaker.state("p")).toBe("closed");
    breaker.failure("p");
    expect(breaker.state("p")).toBe("open");
    expect(() => breaker.before("p")).toThrow(CircuitOpenError);
    expect(() => breaker.before("other")).not.toThrow();
    now += 1000;
    expect(breaker.state("p")).toBe("half_open");
    breaker.before("p"); // the trial
    expect(() => breaker.before("p")).toThrow(/circuit open/); // only one at a time
    breaker.failure("p");
    expect(breaker.state("p")).toBe("open");
    now += 1000;
    breaker.before("p");
    breaker.success("p");
    expect(breaker.state("p")).toBe("closed");
  });
});

function fakeModel(script: Array<"ok" | ProviderError | "stream-error">): LanguageModel & { calls: number } {
  const m = {
    specificationVersion: "rein-v1" as const,
    provider: "fake",
    modelId: "m",
    family: "f",
    calls: 0,
    async doGenerate() {
      throw new Error("not used");
    },
    async doStream() {
      const step = script[m.calls++];
      if (step instanceof ProviderError) throw step;
      const parts: StreamPart[] =
        step === "stream-error"
          ? [{ type: "error", error: new ProviderError({ kind: "server", message: "boom" }) }]
          : [
              {
                type: "finish",
                finishReason: "stop",
                usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0, cacheWriteInputTokens: 0, totalTokens: 2 },
              },
            ];
      return { stream: new ReadableStream<StreamPart>({ start: (c) => (parts.forEach((p) => c.enqueue(p)), c.close()) }) };
    },
  };
  return m;
}

async function drain(model: LanguageModel) {
  const { stream } = await model.doStream({ prompt: [] });
  const reader = stream.getReader();
  while (!(await reader.read()).done);
}

describe("a guarded model", () => {
  it("counts provider failures (also inside the stream), not bad requests, and stops calling an open provider", async () => {
    const server = () => new ProviderError({ kind: "server", status: 500, message: "down" });
    const bad = new ProviderError({ kind: "bad_request", status: 400, message: "bad" });
    const inner = fakeModel([bad, bad, server(), "stream-error", "ok"]);
    const breaker = new CircuitBreaker({ failures: 2, cooldownMs: 60_000 });
    const model = guardModel(inner, { breaker, limiter: new RateLimiter(() => undefined) });
    await expect(drain(model)).rejects.toBe(bad);
    await expect(drain(model)).rejects.toBe(bad);
    expect(breaker.state("fake")).toBe("closed");
    await expect(drain(model)).rejects.toThrow("down");
    await drain(model); // the stream's error part counts as the second failure
    expect(breaker.state("fake")).toBe("open");
    await expect(drain(model)).rejects.toBeInstanceOf(CircuitOpenError);
    expect(inner.calls).toBe(4); // the open circuit kept the fifth call from the provider
  });
});
