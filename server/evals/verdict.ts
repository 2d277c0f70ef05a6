// Compare's one verdict (docs/evals.md#compare-and-the-gate): a candidate's
// mean item score against the baseline's over the items both scored, the
// difference with its paired-bootstrap 95% interval, and whether that
// interval leaves out 0, said in one sentence. Compare, the gate and the CLI
// all say it from here, so no two places can disagree. Pure.
import { pairedBootstrap } from "./stats";

export type VerdictKind = "better" | "worse" | "not_significant" | "too_few" | "none";

export interface ScoreVerdict {
  kind: VerdictKind;
  /** The interval leaves out 0 (better or worse). */
  significant: boolean;
  /** The verdict in words: "v2 scores 0.83 against 0.67 for v1 (+0.17, 95% interval −0.05 to +0.38): not significant with 6 items". */
  sentence: string;
  /** Items scored on both sides (the pairs). */
  items: number;
  baselineMean: number | null;
  candidateMean: number | null;
  /** Candidate minus baseline; with the interval's bounds, null for fewer than two pairs (no interval then). */
  meanDiff: number | null;
  low: number | null;
  high: number | null;
}

export interface VerdictInput {
  baselineLabel: string;
  candidateLabel: string;
  /** baseline[i] and candidate[i] are the scores of the same item. */
  baseline: readonly number[];
  candidate: readonly number[];
}

/** Fewer pairs than this give no interval: one difference resampled is always itself. */
export const MIN_VERDICT_ITEMS = 2;

const MINUS = "−";

/** A score: "0.83". */
const score = (x: number) => x.toFixed(2);

/** A signed difference: "+0.17", "−0.05", "0.00"; one that rounds to 0 keeps a digit ("−0.004"), so a bound never reads as 0 when it is not. */
export function signedScore(x: number): string {
  if (x === 0) return "0.00";
  const abs = Math.abs(x);
  const digits = abs < 0.005 ? String(Number(abs.toPrecision(1))) : abs.toFixed(2);
  return `${x > 0 ? "+" : MINUS}${digits}`;
}

const mean = (values: readonly number[]) => values.reduce((s, v) => s + v, 0) / values.length;

export function scoreVerdict(input: VerdictInput): ScoreVerdict {
  const { baselineLabel: b, candidateLabel: c, baseline, candidate } = input;
  if (baseline.length !== candidate.length)
    throw new RangeError(`paired scores need as many baseline as candidate values, got ${baseline.length} and ${candidate.length}`);
  const n = baseline.length;
  const none = { significant: false, items: n, meanDiff: null, low: null, high: null };
  if (n === 0) {
    return {
      ...none,
      kind: "none",
      baselineMean: null,
      candidateMean: null,
      sentence: `No item was scored under both ${b} and ${c}, so their scores cannot be compared`,
    };
  }
  const baselineMean = mean(baseline);
  const candidateMean = mean(candidate);
  const scores = `${c} scores ${score(candidateMean)} against ${score(baselineMean)} for ${b}`;
  if (n < MIN_VERDICT_ITEMS) {
    return {
      ...none,
      kind: "too_few",
      baselineMean,
      candidateMean,
      sentence: `${scores} (${signedScore(candidateMean - baselineMean)}) on the one item both scored: one item is too few to tell`,
    };
  }
  const d = pairedBootstrap(baseline, candidate, { seed: 1 });
  const kind: VerdictKind = d.low > 0 ? "better" : d.high < 0 ? "worse" : "not_significant";
  const words = kind === "better" ? "significantly better" : kind === "worse" ? "significantly worse" : "not significant";
  return {
    kind,
    significant: kind !== "not_significant",
    items: n,
    baselineMean,
    candidateMean,
    meanDiff: d.meanDiff,
    low: d.low,
    high: d.high,
    sentence: `${scores} (${signedScore(d.meanDiff)}, 95% interval ${signedScore(d.low)} to ${signedScore(d.high)}): ${words} with ${n} items`,
  };
}

/** What names an experiment in a verdict. */
export interface Labelled {
  id: string;
  name: string;
  agentName: string | null;
  agentVersion: number | null;
  model: string | null;
}

/**
 * Short names for experiments side by side: "v1", "v2" when they ran one
 * agent and model at different versions, else their names (told apart by
 * the end of their id when two share one).
 */
export function experimentLabels(experiments: readonly Labelled[]): Map<string, string> {
  const [first] = experiments;
  const versions = new Set(experiments.map((e) => e.agentVersion));
  const byVersion =
    !!first?.agentName &&
    versions.size === experiments.length &&
    experiments.every((e) => e.agentName === first.agentName && e.model === first.model && e.agentVersion !== null);
  if (byVersion) return new Map(experiments.map((e) => [e.id, `v${e.agentVersion}`]));
  const count = new Map<string, number>();
  for (const e of experiments) count.set(e.name, (count.get(e.name) ?? 0) + 1);
  return new Map(experiments.map((e) => [e.id, count.get(e.name)! > 1 ? `${e.name} (${e.id.slice(-6)})` : e.name]));
}
