import { describe, expect, it } from "vitest";
import { AGENT_MODEL, chosenModel, modelChoices, parseComplexity } from "./model-options";

const SCRIPTED = { ref: "scripted/demo-coder", label: "scripted · demo-coder (demo, no model called)", scripted: true, family: null };
const LOCAL = { ref: "local/llama3", label: "local · llama3", scripted: false, family: "llama" };

describe("the New run model picker", () => {
  it("nothing configured: the agent's scripted model is the default, no auto, the demos labelled scripted", () => {
    const c = modelChoices({ models: [SCRIPTED], routingAvailable: false }, "scripted/demo-coder");
    expect(c.top).toEqual([
      { value: AGENT_MODEL, label: "The agent's model: scripted/demo-coder (scripted demo, no model called)", scripted: true },
    ]);
    expect(c.configured).toEqual([]);
    expect(c.scripted).toEqual([{ value: "scripted/demo-coder", label: "scripted · demo-coder (demo, no model called)", scripted: true }]);
  });

  it("models configured: auto and each model", () => {
    const c = modelChoices({ models: [LOCAL, SCRIPTED], routingAvailable: true }, "scripted/demo-coder");
    expect(c.top.map((o) => o.value)).toEqual([AGENT_MODEL, "auto"]);
    expect(c.configured).toEqual([{ value: "local/llama3", label: "local · llama3", scripted: false }]);
  });

  it("the agent's own model is sent as nothing", () => {
    expect(chosenModel(AGENT_MODEL)).toBeUndefined();
    expect(chosenModel("auto")).toBe("auto");
  });

  it("complexity: blank is unset, else 0..1", () => {
    expect(parseComplexity(" ")).toEqual({ ok: true, value: undefined });
    expect(parseComplexity("0.7")).toEqual({ ok: true, value: 0.7 });
    expect(parseComplexity("1")).toEqual({ ok: true, value: 1 });
    expect(parseComplexity("1.5")).toEqual({ ok: false, error: "must be from 0 to 1" });
    expect(parseComplexity("-0.1").ok).toBe(false);
    expect(parseComplexity("hard").ok).toBe(false);
  });
});
