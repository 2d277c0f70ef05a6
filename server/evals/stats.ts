// Statistics for evals (EvalGate, docs/evals.md#compare-and-the-gate): pass@k
// and pass^k over repeated samples, bootstrap confidence intervals, and the
// exact McNemar test a regression gate uses to compare a baseline with a
// candidate item by item. Pure functions; randomness comes only from a seeded
// generator, so every figure can be reproduced.

/** One eval item sampled `samples` times, of which `passes` passed. */
export interface ItemSamples {
  samples: number;
  passes: number;
}

function requireCount(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`${name} must be a whole number of 0 or more, got ${value}`);
}

function checkSampleCounts(n: number, c: number, k: number): void {
  requireCount("the number of samples n", n);
  requireCount("the number of passing samples c", c);
  requireCount("k", k);
  if (c > n) throw new RangeError(`the number of passing samples c (${c}) cannot exceed the number of samples n (${n})`);
  if (k < 1) throw new RangeError(`k must be at least 1, got ${k}`);
  if (k > n) throw new RangeError(`k (${k}) cannot exceed the number of samples n (${n})`);
}

/**
 * pass@k: the chance that at least one of k samples drawn without replacement
 * from n, of which c passed, passes. The unbiased estimator of Chen et al.
 * (2021), 1 - C(n-c, k) / C(n, k), taken as a product so large n never builds
 * a factorial.
 */
export function passAtK(n: number, c: number, k: number): number {
  checkSampleCounts(n, c, k);
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

/**
 * pass^k (tau-bench): the chance that k samples drawn without replacement from
 * n, of which c passed, all pass: C(c, k) / C(n, k), taken as a product of k
 * ratios each at most 1.
 */
export function passHatK(n: number, c: number, k: number): number {
  checkSampleCounts(n, c, k);
  if (c < k) return 0;
  let allPass = 1;
  for (let j = 0; j < k; j++) allPass *= (c - j) / (n - j);
  return allPass;
}

function meanOverItems(items: readonly ItemSamples[], perItem: (item: ItemSamples) => number): number {
  if (items.length === 0) throw new RangeError("at least one item is needed to average over items");
  let sum = 0;
  for (const item of items) sum += perItem(item);
  return sum / items.length;
}

/** The mean of each item's pass@k. */
export function meanPassAtK(items: readonly ItemSamples[], k: number): number {
  return meanOverItems(items, (item) => passAtK(item.samples, item.passes, k));
}

/** The mean of each item's pass^k. */
export function meanPassHatK(items: readonly ItemSamples[], k: number): number {
  return meanOverItems(items, (item) => passHatK(item.samples, item.passes, k));
}

/** A source of uniform numbers in [0, 1). */
export type Random = () => number;

/** mulberry32: a small, fast 32-bit generator; the same seed gives the same sequence. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface BootstrapOptions {
  /** Resamples drawn; 10,000 by default. */
  iterations?: number;
  /** The interval's coverage, between 0 and 1; 0.95 by default. */
  confidence?: number;
  /** Seed of the generator that draws the resamples; 1 by default. */
  seed?: number;
}

export interface ConfidenceInterval {
  mean: number;
  low: number;
  high: number;
}

export interface PairedDifference {
  /** The mean of candidate minus baseline over the pairs. */
  meanDiff: number;
  low: number;
  high: number;
  /** Two-sided: twice the share of resampled means on the other side of 0 (0 itself counts), at most 1. */
  pValue: number;
}

function checkValues(name: string, values: readonly number[]): void {
  if (values.length === 0) throw new RangeError(`${name} must hold at least one value`);
  const bad = values.findIndex((v) => !Number.isFinite(v));
  if (bad >= 0) throw new RangeError(`${name} must hold only finite numbers; value ${bad} is ${values[bad]}`);
}

