import { describe, expect, it } from "vitest";
import {
  bootstrapCI,
  compareOutcomes,
  mcnemarExact,
  meanPassAtK,
  meanPassHatK,
  pairedBootstrap,
  passAtK,
  passHatK,
  seededRandom,
  type OutcomePair,
} from "./index";

// Expected values computed exactly, outside this code, with Python's integers and fractions:
//   python3 -c "from math import comb; from fractions import Fraction as F; n,c,k = 200,13,10;
//     print(float(1 - F(comb(n-c,k), comb(n,k))), float(F(comb(c,k), comb(n,k))))"
// Columns: n, c, k, pass@k, pass^k.
const SAMPLE_TABLE: [number, number, number, number, number][] = [
  [1, 0, 1, 0.0, 0.0],
  [1, 1, 1, 1.0, 1.0],
  [5, 0, 1, 0.0, 0.0],
  [5, 5, 5, 1.0, 1.0],
  [5, 2, 1, 0.4, 0.4],
  [5, 2, 2, 0.7, 0.1],
  [5, 2, 3, 0.9, 0.0],
  [5, 2, 5, 1.0, 0.0],
  [7, 3, 2, 0.7142857142857143, 0.14285714285714285],
  [10, 3, 1, 0.3, 0.3],
  [10, 3, 5, 0.9166666666666666, 0.0],
  [10, 7, 3, 0.9916666666666667, 0.2916666666666667],
  [10, 10, 10, 1.0, 1.0],
  [20, 4, 8, 0.8978328173374613, 0.0],
  [30, 29, 30, 1.0, 0.0],
  [200, 0, 10, 0.0, 0.0],
  [200, 1, 1, 0.005, 0.005],
  [200, 13, 10, 0.49755111473060615, 1.2738851058221087e-14],
  [200, 20, 10, 0.660225623763214, 8.229297783610822e-12],
  [200, 50, 5, 0.7666870346193357, 0.000835588494696216],
  [200, 150, 5, 0.9991644115053038, 0.2333129653806643],
  [200, 180, 10, 0.9999999999917707, 0.3397743762367859],
  [200, 5, 100, 0.9703083947657067, 0.0],
  [200, 100, 50, 1.0, 2.2229697512078617e-19],
  [200, 190, 150, 1.0, 4.5754203369316737e-7],
  [200, 199, 199, 1.0, 0.005],
  [200, 199, 200, 1.0, 0.0],
  [200, 200, 200, 1.0, 1.0],
];

/** Equal to about 12 significant digits, so tiny probabilities are checked too. */
function expectRelativelyClose(actual: number, expected: number): void {
  if (expected === 0) expect(actual).toBe(0);
  else expect(actual / expected).toBeCloseTo(1, 12);
}

describe("pass@k and pass^k", () => {
  it.each(SAMPLE_TABLE)("n=%i c=%i k=%i: pass@k %s, pass^k %s", (n, c, k, atK, hatK) => {
    expect(passAtK(n, c, k)).toBeCloseTo(atK, 12);
    expectRelativelyClose(passHatK(n, c, k), hatK);
  });

  it("pass@k grows with k and pass^k shrinks with k", () => {
    const ks = Array.from({ length: 20 }, (_, i) => i + 1);
    const at = ks.map((k) => passAtK(20, 6, k));
    const hat = ks.map((k) => passHatK(20, 6, k));
    for (let i = 1; i < ks.length; i++) {
      expect(at[i]).toBeGreaterThanOrEqual(at[i - 1]);
      expect(hat[i]).toBeLessThanOrEqual(hat[i - 1]);
    }
    expect(at[0]).toBeCloseTo(hat[0], 15); // at k = 1 both are c / n
  });

  it("averages each item's figure over the items", () => {
    const items = [
      { samples: 5, passes: 2 },
      { samples: 10, passes: 7 },
      { samples: 200, passes: 0 },
    ];
    expect(meanPassAtK(items, 1)).toBeCloseTo((0.4 + 0.7 + 0) / 3, 12);
    expect(meanPassAtK(items, 3)).toBeCloseTo((0.9 + 0.9916666666666667 + 0) / 3, 12);
    expect(meanPassHatK(items, 3)).toBeCloseTo((0 + 0.2916666666666667 + 0) / 3, 12);
  });

  it.each([
    ["a negative sample count", () => passAtK(-1, 0, 1), /number of samples n must be a whole number of 0 or more, got -1/],
    ["a negative pass count", () => passHatK(5, -2, 1), /number of passing samples c must be a whole number of 0 or more, got -2/],
    ["a fractional count", () => passAtK(5, 1.5, 1), /passing samples c must be a whole number/],
    ["a count that is not a number", () => passAtK(Number.NaN, 0, 1), /samples n must be a whole number of 0 or more, got NaN/],
    ["more passes than samples", () => passAtK(5, 6, 1), /passing samples c \(6\) cannot exceed the number of samples n \(5\)/],
    ["k above n", () => passHatK(5, 2, 6), /k \(6\) cannot exceed the number of samples n \(5\)/],
    ["k of 0", () => passAtK(5, 2, 0), /k must be at least 1, got 0/],
    ["no samples at all", () => passAtK(0, 0, 1), /k \(1\) cannot exceed the number of samples n \(0\)/],
    ["no items to average", () => meanPassAtK([], 1), /at least one item is needed/],
    [
      "a bad item among good ones",
      () =>
        meanPassHatK(
          [
            { samples: 3, passes: 1 },
            { samples: 3, passes: 4 },
          ],
          1,
        ),
      /c \(4\) cannot exceed/,
    ],
  ])("rejects %s with a clear error", (_, call, message) => {
    expect(call).toThrow(RangeError);
    expect(call).toThrow(message);
  });
});

