import { describe, expect, it } from "vitest";
import {
  compareHref,
  deltaTone,
  formatDurationDelta,
  formatInterval,
  formatScore,
  formatScoreDelta,
  formatUsdDelta,
  parseCompareParams,
  progressLine,
  progressSegments,
  trialPassRate,
} from "./eval-format";

const progress = (p: Partial<Parameters<typeof progressLine>[0]>) => ({
  total: 0,
  pending: 0,
  running: 0,
  scoring: 0,
  done: 0,
  failed: 0,
  canceled: 0,
  passed: 0,
  ...p,
});

describe("scores and deltas", () => {
  it.each([
    [0.8333, "0.83"],
    [1, "1.00"],
    [null, "—"],
    [Number.NaN, "—"],
  ])("score %j reads %j", (score, text) => expect(formatScore(score)).toBe(text));

  it("writes an interval low to high", () => expect(formatInterval({ low: 0.666, high: 1 })).toBe("0.67 – 1.00"));

  it.each([
    [0.25, "+0.25"],
    [-0.5, "−0.50"],
    [0.001, "±0.00"],
    [null, "—"],
  ])("score delta %j reads %j", (d, text) => expect(formatScoreDelta(d)).toBe(text));

  it.each([
    [0.0012, "+$0.0012"],
    [-0.05, "−$0.05"],
    [-1.2, "−$1.20"],
    [0, "±$0"],
    [null, "—"],
  ])("cost delta %j reads %j", (d, text) => expect(formatUsdDelta(d)).toBe(text));

  it.each([
    [1200, "+1.2 s"],
    [-850, "−850 ms"],
    [0.2, "±0 ms"],
    [undefined, "—"],
  ])("duration delta %j reads %j", (d, text) => expect(formatDurationDelta(d)).toBe(text));

  it("says which way is better", () => {
    expect(deltaTone(0.2, "higher")).toBe("good");
    expect(deltaTone(0.2, "lower")).toBe("bad");
    expect(deltaTone(-0.01, "lower")).toBe("good");
    expect(deltaTone(0, "higher")).toBe("same");
    expect(deltaTone(null, "higher")).toBe("same");
  });
});

describe("Compare's address", () => {
  it("puts a chosen baseline first and names it", () => {
    expect(compareHref(["b", "a", "c"], "a")).toBe("/evals/compare?ids=a,b,c&baseline=a");
  });

  it("names no baseline when nobody chose one, so the server takes the oldest", () => {
    expect(compareHref(["b", "a"])).toBe("/evals/compare?ids=b,a");
    expect(compareHref(["b", "a"], null)).toBe("/evals/compare?ids=b,a");
  });

  it("reads ids and a chosen baseline among them, none otherwise", () => {
    expect(parseCompareParams("a, b,,b", "b")).toEqual({ ids: ["a", "b"], baselineId: "b" });
    expect(parseCompareParams("a,b", "zzz")).toEqual({ ids: ["a", "b"], baselineId: null });
    expect(parseCompareParams("a,b", null)).toEqual({ ids: ["a", "b"], baselineId: null });
    expect(parseCompareParams(null, null)).toEqual({ ids: [], baselineId: null });
  });
});

describe("progress", () => {
  it("splits the bar into passed, not passed, under way, could not run and canceled", () => {
    const p = progress({ total: 10, done: 5, passed: 3, running: 1, scoring: 1, failed: 1, pending: 2 });
    expect(progressSegments(p)).toEqual([
      { kind: "passed", count: 3, share: 0.3 },
      { kind: "not_passed", count: 2, share: 0.2 },
      { kind: "running", count: 2, share: 0.2 },
      { kind: "failed", count: 1, share: 0.1 },
    ]);
    expect(progressLine(p)).toBe("5 of 10 done · 2 running · 1 could not run");
    expect(trialPassRate(p)).toBe(0.6);
  });

  it("has no parts and no pass rate before anything ran", () => {
    const p = progress({ total: 0 });
    expect(progressSegments(p)).toEqual([]);
    expect(progressLine(p)).toBe("0 of 0 done");
    expect(trialPassRate(p)).toBeNull();
  });
});
