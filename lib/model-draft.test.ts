import { describe, expect, it } from "vitest";
import { fieldErrors } from "./field-errors";
import { MODEL_FIELDS, MODEL_FIELD_ALIAS, NEW_MODEL, guessFamily, modelDraftOf, prefillModel, toModelInput } from "./model-draft";

const VIEW = {
  id: "m1", ref: "local/llama3", provider: "local", modelId: "llama3", family: "llama", contextWindow: 8192, maxOutputTokens: null,
  tools: true, vision: false, streaming: true, strength: 0.4, enabled: true,
  prices: { inputPerMTok: 0.1, outputPerMTok: 0.2, cacheReadPerMTok: 0, cacheWritePerMTok: 0 },
};

describe("a model as typed", () => {
  it("a saved model round-trips through the form", () => {
    const r = toModelInput(modelDraftOf(VIEW));
    expect(r).toEqual({
      ok: true,
      input: {
        provider: "local", modelId: "llama3", family: "llama", contextWindow: 8192, maxOutputTokens: null, strength: 0.4,
        tools: true, vision: false, streaming: true, enabled: true,
        prices: { inputPerMTok: 0.1, outputPerMTok: 0.2, cacheReadPerMTok: 0, cacheWritePerMTok: 0 },
      },
    });
  });

  it("no prices typed: none sent; blank numbers take the server's defaults", () => {
    const r = toModelInput({ ...NEW_MODEL, provider: "p", modelId: "m", family: "f", contextWindow: "", strength: "" });
    expect(r.ok && r.input).toEqual({ provider: "p", modelId: "m", family: "f", contextWindow: undefined, maxOutputTokens: null, strength: undefined, tools: true, vision: false, streaming: true, enabled: true });
  });

  it("text where a number belongs, or half a price, is stopped here", () => {
    expect(toModelInput({ ...NEW_MODEL, contextWindow: "lots", strength: "high" })).toEqual({
      ok: false,
      errors: { contextWindow: "must be a number", strength: "must be a number from 0 to 1, e.g. 0.7" },
    });
    expect(toModelInput({ ...NEW_MODEL, cacheReadPerMTok: "0.1" })).toEqual({
      ok: false,
      errors: { inputPerMTok: "is required when the model has prices", outputPerMTok: "is required when the model has prices" },
    });
  });

  it("out-of-range numbers go to the server, whose messages land under the fields", () => {
    const r = toModelInput({ ...NEW_MODEL, strength: "7", contextWindow: "128,000" });
    expect(r.ok && r.input.strength).toBe(7);
    expect(r.ok && r.input.contextWindow).toBe(128000);
    expect(fieldErrors([{ path: "strength", message: "is between 0 and 1" }, { path: "prices.outputPerMTok", message: "Too big" }], "", MODEL_FIELDS, MODEL_FIELD_ALIAS).fields).toEqual({
      strength: "is between 0 and 1",
      outputPerMTok: "Too big",
    });
  });

  it("a model picked from a Test list gets its provider, id and a guessed family", () => {
    expect(prefillModel("local", "llama3.1:8b")).toMatchObject({ provider: "local", modelId: "llama3.1:8b", family: "llama" });
    expect(guessFamily("gpt-4.1-mini")).toBe("gpt");
    expect(guessFamily("o3-mini")).toBe("gpt");
    expect(guessFamily("claude-sonnet-4-5")).toBe("claude");
    expect(guessFamily("meta-llama/Llama-3.1-8B-Instruct")).toBe("llama");
    expect(guessFamily("Qwen2.5-Coder")).toBe("qwen");
    expect(guessFamily("chatgpt-4o-latest")).toBe("gpt");
    expect(guessFamily("tiny-llama-test")).toBe("llama");
    expect(guessFamily("fake-model")).toBe("fake");
  });
});
