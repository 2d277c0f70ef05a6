// The gate's verdict (pure): what a candidate must show to replace its baseline.
import { describe, expect, it } from "vitest";
import { compareSummaries } from "./compare";
import { gateVerdict } from "./gate";
import { summarize, type TrialResult } from "./results";

function trial(itemKey: string, verdict: boolean | null): TrialResult {
  const scored = verdict !== null;
  return {
    itemKey,
    epoch: 1,
    status: scored ? "done" : "failed",
    runId: null,
    runStatus: null,
    score: scored ? (verdict ? 1 : 0) : null,
    passed: verdict,
    costUsd: 0,
    durationMs: null,
    modelCalls: 0,
    inputTokens: 0,
    outputTokens: 0,
    error: scored ? null : "The run could not start",
    scorers: [],
    detail: null,
  };
}

const keys = ["a", "b", "c", "d", "e", "f"];
const items = keys.map((key) => ({ key, goal: `goal ${key}`, expectedText: null }));
const summaryOf = (verdicts: Array<boolean | null>) =>
  summarize(
    items,
    keys.map((k, i) => trial(k, verdicts[i])),
    1,
    1,
  );

function verdict(baseline: Array<boolean | null>, candidate: Array<boolean | null>) {
  const b = summaryOf(baseline);
  const c = summaryOf(candidate);
  const compared = compareSummaries(b, new Map(), c, new Map(), { baseline: "v1", candidate: "v2" });
  const { items: _items, ...summary } = c;
  return gateVerdict({ experimentId: "cand", label: "v2", summary, ...compared }, "base");
}

describe("gateVerdict", () => {
  it("passes a candidate that does as well as its baseline on every item", () => {
    expect(verdict(Array(6).fill(true), Array(6).fill(true))).toMatchObject({ passed: true, reasons: [] });
  });

  it("fails on the scores with Compare's own sentence, so the two never say different numbers", () => {
    const g = verdict(Array(6).fill(true), Array(6).fill(false));
    expect(g.passed).toBe(false);
    expect(g.reasons).toContain(
      "v2 scores 0.00 against 1.00 for v1 (−1.00, 95% interval −1.00 to −1.00): significantly worse with 6 items",
    );
    // One item is too few for an interval: the gate does not call it worse (the threshold still fails it).
    const one = verdict([true, null, null, null, null, null], [false, null, null, null, null, null]);
    expect(one.reasons.join("\n")).not.toMatch(/significantly worse/);
  });

  it("fails a candidate whose items the baseline passed got no verdict (trials failed or canceled), instead of leaving them out", () => {
    // One item scored and passed; the five others could not run or be scored.
    const g = verdict(Array(6).fill(true), [true, null, null, null, null, null]);
    expect(g.passed).toBe(false);
    expect(g.reasons.join("\n")).toMatch(/5 items the baseline scored have no verdict in the candidate: b, c, d, e, f/);
  });

  it("does not fail for an item the candidate never had (the dataset changed)", () => {
    const b = summaryOf(Array(6).fill(true));
    const c = summarize(
      items.slice(0, 5),
      keys.slice(0, 5).map((k) => trial(k, true)),
      1,
      1,
    );
    const { items: _items, ...summary } = c;
    expect(
      gateVerdict({ experimentId: "cand", label: "v2", summary, ...compareSummaries(b, new Map(), c, new Map()) }, "base"),
    ).toMatchObject({
      passed: true,
    });
  });
});

describe("compareSummaries", () => {
  it("marks an item the two sides ran at different versions, and orders regressions first", () => {
    const b = summaryOf([true, true, false, true, true, true]);
    const c = summaryOf([true, false, true, true, true, true]);
    const out = (ids: Record<string, string>) =>
      new Map(Object.entries(ids).map(([key, itemId]) => [key, { finalText: "", toolSequence: [], runIds: [], itemId }]));
    const compared = compareSummaries(b, out({ a: "a@1", b: "b@1", c: "c@1" }), c, out({ a: "a@2", b: "b@1", c: "c@1" }));
    expect(compared.items.map((i) => [i.key, i.change, i.itemChanged]).slice(0, 3)).toEqual([
      ["b", "regressed", false],
      ["a", "unchanged", true],
      ["d", "unchanged", false],
    ]);
    expect(compared.items.at(-1)).toMatchObject({ key: "c", change: "improved" });
    expect(compared.outcomes).toMatchObject({ regressed: 1, improved: 1, unchanged: 4, significantlyWorse: false });
  });
});