describe("the seeded generator", () => {
  it("gives mulberry32's sequence, the same for the same seed and another for another", () => {
    // First outputs for seed 1 from an independent Python port of mulberry32.
    const random = seededRandom(1);
    expect([random(), random(), random()]).toEqual([0.6270739405881613, 0.002735721180215478, 0.5274470399599522]);
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom(43);
    const drawsA = Array.from({ length: 100 }, a);
    expect(Array.from({ length: 100 }, b)).toEqual(drawsA);
    expect(Array.from({ length: 100 }, c)).not.toEqual(drawsA);
  });

  it("draws uniformly from [0, 1)", () => {
    const random = seededRandom(7);
    const draws = Array.from({ length: 100_000 }, random);
    expect(draws.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(draws.reduce((s, x) => s + x, 0) / draws.length).toBeCloseTo(0.5, 2);
    expect(draws.filter((x) => x < 0.1).length / draws.length).toBeCloseTo(0.1, 2);
  });
});

/** `n` draws of a Bernoulli(p) variable as 0s and 1s. */
function bernoulli(random: () => number, n: number, p: number): number[] {
  return Array.from({ length: n }, () => (random() < p ? 1 : 0));
}

describe("bootstrap confidence intervals", () => {
  it("covers the true mean of a known distribution with about the width theory gives", () => {
    const values = Array.from({ length: 400 }, seededRandom(11)); // Uniform(0, 1): mean 0.5, sd 1/sqrt(12)
    const ci = bootstrapCI(values, { seed: 5 });
    expect(ci.low).toBeLessThan(0.5);
    expect(ci.high).toBeGreaterThan(0.5);
    expect(ci.low).toBeLessThan(ci.mean);
    expect(ci.high).toBeGreaterThan(ci.mean);
    const expectedWidth = (2 * 1.959964 * (1 / Math.sqrt(12))) / Math.sqrt(values.length); // about 0.0566
    expect((ci.high - ci.low) / expectedWidth).toBeGreaterThan(0.85);
    expect((ci.high - ci.low) / expectedWidth).toBeLessThan(1.15);
    const narrower = bootstrapCI(values, { seed: 5, confidence: 0.8 });
    expect(narrower.high - narrower.low).toBeLessThan(ci.high - ci.low);
  });

  it("covers p = 0.3 in roughly 95% of 200 samples of 50 Bernoulli(0.3) draws", () => {
    const random = seededRandom(2024);
    let covered = 0;
    for (let rep = 0; rep < 200; rep++) {
      const ci = bootstrapCI(bernoulli(random, 50, 0.3), { iterations: 1_000, seed: rep + 1 });
      if (ci.low <= 0.3 && 0.3 <= ci.high) covered++;
    }
    expect(covered / 200).toBeGreaterThanOrEqual(0.9);
    expect(covered / 200).toBeLessThanOrEqual(0.99);
  });

  it("gives the same interval for the same seed and, by default, every time", () => {
    const values = Array.from({ length: 60 }, seededRandom(3));
    expect(bootstrapCI(values, { seed: 9 })).toEqual(bootstrapCI(values, { seed: 9 }));
    expect(bootstrapCI(values)).toEqual(bootstrapCI(values));
    expect(bootstrapCI(values, { seed: 10 })).not.toEqual(bootstrapCI(values, { seed: 9 }));
  });

  it("collapses to the value when every value is the same", () => {
    const ci = bootstrapCI([0.7, 0.7, 0.7], { iterations: 100 });
    for (const bound of [ci.mean, ci.low, ci.high]) expect(bound).toBeCloseTo(0.7, 12);
  });
});

describe("the paired bootstrap", () => {
  const baseline = Array.from({ length: 100 }, seededRandom(77));
  // Each test draws its own noise, so running one alone sees the same numbers.
  const jitter = (seed: number) => {
    const random = seededRandom(seed);
    return () => (random() - 0.5) * 0.4;
  };

  it("finds a clear improvement and a clear regression, with the sign of candidate minus baseline", () => {
    const noise = jitter(1);
    const better = baseline.map((v) => v + 0.15 + noise());
    const up = pairedBootstrap(baseline, better, { seed: 1 });
    expect(up.meanDiff).toBeGreaterThan(0.1);
    expect(up.low).toBeGreaterThan(0);
    expect(up.high).toBeGreaterThan(up.low);
    expect(up.pValue).toBeLessThan(0.001);
    const down = pairedBootstrap(better, baseline, { seed: 1 });
    expect(down.meanDiff).toBeCloseTo(-up.meanDiff, 12);
    expect(down.high).toBeLessThan(0);
    expect(down.pValue).toBeLessThan(0.001);
  });

  it("finds no difference where there is none", () => {
    const noise = jitter(2);
    const same = baseline.map((v) => v + noise());
    const result = pairedBootstrap(baseline, same, { seed: 1 });
    expect(result.low).toBeLessThan(0);
    expect(result.high).toBeGreaterThan(0);
    expect(result.pValue).toBeGreaterThan(0.05);
    expect(pairedBootstrap(baseline, baseline, { iterations: 100 })).toEqual({ meanDiff: 0, low: 0, high: 0, pValue: 1 });
  });

  it("counts resamples with no difference at all as the other side of 0", () => {
    // Differences [1, 0]: a resample's mean is 0 when both draws pick the 0, a chance of 1/4, so p is about 2 * 1/4.
    expect(pairedBootstrap([0, 0], [1, 0], { seed: 1 }).pValue).toBeCloseTo(0.5, 1);
    expect(pairedBootstrap([1, 0], [0, 0], { seed: 1 }).pValue).toBeCloseTo(0.5, 1);
  });

  it("is reproducible with the same seed", () => {
    const noise = jitter(3);
    const other = baseline.map((v) => v + noise());
    expect(pairedBootstrap(baseline, other, { seed: 4 })).toEqual(pairedBootstrap(baseline, other, { seed: 4 }));
  });
});

describe("bootstrap inputs", () => {
  it.each([
    ["no values", () => bootstrapCI([]), /values must hold at least one value/],
    ["a value that is not a number", () => bootstrapCI([1, Number.NaN]), /values must hold only finite numbers; value 1 is NaN/],
    ["an infinite score", () => pairedBootstrap([1, 2], [1, Infinity]), /candidate must hold only finite numbers; value 1 is Infinity/],
    ["no iterations", () => bootstrapCI([1], { iterations: 0 }), /iterations must be a whole number of 1 or more, got 0/],
    ["a confidence of 1", () => bootstrapCI([1], { confidence: 1 }), /confidence must lie strictly between 0 and 1, got 1/],
    ["a confidence given in percent", () => bootstrapCI([1], { confidence: 95 }), /confidence must lie strictly between 0 and 1, got 95/],
    ["a seed that is not a number", () => bootstrapCI([1], { seed: Number.NaN }), /seed must be a finite number/],
    ["unpaired scores", () => pairedBootstrap([1, 2, 3], [1, 2]), /as many baseline as candidate values, got 3 and 2/],
    ["no pairs", () => pairedBootstrap([], []), /baseline must hold at least one value/],
  ])("rejects %s with a clear error", (_, call, message) => {
    expect(call).toThrow(RangeError);
    expect(call).toThrow(message);
  });
});

describe("the exact McNemar test", () => {
  // Exact binomial sums with Python's fractions:
  //   python3 -c "from math import comb; from fractions import Fraction as F; b,c = 25,10; n = b+c;
  //     print(float(min(1, 2*F(sum(comb(n,i) for i in range(min(b,c)+1)), 2**n))) if n else 1.0)"
  // Columns: regressed b, improved c, two-sided p.
  it.each([
    [0, 0, 1.0],
    [1, 0, 1.0],
    [0, 1, 1.0],
    [1, 1, 1.0],
    [3, 3, 1.0],
    [5, 1, 0.21875],
    [6, 0, 0.03125],
    [9, 1, 0.021484375],
    [10, 2, 0.03857421875],
    [0, 10, 0.001953125],
    [12, 30, 0.007915897334896727],
    [25, 10, 0.01667384780012071],
    [100, 130, 0.055613577781392386],
    [2000, 2100, 0.12206497999113813],
    [4800, 5200, 6.593515598672442e-5],
    [5000, 5000, 1.0],
  ])("b=%i c=%i: p = %s", (b, c, p) => {
    expect(mcnemarExact(b, c) / p).toBeCloseTo(1, 9);
    expect(mcnemarExact(c, b)).toBe(mcnemarExact(b, c));
  });

  it("stays finite for ten thousand lopsided pairs, where the exact p is below the smallest double", () => {
    expect(mcnemarExact(100, 9900)).toBe(0);
    expect(mcnemarExact(0, 100_000)).toBe(0);
  });

  it.each([
    ["a negative count", () => mcnemarExact(-1, 3), /number of regressed items must be a whole number of 0 or more, got -1/],
    ["a fractional count", () => mcnemarExact(2, 0.5), /number of improved items must be a whole number of 0 or more, got 0.5/],
  ])("rejects %s with a clear error", (_, call, message) => {
    expect(call).toThrow(RangeError);
    expect(call).toThrow(message);
  });
});

describe("comparing a candidate with its baseline", () => {
  const pairs = (regressed: number, improved: number, bothPass: number, bothFail: number): OutcomePair[] => [
    ...Array.from({ length: regressed }, () => ({ baseline: true, candidate: false })),
    ...Array.from({ length: improved }, () => ({ baseline: false, candidate: true })),
    ...Array.from({ length: bothPass }, () => ({ baseline: true, candidate: true })),
    ...Array.from({ length: bothFail }, () => ({ baseline: false, candidate: false })),
  ];

  it("counts the discordant pairs and flags a significant regression", () => {
    expect(compareOutcomes(pairs(10, 2, 20, 8))).toEqual({
      regressed: 10,
      improved: 2,
      unchanged: 28,
      pValue: mcnemarExact(10, 2),
      significantlyWorse: true,
    });
    expect(compareOutcomes(pairs(10, 2, 20, 8)).pValue).toBeCloseTo(0.03857421875, 12);
  });

  it("does not flag a significant improvement, a regression within chance, or one above a stricter alpha", () => {
    expect(compareOutcomes(pairs(2, 10, 20, 8))).toMatchObject({ regressed: 2, improved: 10, significantlyWorse: false });
    const withinChance = compareOutcomes(pairs(5, 1, 10, 0));
    expect(withinChance.pValue).toBeCloseTo(0.21875, 12);
    expect(withinChance.significantlyWorse).toBe(false);
    expect(compareOutcomes(pairs(10, 2, 0, 0), { alpha: 0.01 }).significantlyWorse).toBe(false);
    expect(compareOutcomes([])).toEqual({ regressed: 0, improved: 0, unchanged: 0, pValue: 1, significantlyWorse: false });
  });

  it("rejects an alpha outside (0, 1)", () => {
    expect(() => compareOutcomes(pairs(1, 0, 0, 0), { alpha: 5 })).toThrow(/alpha must lie strictly between 0 and 1, got 5/);
    expect(() => compareOutcomes(pairs(1, 0, 0, 0), { alpha: 0 })).toThrow(RangeError);
  });
});
