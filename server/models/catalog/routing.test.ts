import { describe, expect, it } from "vitest";
import { route, RoutingError, type RoutingSnapshot } from "./routing";
import { RoutingConfig, type ModelView, type RoutingConfigInput } from "./types";

function model(ref: string, over: Partial<ModelView> = {}): ModelView {
  const [provider, modelId] = ref.split("/");
  return {
    id: ref,
    ref,
    provider,
    modelId,
    family: provider,
    contextWindow: 128_000,
    maxOutputTokens: null,
    tools: true,
    vision: false,
    streaming: true,
    strength: 0.5,
    enabled: true,
    ...over,
  };
}

function snapshot(
  models: ModelView[],
  routing: RoutingConfigInput = {},
  opts: { selfHosted?: string[]; disabled?: string[]; prices?: Record<string, number> } = {},
): RoutingSnapshot {
  const providers = new Map<string, { name: string; selfHosted: boolean; enabled: boolean }>();
  for (const m of models)
    providers.set(m.provider, {
      name: m.provider,
      selfHosted: !!opts.selfHosted?.includes(m.provider),
      enabled: !opts.disabled?.includes(m.provider),
    });
  return {
    providers,
    models: new Map(models.map((m) => [m.ref, m])),
    routing: RoutingConfig.parse(routing),
    blendedPrice: (r) => opts.prices?.[r] ?? null,
  };
}

const none = () => null;

