// A turn's failover order with the per-provider circuit breaker
// (docs/models.md#failover-cooldowns-and-the-circuit-breaker): repeated
// failures open a provider's circuit, the next turns go straight to the next
// candidate without calling it, and after the cooldown one trial call
// half-opens it again.
import { describe, expect, it } from "vitest";
import { CircuitBreaker, RateLimiter, guardModel } from "@/server/limits";
import { ProviderError, emptyUsage, type LanguageModel, type ResolvedModel, type StreamPart } from "@/server/models";
import { ModelCallError, callModel } from "./model-call";
import type { NewRunEvent } from "./events";

function fake(provider: string, outcomes: Array<"ok" | "500">): LanguageModel & { calls: number } {
  const m = {
    specificationVersion: "rein-v1" as const,
    provider,
    modelId: "m",
    family: provider,
    calls: 0,
    async doGenerate(): Promise<never> {
      throw new Error("not used");
    },
    async doStream() {
      const outcome = outcomes[m.calls++] ?? "ok";
      if (outcome === "500") throw new ProviderError({ kind: "server", status: 500, message: `${provider} is down`, provider });
      const parts: StreamPart[] = [
        { type: "text-delta", delta: `hello from ${provider}` },
        { type: "finish", finishReason: "stop", usage: emptyUsage() },
      ];
      return { stream: new ReadableStream<StreamPart>({ start: (c) => (parts.forEach((p) => c.enqueue(p)), c.close()) }) };
    },
  };
  return m;
}

describe("a model turn with failover and the circuit breaker", () => {
  it("fails over in order, skips an open circuit without calling it, and half-opens it after the cooldown", async () => {
    let now = 0;
    const breaker = new CircuitBreaker({ failures: 2, cooldownMs: 60_000, now: () => now });
    const guards = { breaker, limiter: new RateLimiter(() => undefined) };
    const a = fake("a", ["500", "500", "ok"]);
    const b = fake("b", []);
    const resolved: ResolvedModel = {
      model: guardModel(a, guards),
      label: "a · m",
      scripted: false,
      ref: "a/m",
      fallbacks: [{ model: guardModel(b, guards), label: "b · m", scripted: false, ref: "b/m" }],
    };
    const events: NewRunEvent[] = [];
    const deps = {
      router: { resolve: () => resolved, coolDown: () => null },
      appendEvents: async (e: NewRunEvent[]) => void events.push(...e),
      publishTransient: () => {},
    };
    const turn = (step: number) =>
      callModel(deps, resolved, {
        runId: "r",
        step,
        agent: "x",
        options: { prompt: [{ role: "user", content: "hi" }], abortSignal: new AbortController().signal },
      });

    for (const step of [1, 2]) {
      const out = await turn(step);
      expect(out).toMatchObject({ text: "hello from b", failovers: 1 });
      expect(out.served.ref).toBe("b/m");
    }
    expect(breaker.state("a")).toBe("open");
    expect(a.calls).toBe(2);

    const third = await turn(3);
    expect(third.served.ref).toBe("b/m");
    expect(a.calls).toBe(2); // the open circuit kept the call from reaching the provider
    expect(events.at(-1)!.payload).toMatchObject({ model: "a/m", failoverTo: "b/m", error: expect.stringContaining("circuit open") });

    now += 60_000;
    expect(breaker.state("a")).toBe("half_open");
    const fourth = await turn(4);
    expect(fourth).toMatchObject({ text: "hello from a", failovers: 0 });
    expect(breaker.state("a")).toBe("closed");
  });

  it("gives up with the last error when every candidate failed", async () => {
    const a = fake("a", ["500"]);
    const b = fake("b", ["500"]);
    const resolved: ResolvedModel = {
      model: a,
      label: "a",
      scripted: false,
      ref: "a/m",
      fallbacks: [{ model: b, label: "b", scripted: false, ref: "b/m" }],
    };
    const events: NewRunEvent[] = [];
    const deps = {
      router: { resolve: () => resolved },
      appendEvents: async (e: NewRunEvent[]) => void events.push(...e),
      publishTransient: () => {},
    };
    const failed = callModel(deps, resolved, {
      runId: "r",
      step: 1,
      agent: "x",
      options: { prompt: [], abortSignal: new AbortController().signal },
    });
    await expect(failed).rejects.toBeInstanceOf(ModelCallError);
    await expect(failed).rejects.toThrow("b is down");
    expect(events.map((e) => e.payload)).toEqual([
      expect.objectContaining({ model: "a/m", failoverTo: "b/m" }),
      expect.not.objectContaining({ failoverTo: expect.anything() }),
    ]);
  });
});