function resolveOptions(opts: BootstrapOptions): Required<BootstrapOptions> {
  const { iterations = 10_000, confidence = 0.95, seed = 1 } = opts;
  if (!Number.isInteger(iterations) || iterations < 1)
    throw new RangeError(`iterations must be a whole number of 1 or more, got ${iterations}`);
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence must lie strictly between 0 and 1, got ${confidence}`);
  if (!Number.isFinite(seed)) throw new RangeError(`seed must be a finite number, got ${seed}`);
  return { iterations, confidence, seed };
}

function mean(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/** The means of `iterations` resamples of `values` drawn with replacement, sorted ascending. */
function resampledMeans(values: readonly number[], iterations: number, random: Random): Float64Array {
  const n = values.length;
  const means = new Float64Array(iterations);
  for (let r = 0; r < iterations; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += values[Math.floor(random() * n)];
    means[r] = sum / n;
  }
  return means.sort();
}

/** The q-quantile of sorted values, interpolating linearly between neighbours. */
function quantile(sorted: Float64Array, q: number): number {
  const at = (sorted.length - 1) * q;
  const below = Math.floor(at);
  const above = Math.min(below + 1, sorted.length - 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (at - below);
}

/** A percentile-bootstrap confidence interval for the mean of `values`. */
export function bootstrapCI(values: readonly number[], opts: BootstrapOptions = {}): ConfidenceInterval {
  checkValues("values", values);
  const { iterations, confidence, seed } = resolveOptions(opts);
  const means = resampledMeans(values, iterations, seededRandom(seed));
  const tail = (1 - confidence) / 2;
  return { mean: mean(values), low: quantile(means, tail), high: quantile(means, 1 - tail) };
}

/**
 * A paired percentile bootstrap of the mean difference candidate - baseline,
 * where baseline[i] and candidate[i] score the same item.
 */
export function pairedBootstrap(baseline: readonly number[], candidate: readonly number[], opts: BootstrapOptions = {}): PairedDifference {
  if (baseline.length !== candidate.length) {
    throw new RangeError(`paired scores need as many baseline as candidate values, got ${baseline.length} and ${candidate.length}`);
  }
  checkValues("baseline", baseline);
  checkValues("candidate", candidate);
  const { iterations, confidence, seed } = resolveOptions(opts);
  const diffs = candidate.map((v, i) => v - baseline[i]);
  const meanDiff = mean(diffs);
  const means = resampledMeans(diffs, iterations, seededRandom(seed));
  const tail = (1 - confidence) / 2;
  // Resampled means on the other side of 0 from the observed one; 0 itself
  // counts as the other side, so ties never make a difference look surer.
  let across = iterations;
  if (meanDiff > 0) across = means.filter((m) => m <= 0).length;
  else if (meanDiff < 0) across = means.filter((m) => m >= 0).length;
  return { meanDiff, low: quantile(means, tail), high: quantile(means, 1 - tail), pValue: Math.min(1, (2 * across) / iterations) };
}

/**
 * The exact McNemar test on the discordant pairs: `regressed` items the
 * baseline passed and the candidate failed, `improved` the other way round.
 * Two-sided p = min(1, 2 P(X <= min)) with X ~ Binomial(regressed + improved, 1/2),
 * summed in log space so tens of thousands of pairs neither overflow nor
 * lose precision.
 */
export function mcnemarExact(regressed: number, improved: number): number {
  requireCount("the number of regressed items", regressed);
  requireCount("the number of improved items", improved);
  const n = regressed + improved;
  if (n === 0) return 1;
  const k = Math.min(regressed, improved);
  // log C(n, i) for i = 0..k, built up term by term; the largest is at i = k.
  const logTerms = new Float64Array(k + 1);
  for (let i = 1; i <= k; i++) logTerms[i] = logTerms[i - 1] + Math.log(n - i + 1) - Math.log(i);
  let scaled = 0;
  for (let i = 0; i <= k; i++) scaled += Math.exp(logTerms[i] - logTerms[k]);
  const logTail = logTerms[k] + Math.log(scaled) - n * Math.LN2;
  return Math.min(1, 2 * Math.exp(logTail));
}

/** One item's outcome under the baseline and under the candidate. */
export interface OutcomePair {
  baseline: boolean;
  candidate: boolean;
}

export interface OutcomeComparison {
  /** Passed under the baseline, failed under the candidate. */
  regressed: number;
  /** Failed under the baseline, passed under the candidate. */
  improved: number;
  /** The same outcome under both. */
  unchanged: number;
  /** The exact McNemar p-value of regressed against improved. */
  pValue: number;
  /** p below alpha, and more items regressed than improved. */
  significantlyWorse: boolean;
}

/** Compares a candidate with its baseline item by item; alpha is 0.05 by default. */
export function compareOutcomes(pairs: readonly OutcomePair[], opts: { alpha?: number } = {}): OutcomeComparison {
  const { alpha = 0.05 } = opts;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must lie strictly between 0 and 1, got ${alpha}`);
  let regressed = 0;
  let improved = 0;
  for (const p of pairs) {
    if (p.baseline && !p.candidate) regressed++;
    else if (!p.baseline && p.candidate) improved++;
  }
  const pValue = mcnemarExact(regressed, improved);
  return {
    regressed,
    improved,
    unchanged: pairs.length - regressed - improved,
    pValue,
    significantlyWorse: pValue < alpha && regressed > improved,
  };
}