describe("routing", () => {
  const models = [
    model("openai/gpt-big", { family: "gpt", strength: 0.9 }),
    model("openai/gpt-small", { family: "gpt", strength: 0.3 }),
    model("anthropic/claude", { family: "claude", strength: 0.8 }),
    model("local/llama", { family: "llama", strength: 0.6 }),
  ];

  it("routes each task class by its own rule", () => {
    const s = snapshot(models, {
      rules: { plan: { candidates: ["anthropic/claude", "openai/gpt-big"] }, classify: { candidates: ["openai/gpt-small"] } },
    });
    expect(route(s, { model: null, taskClass: "plan", needsTools: false, complexity: 0.5 }, none).candidates).toEqual([
      "anthropic/claude",
      "openai/gpt-big",
    ]);
    expect(route(s, { model: null, taskClass: "classify", needsTools: false, complexity: 0.2 }, none).candidates).toEqual([
      "openai/gpt-small",
    ]);
    // No rule for the class: every usable model, strong enough first.
    expect(route(s, { model: null, taskClass: "code", needsTools: false, complexity: 0.7 }, none).candidates).toEqual([
      "openai/gpt-big",
      "anthropic/claude",
      "local/llama",
      "openai/gpt-small",
    ]);
  });

  it("puts the cheapest strong-enough model first with the cheapest strategy, weaker ones after", () => {
    const s = snapshot(
      models,
      { rules: { code: { strategy: "cheapest", candidates: ["openai/gpt-big", "anthropic/claude", "openai/gpt-small", "local/llama"] } } },
      { prices: { "openai/gpt-big": 20, "anthropic/claude": 18, "openai/gpt-small": 1, "local/llama": 0 } },
    );
    const d = route(s, { model: null, taskClass: "code", needsTools: true, complexity: 0.7 }, none);
    expect(d.candidates).toEqual(["anthropic/claude", "openai/gpt-big", "local/llama", "openai/gpt-small"]);
    expect(d.reason).toContain("cheapest");
    const easy = route(s, { model: null, taskClass: "code", needsTools: true, complexity: 0.1 }, none);
    expect(easy.candidates[0]).toBe("local/llama");
  });

  it("never leaves the team's sensitivity pool, whatever the rules or the run name", () => {
    const s = snapshot(
      models,
      {
        rules: { code: { candidates: ["openai/gpt-big", "local/llama", "anthropic/claude"] } },
        pools: [{ name: "on-prem", selfHosted: true }],
        teamPools: { t1: "on-prem" },
      },
      { selfHosted: ["local"] },
    );
    const d = route(s, { model: null, taskClass: "code", teamId: "t1", needsTools: true }, none);
    expect(d.candidates).toEqual(["local/llama"]);
    expect(d.pool).toBe("on-prem");
    expect(d.skipped.map((x) => x.model).sort()).toEqual(["anthropic/claude", "openai/gpt-big"]);
    expect(() => route(s, { model: "openai/gpt-big", taskClass: "code", teamId: "t1", needsTools: true }, none)).toThrow(
      /outside the pool "on-prem"/,
    );
    // Another team is not limited.
    expect(route(s, { model: null, taskClass: "code", teamId: "t2", needsTools: true }, none).candidates).toHaveLength(3);
    // A pool with no usable model refuses rather than leaving it.
    const empty = snapshot(
      models,
      { rules: { code: { candidates: ["openai/gpt-big"] } }, pools: [{ name: "on-prem", selfHosted: true }], teamPools: { t1: "on-prem" } },
      { selfHosted: ["local"] },
    );
    expect(() => route(empty, { model: null, taskClass: "code", teamId: "t1", needsTools: true }, none)).toThrow(RoutingError);
  });

  it("picks a judge from another family than the agent it judges, within the pool", () => {
    const s = snapshot(models, {
      rules: { judge: { candidates: ["openai/gpt-big", "anthropic/claude", "local/llama"] } },
      pools: [{ name: "p", models: ["openai/gpt-big", "local/llama"] }],
      teamPools: { t: "p" },
    });
    expect(route(s, { model: null, taskClass: "judge", judgeOfFamily: "gpt", needsTools: false }, none).candidates).toEqual([
      "anthropic/claude",
      "local/llama",
    ]);
    expect(route(s, { model: null, taskClass: "judge", judgeOfFamily: "gpt", teamId: "t", needsTools: false }, none).candidates).toEqual([
      "local/llama",
    ]);
    expect(() => route(s, { model: "openai/gpt-big", taskClass: "judge", judgeOfFamily: "gpt", needsTools: false }, none)).toThrow(
      /same family \(gpt\)/,
    );
    const onlyGpt = snapshot(models, { rules: { judge: { candidates: ["openai/gpt-big", "openai/gpt-small"] } } });
    expect(() => route(onlyGpt, { model: null, taskClass: "judge", judgeOfFamily: "gpt", needsTools: false }, none)).toThrow(
      /No model can serve a judge call/,
    );
  });

  it("keeps a named model first and the rule's candidates as its fallbacks", () => {
    const s = snapshot(models, { rules: { code: { candidates: ["anthropic/claude", "openai/gpt-big"] } } });
    const d = route(s, { model: "local/llama", taskClass: "code", needsTools: true }, none);
    expect(d.candidates).toEqual(["local/llama", "anthropic/claude", "openai/gpt-big"]);
    expect(d.strategy).toBe("named");
  });

  it("leaves out disabled models, disabled providers and models without tool calls when the agent has tools", () => {
    const s = snapshot(
      [...models, model("openai/no-tools", { tools: false, strength: 1 }), model("openai/off", { enabled: false, strength: 1 })],
      {},
      { disabled: ["anthropic"] },
    );
    const d = route(s, { model: null, taskClass: "code", needsTools: true, complexity: 0.5 }, none);
    expect(d.candidates).toEqual(["openai/gpt-big", "local/llama", "openai/gpt-small"]);
    expect(Object.fromEntries(d.skipped.map((x) => [x.model, x.reason]))).toMatchObject({
      "openai/no-tools": "does not support tool calls",
      "openai/off": "disabled",
      "anthropic/claude": "its provider anthropic is disabled",
    });
  });

  it("tries deployments that are cooling down last, soonest back first", () => {
    const s = snapshot(models, { rules: { code: { candidates: ["openai/gpt-big", "anthropic/claude", "local/llama"] } } });
    const until: Record<string, number> = { "openai/gpt-big": Date.now() + 60_000, "anthropic/claude": Date.now() + 5_000 };
    const d = route(s, { model: null, taskClass: "code", needsTools: true }, (r) => until[r] ?? null);
    expect(d.candidates).toEqual(["local/llama", "anthropic/claude", "openai/gpt-big"]);
    expect(d.skipped.find((x) => x.model === "openai/gpt-big")?.reason).toMatch(/cooling down for 60 s/);
  });

  it("refuses a routing document that names a pool no one defined, or a pool twice", () => {
    expect(() => RoutingConfig.parse({ teamPools: { t: "nope" } })).toThrow(/no pool is named/);
    expect(() => RoutingConfig.parse({ pools: [{ name: "a" }, { name: "a" }] })).toThrow(/defined twice/);
    expect(() => RoutingConfig.parse({ rules: { code: { candidates: ["no slash"] } } })).toThrow(/<provider>\/<model id>/);
  });
});
