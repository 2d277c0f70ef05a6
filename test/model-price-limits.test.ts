// Settings › Models and Settings › Prices refuse impossible numbers in the
// browser by the server's own limits (lib/ may not import server code at
// runtime, so this check lives here).
import { describe, expect, it } from "vitest";
import { ModelInput } from "@/server/models";
import { MAX_PRICE_PER_MTOK } from "@/server/telemetry";
import { MODEL_LIMITS, NEW_MODEL, toModelInput } from "@/lib/model-draft";
import { MAX_PRICE_PER_MTOK as PRICE_FORM_MAX } from "@/lib/price-draft";

describe("the model and price forms' limits", () => {
  it("the highest price is the server's", () => {
    expect(MODEL_LIMITS.pricePerMTok.max).toBe(MAX_PRICE_PER_MTOK);
    expect(PRICE_FORM_MAX).toBe(MAX_PRICE_PER_MTOK);
  });

  it("token counts the form accepts are the ones the server accepts, and no others", () => {
    const base = { provider: "local", modelId: "llama3", family: "llama" };
    for (const f of ["contextWindow", "maxOutputTokens"] as const) {
      const { min, max } = MODEL_LIMITS[f];
      for (const n of [min - 1, min, max, max + 1]) {
        const form = toModelInput({ ...NEW_MODEL, ...base, [f]: String(n) }).ok;
        expect({ f, n, form }).toEqual({ f, n, form: ModelInput.safeParse({ ...base, [f]: n }).success });
      }
    }
  });
});
