import { describe, expect, it } from "vitest";
import { EMPTY_DRAFT, draftErrors, draftOf, isDirty, serverErrors, toPriceInput } from "./price-draft";

const GOOD = { model: "openai/gpt-4.1", inputPerMTok: "2", outputPerMTok: "8", cacheReadPerMTok: "0.5", cacheWritePerMTok: "" };

describe("a price row as typed", () => {
  it("a complete row has no errors and becomes numbers, blank cache prices 0", () => {
    expect(draftErrors(GOOD)).toEqual({});
    expect(toPriceInput({ ...GOOD, model: " openai/gpt-4.1 " })).toEqual({
      model: "openai/gpt-4.1",
      inputPerMTok: 2,
      outputPerMTok: 8,
      cacheReadPerMTok: 0.5,
      cacheWritePerMTok: 0,
    });
    expect(draftErrors({ ...GOOD, inputPerMTok: ".25", outputPerMTok: "0" })).toEqual({});
  });

  it("says what is wrong with each field", () => {
    expect(draftErrors(EMPTY_DRAFT)).toEqual({ model: "is required", inputPerMTok: "is required", outputPerMTok: "is required" });
    expect(draftErrors({ ...GOOD, model: "gpt-4.1" }).model).toMatch(/<provider>\/<model id>/);
    expect(draftErrors({ ...GOOD, model: "OpenAI/gpt" }).model).toMatch(/<provider>/);
    expect(draftErrors({ ...GOOD, inputPerMTok: "-1" })).toEqual({ inputPerMTok: "must be 0 or more" });
    expect(draftErrors({ ...GOOD, outputPerMTok: "abc" })).toEqual({ outputPerMTok: "must be a number, e.g. 2.5" });
    expect(draftErrors({ ...GOOD, cacheWritePerMTok: "1e3" })).toEqual({ cacheWritePerMTok: "must be a number, e.g. 2.5" });
    expect(draftErrors({ ...GOOD, cacheReadPerMTok: "1,5" })).toEqual({ cacheReadPerMTok: "must be a number, e.g. 2.5" });
  });

  it("refuses absurdly large prices and shows every bad field at once", () => {
    expect(draftErrors({ ...GOOD, inputPerMTok: "100001" })).toEqual({ inputPerMTok: "must be at most 100,000 USD per million tokens" });
    expect(draftErrors({ ...GOOD, outputPerMTok: "99999999999999999999" })).toEqual({
      outputPerMTok: "must be at most 100,000 USD per million tokens",
    });
    expect(draftErrors({ ...GOOD, inputPerMTok: "100000" })).toEqual({});
    expect(draftErrors({ ...GOOD, model: `openai/${"x".repeat(200)}` })).toEqual({ model: "must be at most 200 characters" });
    expect(
      draftErrors({ model: "", inputPerMTok: "-2", outputPerMTok: "NaN", cacheReadPerMTok: "1000000", cacheWritePerMTok: "" }),
    ).toEqual({
      model: "is required",
      inputPerMTok: "must be 0 or more",
      outputPerMTok: "must be a number, e.g. 2.5",
      cacheReadPerMTok: "must be at most 100,000 USD per million tokens",
    });
  });

  it("maps the server's issues to fields", () => {
    expect(serverErrors([{ path: "inputPerMTok", message: "is at most 100000 USD per million tokens" }], "x")).toEqual({
      fields: { inputPerMTok: "is at most 100000 USD per million tokens" },
      other: null,
    });
    expect(serverErrors([{ path: "", message: "odd" }], "x")).toEqual({ fields: {}, other: "odd" });
    expect(serverErrors(undefined, "This needs the admin role")).toEqual({ fields: {}, other: "This needs the admin role" });
  });

  it("knows when a saved row was edited", () => {
    const saved = { model: "openai/gpt-4.1", inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.5, cacheWritePerMTok: 0 };
    expect(isDirty(draftOf(saved), saved)).toBe(false);
    expect(isDirty({ ...draftOf(saved), inputPerMTok: "2.1" }, saved)).toBe(true);
    expect(isDirty({ ...draftOf(saved), inputPerMTok: " 2 " }, saved)).toBe(false);
  });
});
