import { describe, expect, it } from "vitest";
import { fieldErrors } from "./field-errors";
import { MODEL_FIELDS, MODEL_FIELD_ALIAS, NEW_MODEL, guessFamily, modelDraftOf, prefillModel, toModelInput } from "./model-draft";

const VIEW = {
  id: "m1",
  ref: "local/llama3",
  provider: "local",
  modelId: "llama3",
  family: "llama",
  contextWindow: 8192,
  maxOutputTokens: null,
  tools: true,
  vision: false,
  streaming: true,
  strength: 0.4,
  enabled: true,
  prices: { inputPerMTok: 0.1, outputPerMTok: 0.2, cacheReadPerMTok: 0, cacheWritePerMTok: 0 },
};

describe("a model as typed", () => {
  it("a saved model round-trips through the form", () => {
    const r = toModelInput(modelDraftOf(VIEW));
    expect(r).toEqual({
      ok: true,
      input: {
        provider: "local",
        modelId: "llama3",
        family: "llama",
        contextWindow: 8192,
        maxOutputTokens: null,
        strength: 0.4,
        tools: true,
        vision: false,
        streaming: true,
        enabled: true,
        prices: { inputPerMTok: 0.1, outputPerMTok: 0.2, cacheReadPerMTok: 0, cacheWritePerMTok: 0 },
      },
    });
  });

  it("no prices typed: none sent; blank numbers take the server's defaults", () => {
    const r = toModelInput({ ...NEW_MODEL, provider: "p", modelId: "m", family: "f", contextWindow: "", strength: "" });
    expect(r.ok && r.input).toEqual({
      provider: "p",
      modelId: "m",
      family: "f",
      contextWindow: undefined,
      maxOutputTokens: null,
      strength: undefined,
      tools: true,
      vision: false,
      streaming: true,
      enabled: true,
    });
  });

  const NAMED = { ...NEW_MODEL, provider: "local", modelId: "llama3", family: "llama" };

  it("text where a number belongs, or half a price, is stopped here", () => {
    expect(toModelInput({ ...NAMED, contextWindow: "lots", strength: "high" })).toEqual({
      ok: false,
      errors: { contextWindow: "must be a whole number of tokens", strength: "must be a number from 0 to 1, e.g. 0.7" },
    });
    expect(toModelInput({ ...NAMED, cacheReadPerMTok: "0.1" })).toEqual({
      ok: false,
      errors: { inputPerMTok: "is required when the model has prices", outputPerMTok: "is required when the model has prices" },
    });
  });

  it("every empty or impossible field is reported at once, in plain words", () => {
    const r = toModelInput({
      ...NEW_MODEL,
      contextWindow: "-4",
      maxOutputTokens: "0",
      strength: "7",
      inputPerMTok: "-1",
      outputPerMTok: "1e9",
    });
    expect(r).toEqual({
      ok: false,
      errors: {
        provider: "Choose a provider (add one under Providers first)",
        modelId: "is required, e.g. gpt-4.1-mini",
        family: "is required (e.g. gpt, claude, llama)",
        contextWindow: "must be from 1,024 to 10,000,000 tokens",
        maxOutputTokens: "must be from 1 to 1,000,000 tokens",
        strength: "must be a number from 0 to 1, e.g. 0.7",
        inputPerMTok: "must be 0 or more",
        outputPerMTok: "must be a number, e.g. 2.5",
      },
    });
  });

  it("names, whole numbers and huge values are checked by the server's rules", () => {
    const errs = (patch: Partial<typeof NAMED>) => {
      const r = toModelInput({ ...NAMED, ...patch });
      return r.ok ? {} : r.errors;
    };
    expect(errs({ modelId: "gpt 4" })).toEqual({ modelId: "must have no spaces" });
    expect(errs({ family: "g p t" })).toEqual({ family: "must be letters, digits and . _ - only (at most 60)" });
    expect(errs({ contextWindow: "8192.5" })).toEqual({ contextWindow: "must be a whole number of tokens" });
    expect(errs({ contextWindow: "99,000,000" })).toEqual({ contextWindow: "must be from 1,024 to 10,000,000 tokens" });
    expect(errs({ strength: "-0.1" })).toEqual({ strength: "must be a number from 0 to 1, e.g. 0.7" });
    expect(errs({ inputPerMTok: "2", outputPerMTok: "100001" })).toEqual({
      outputPerMTok: "must be at most 100,000 USD per million tokens",
    });
    expect(errs({ inputPerMTok: "NaN", outputPerMTok: "Infinity" })).toEqual({
      inputPerMTok: "must be a number, e.g. 2.5",
      outputPerMTok: "must be a number, e.g. 2.5",
    });
    expect(errs({ strength: "1", contextWindow: "10,000,000", inputPerMTok: "100000", outputPerMTok: "0" })).toEqual({});
  });

  it("the server's messages land under the fields", () => {
    const r = toModelInput({ ...NAMED, strength: "0.7", contextWindow: "128,000" });
    expect(r.ok && r.input.strength).toBe(0.7);
    expect(r.ok && r.input.contextWindow).toBe(128000);
    expect(
      fieldErrors(
        [
          { path: "strength", message: "is between 0 and 1" },
          { path: "prices.outputPerMTok", message: "Too big" },
        ],
        "",
        MODEL_FIELDS,
        MODEL_FIELD_ALIAS,
      ).fields,
    ).toEqual({
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
