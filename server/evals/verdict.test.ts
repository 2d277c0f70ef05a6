// Compare's one verdict: the sentence, whether it is significant, and the
// short names it uses.
import { describe, expect, it } from "vitest";
import { experimentLabels, scoreVerdict, signedScore } from "./verdict";

const verdict = (baseline: number[], candidate: number[]) =>
  scoreVerdict({ baselineLabel: "v1", candidateLabel: "v2", baseline, candidate });

describe("scoreVerdict", () => {
  it("says a difference whose interval holds 0 is not significant, with the means, the difference and the interval", () => {
    const v = verdict([1, 1, 0, 1, 0, 1], [1, 1, 1, 1, 0, 1]);
    expect(v).toMatchObject({ kind: "not_significant", significant: false, items: 6 });
    expect(v.baselineMean).toBeCloseTo(4 / 6);
    expect(v.candidateMean).toBeCloseTo(5 / 6);
    expect(v.meanDiff).toBeCloseTo(1 / 6);
    expect(v.low).toBeLessThanOrEqual(0);
    expect(v.sentence).toBe("v2 scores 0.83 against 0.67 for v1 (+0.17, 95% interval 0.00 to +0.50): not significant with 6 items");
  });

  it("says significantly worse, or better, when the interval leaves out 0", () => {
    const worse = verdict([1, 1, 1, 1, 1, 1], [0, 0, 0.5, 0, 0, 0.5]);
    expect(worse).toMatchObject({ kind: "worse", significant: true, items: 6 });
    expect(worse.high).toBeLessThan(0);
    expect(worse.sentence).toMatch(
      /^v2 scores 0\.17 against 1\.00 for v1 \(−0\.83, 95% interval −1\.00 to −0\.\d\d\): significantly worse with 6 items$/,
    );
    const better = verdict([0, 0, 0.5, 0, 0, 0.5], [1, 1, 1, 1, 1, 1]);
    expect(better).toMatchObject({ kind: "better", significant: true });
    expect(better.sentence).toMatch(/\(\+0\.83, 95% interval \+0\.\d\d to \+1\.00\): significantly better with 6 items$/);
  });

  it("says a tie is not significant, with an interval of 0 to 0", () => {
    const v = verdict([1, 0.5, 1], [1, 0.5, 1]);
    expect(v).toMatchObject({ kind: "not_significant", significant: false, meanDiff: 0, low: 0, high: 0 });
    expect(v.sentence).toBe("v2 scores 0.83 against 0.83 for v1 (0.00, 95% interval 0.00 to 0.00): not significant with 3 items");
  });

  it("gives no interval and no verdict for one item", () => {
    const v = verdict([1], [0]);
    expect(v).toMatchObject({ kind: "too_few", significant: false, items: 1, meanDiff: null, low: null, high: null });
    expect(v.sentence).toBe("v2 scores 0.00 against 1.00 for v1 (−1.00) on the one item both scored: one item is too few to tell");
  });

  it("says there is nothing to compare with zero items", () => {
    expect(verdict([], [])).toEqual({
      kind: "none",
      significant: false,
      items: 0,
      baselineMean: null,
      candidateMean: null,
      meanDiff: null,
      low: null,
      high: null,
      sentence: "No item was scored under both v1 and v2, so their scores cannot be compared",
    });
  });

  it("refuses unpaired scores", () => {
    expect(() => verdict([1, 0], [1])).toThrow(/as many baseline as candidate values, got 2 and 1/);
  });

  it("never shows a bound that is not 0 as 0", () => {
    expect(signedScore(-0.004)).toBe("−0.004");
    expect(signedScore(0.0004)).toBe("+0.0004");
    expect(signedScore(0.005)).toBe("+0.01");
    expect(signedScore(0)).toBe("0.00");
  });
});

describe("experimentLabels", () => {
  const e = (id: string, name: string, agentName: string | null, agentVersion: number | null, model: string | null = null) => ({
    id,
    name,
    agentName,
    agentVersion,
    model,
  });

  it("names one agent's versions v1, v2", () => {
    expect([...experimentLabels([e("a", "x", "coder", 2), e("b", "y", "coder", 1)]).values()]).toEqual(["v2", "v1"]);
  });

  it("uses the experiments' names otherwise, told apart when two share one", () => {
    expect([...experimentLabels([e("a", "first", "coder", 1), e("b", "second", "other", 1)]).values()]).toEqual(["first", "second"]);
    expect([...experimentLabels([e("a", "x", "coder", 1, "m1"), e("b", "y", "coder", 2, "m2")]).values()]).toEqual(["x", "y"]);
    expect([...experimentLabels([e("id-aaaaaa", "run", "coder", 1), e("id-bbbbbb", "run", "coder", 1)]).values()]).toEqual([
      "run (aaaaaa)",
      "run (bbbbbb)",
    ]);
    expect([...experimentLabels([e("a", "x", null, null), e("b", "y", null, null)]).values()]).toEqual(["x", "y"]);
  });
});
