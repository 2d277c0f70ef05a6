import { describe, expect, it } from "vitest";
import { fieldErrors } from "./field-errors";
import {
  NEW_PROVIDER,
  PROVIDER_FIELDS,
  providerDraftOf,
  sameConnection,
  testOutcome,
  toCreateInput,
  toTestInput,
  toUpdateInput,
} from "./provider-draft";

const SAVED = { name: "local", kind: "openai-compatible" as const, baseUrl: "http://127.0.0.1:11434/v1", selfHosted: true, enabled: true };

describe("a provider as typed", () => {
  it("a new provider: blanks are left out, text trimmed", () => {
    expect(toCreateInput({ ...NEW_PROVIDER, name: " local ", baseUrl: " http://h:1/v1 ", apiKey: "  " })).toEqual({
      name: "local",
      kind: "openai-compatible",
      baseUrl: "http://h:1/v1",
      apiKey: undefined,
      selfHosted: false,
      enabled: true,
    });
  });

  it("a saved provider's form never holds its key; an empty key field keeps it", () => {
    const draft = providerDraftOf(SAVED);
    expect(draft.apiKey).toBe("");
    expect(toUpdateInput(draft, SAVED)).toEqual({ name: "local", baseUrl: SAVED.baseUrl, selfHosted: true, enabled: true });
    expect("apiKey" in toUpdateInput(draft, SAVED)).toBe(false);
  });

  it("a new key replaces it, Remove sends null, an emptied base URL is removed", () => {
    const draft = providerDraftOf(SAVED);
    expect(toUpdateInput({ ...draft, apiKey: " sk-new " }, SAVED).apiKey).toBe("sk-new");
    expect(toUpdateInput({ ...draft, apiKey: "sk-new", removeKey: true }, SAVED).apiKey).toBeNull();
    expect(toUpdateInput({ ...draft, baseUrl: "" }, SAVED).baseUrl).toBeNull();
    expect("baseUrl" in toUpdateInput({ ...draft, baseUrl: "" }, { ...SAVED, baseUrl: null })).toBe(false);
  });

  it("Test uses the typed key, else the saved one by name, never when it is being removed", () => {
    const draft = providerDraftOf(SAVED);
    expect(toTestInput(draft, "local")).toEqual({ kind: "openai-compatible", baseUrl: SAVED.baseUrl, apiKey: undefined, keyOf: "local" });
    expect(toTestInput({ ...draft, apiKey: "sk-typed" }, "local")).toEqual({
      kind: "openai-compatible",
      baseUrl: SAVED.baseUrl,
      apiKey: "sk-typed",
    });
    expect(toTestInput({ ...draft, removeKey: true }, "local")).toEqual({
      kind: "openai-compatible",
      baseUrl: SAVED.baseUrl,
      apiKey: undefined,
    });
    expect(toTestInput({ ...NEW_PROVIDER, baseUrl: "http://h/v1" }, null)).toEqual({
      kind: "openai-compatible",
      baseUrl: "http://h/v1",
      apiKey: undefined,
    });
  });

  it("a Test result goes stale when the connection changes, not when the name does", () => {
    const a = providerDraftOf(SAVED);
    expect(sameConnection(a, { ...a, name: "other", selfHosted: false })).toBe(true);
    expect(sameConnection(a, { ...a, baseUrl: "http://other/v1" })).toBe(false);
    expect(sameConnection(a, { ...a, apiKey: "k" })).toBe(false);
    expect(sameConnection(a, { ...a, removeKey: true })).toBe(false);
  });
});

describe("a Test's answer in words", () => {
  it("works: the number of models and the latency", () => {
    expect(testOutcome({ ok: true, models: ["a", "b"], latencyMs: 12 })).toEqual({
      ok: true,
      headline: "Works — 2 models (12 ms)",
      detail: null,
    });
    expect(testOutcome({ ok: true, models: ["a"], latencyMs: 3 }).headline).toBe("Works — 1 model (3 ms)");
    expect(testOutcome({ ok: true, models: [], latencyMs: 3 }).headline).toMatch(/lists no models/);
  });

  it("fails: what the kind means, the status and the provider's message", () => {
    const auth = testOutcome({
      ok: false,
      models: [],
      latencyMs: 40,
      error: { kind: "auth", status: 401, message: "local: authentication failed (HTTP 401)" },
    });
    expect(auth).toEqual({
      ok: false,
      headline: "Failed — the key was refused · HTTP 401 (40 ms)",
      detail: "local: authentication failed (HTTP 401)",
    });
    expect(testOutcome({ ok: false, models: [], latencyMs: 5, error: { kind: "network", message: "ECONNREFUSED" } }).headline).toBe(
      "Failed — could not connect (5 ms)",
    );
    expect(testOutcome({ ok: false, models: [], latencyMs: 5, error: { kind: "weird", message: "?" } }).headline).toBe(
      "Failed — weird (5 ms)",
    );
  });
});

describe("the server's refusals under their fields", () => {
  it("zod issues by path; the rest in one line", () => {
    expect(
      fieldErrors(
        [
          { path: "baseUrl", message: "must be an http:// or https:// URL" },
          { path: "x", message: "odd" },
        ],
        "m",
        PROVIDER_FIELDS,
      ),
    ).toEqual({
      fields: { baseUrl: "must be an http:// or https:// URL" },
      other: "x: odd",
    });
  });

  it("a catalog message that starts with a field goes under it", () => {
    expect(fieldErrors(undefined, "baseUrl: an OpenAI-compatible provider needs a base URL", PROVIDER_FIELDS)).toEqual({
      fields: { baseUrl: "an OpenAI-compatible provider needs a base URL" },
      other: null,
    });
    expect(fieldErrors([], 'A provider named "x" already exists', PROVIDER_FIELDS)).toEqual({
      fields: {},
      other: 'A provider named "x" already exists',
    });
  });
});
