import { describe, expect, it } from "vitest";
import { budgetShare, budgetText, fieldIssue, parseBudget } from "./budget-draft";

describe("parseBudget", () => {
  it.each([
    ["25", 25],
    [" 0.50 ", 0.5],
    [".5", 0.5],
    ["$1,000", 1000],
    ["1000000", 1_000_000],
  ])("takes %j as %d", (text, value) => {
    expect(parseBudget(text)).toEqual({ ok: true, value });
  });

  it("takes blank as no budget, unless one is required", () => {
    expect(parseBudget("  ")).toEqual({ ok: true, value: null });
    expect(parseBudget("", { required: true })).toEqual({ ok: false, error: "is required" });
  });

  it.each([
    ["0", "must be more than 0 (leave it empty for no budget)"],
    ["-3", "must be more than 0"],
    ["abc", "must be an amount in USD, e.g. 25 or 0.50"],
    ["1e3", "must be an amount in USD, e.g. 25 or 0.50"],
    ["2.5.1", "must be an amount in USD, e.g. 25 or 0.50"],
    ["1000000.01", "is at most 1,000,000 USD"],
  ])("refuses %j: %s", (text, error) => {
    expect(parseBudget(text)).toEqual({ ok: false, error });
  });
});

describe("helpers", () => {
  it("shows a saved budget, picks the server's issue for a field, and bounds the bar", () => {
    expect(budgetText(null)).toBe("");
    expect(budgetText(12.5)).toBe("12.5");
    expect(fieldIssue([{ path: "maxSteps", message: "needs a ceiling" }], "maxSteps")).toBe("needs a ceiling");
    expect(fieldIssue(undefined, "budgetUsd")).toBeNull();
    expect(budgetShare(5, 20)).toBe(0.25);
    expect(budgetShare(50, 20)).toBe(1);
    expect(budgetShare(5, null)).toBeNull();
  });
});
