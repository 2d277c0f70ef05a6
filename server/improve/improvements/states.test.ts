// Improvements' state table, trust arithmetic and the promotion threshold.
import { describe, expect, it } from "vitest";
import { IMPROVEMENT_STATES, PROMOTION_MIN_USES, canImprovementGo, promotionDue, trustScore, type ImprovementState } from "./states";

const ALLOWED: Array<[ImprovementState, ImprovementState]> = [
  ["proposed", "active"],
  ["proposed", "rejected"],
  ["active", "disabled"],
  ["active", "expired"],
  ["active", "superseded"],
  ["disabled", "active"],
  ["expired", "active"],
];

describe("improvement transitions", () => {
  for (const from of IMPROVEMENT_STATES)
    for (const to of IMPROVEMENT_STATES) {
      const allowed = ALLOWED.some(([a, b]) => a === from && b === to);
      it(`${from} -> ${to} is ${allowed ? "allowed" : "refused"}`, () => expect(canImprovementGo(from, to)).toBe(allowed));
    }
});

describe("trust", () => {
  it("is successful uses / (uses + 1)", () => {
    expect(trustScore(0, 0)).toBe(0);
    expect(trustScore(1, 1)).toBe(0.5);
    expect(trustScore(4, 3)).toBe(0.6);
    expect(trustScore(9, 9)).toBe(0.9);
    expect(trustScore(10, 9)).toBeCloseTo(9 / 11);
  });

  it("never counts more successes than uses", () => {
    expect(trustScore(2, 5)).toBeCloseTo(2 / 3);
  });
});

describe("the promotion proposal", () => {
  const at = (uses: number, successes: number, extra: Partial<{ promoted: boolean; promotionAskedAt: Date | null }> = {}) =>
    promotionDue({ uses, successes, promoted: false, promotionAskedAt: null, ...extra });

  it("is due above 0.8 after 10 uses, and not before", () => {
    expect(PROMOTION_MIN_USES).toBe(10);
    expect(at(9, 9)).toBe(false); // 0.9 but only 9 uses
    expect(at(10, 9)).toBe(true); // 9/11 = 0.818
    expect(at(10, 8)).toBe(false); // 8/11 = 0.727
    expect(at(14, 12)).toBe(false); // 12/15 = 0.8 exactly is not above
    expect(at(14, 13)).toBe(true); // 13/15 = 0.867
    expect(at(15, 12)).toBe(false); // 12/16 = 0.75
  });

  it("is asked once, and never for a promoted tool", () => {
    expect(at(20, 20, { promoted: true })).toBe(false);
    expect(at(20, 20, { promotionAskedAt: new Date() })).toBe(false);
  });
});
