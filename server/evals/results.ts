// An experiment's results (Evals): per item its epochs, pass@k and pass^k,
// cost, tokens and latency; per scorer how it scored; the whole experiment's
// score with a 95% bootstrap interval. The summing up is pure (summarize);
// loading reads only the trial rows, which carry everything it needs.
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import { bootstrapCI, meanPassAtK, meanPassHatK, passAtK, passHatK, type ConfidenceInterval } from "./stats";
import type { ScoredBy } from "./scorers";
import { storedScoring } from "./datasets";
import { visibleExperiment } from "./experiments";

export interface TrialResult {
  itemKey: string;
  epoch: number;
  status: string;
  runId: string | null;
  runStatus: string | null;
  score: number | null;
  passed: boolean | null;
  costUsd: number;
  durationMs: number | null;
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  error: string | null;
  scorers: ScoredBy[];
  /** Why the item passed or not, in words. */
  detail: string | null;
}

export interface ItemResult {
  key: string;
  goal: string;
  /** The item's expected text, when it has one (for the output-vs-expected diff). */
  expectedText: string | null;
  epochs: TrialResult[];
  /** Trials with a verdict, and how many of them passed. */
  samples: number;
  passes: number;
  /** The mean of its scored epochs; null when none was scored. */
  score: number | null;
  /** Passed in most of its scored epochs. */
  passed: boolean;
  /** Some epochs passed and some did not. */
  flaky: boolean;
  passAt: Record<number, number>;
  passHat: Record<number, number>;
  costUsd: number;
  tokens: number;
  durationMs: number | null;
}

export interface ScorerSummary {
  kind: string;
  scored: number;
  skipped: number;
  passed: number;
  meanScore: number | null;
  /** Scores in five buckets: [0, .2), [.2, .4), [.4, .6), [.6, .8), [.8, 1]. */
  histogram: number[];
  /** Why it was skipped, the first time (e.g. no judge configured). */
  skippedBecause: string | null;
}

export interface ExperimentSummary {
  items: ItemResult[];
  scorers: ScorerSummary[];
  /** Mean item score with its 95% bootstrap interval (items without a score count 0); null with no items. */
  score: ConfidenceInterval | null;
  /** Share of items that passed. */
  passRate: number | null;
  passAtK: Record<number, number>;
  passHatK: Record<number, number>;
  costUsd: number;
  tokens: number;
  latencyMs: { p50: number | null; p95: number | null };
  flaky: number;
  threshold: number;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

function percentile(sorted: number[], p: number): number | null {
  if (!sorted.length) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[i];
}

export function summarizeItem(key: string, goal: string, expectedText: string | null, epochs: TrialResult[], maxK: number): ItemResult {
  const scored = epochs.filter((t) => t.passed !== null);
  const passes = scored.filter((t) => t.passed).length;
  const scores = scored.map((t) => t.score ?? 0);
  const durations = epochs.map((t) => t.durationMs).filter((d): d is number => d !== null);
  const passAt: Record<number, number> = {};
  const passHat: Record<number, number> = {};
  for (let k = 1; k <= Math.min(maxK, scored.length); k++) {
    passAt[k] = passAtK(scored.length, passes, k);
    passHat[k] = passHatK(scored.length, passes, k);
  }
  return {
    key,
    goal,
    expectedText,
    epochs: [...epochs].sort((a, b) => a.epoch - b.epoch),
    samples: scored.length,
    passes,
    score: mean(scores),
    passed: scored.length > 0 && passes * 2 > scored.length,
    flaky: passes > 0 && passes < scored.length,
    passAt,
    passHat,
    costUsd: epochs.reduce((s, t) => s + t.costUsd, 0),
    tokens: epochs.reduce((s, t) => s + t.inputTokens + t.outputTokens, 0),
    durationMs: mean(durations),
  };
}

function summarizeScorers(trials: TrialResult[]): ScorerSummary[] {
  const byKind = new Map<string, ScorerSummary & { scores: number[] }>();
  for (const t of trials) {
    for (const s of t.scorers) {
      const row = byKind.get(s.kind) ?? {
        kind: s.kind,
        scored: 0,
        skipped: 0,
        passed: 0,
        meanScore: null,
        histogram: [0, 0, 0, 0, 0],
        skippedBecause: null,
        scores: [],
      };
      if ("skipped" in s.result) {
        row.skipped++;
        row.skippedBecause ??= s.result.reason;
      } else {
        row.scored++;
        if (s.result.passed) row.passed++;
        row.scores.push(s.result.score);
        row.histogram[Math.min(4, Math.floor(s.result.score * 5))]++;
      }
      byKind.set(s.kind, row);
    }
  }
  return [...byKind.values()].map(({ scores, ...row }) => ({ ...row, meanScore: mean(scores) }));
}

/** The whole experiment from its trials (pure). `epochs` bounds k for pass@k and pass^k. */
export function summarize(
  items: Array<{ key: string; goal: string; expectedText: string | null }>,
  trials: TrialResult[],
  epochs: number,
  threshold: number,
): ExperimentSummary {
  const byKey = new Map<string, TrialResult[]>();
  for (const t of trials) byKey.set(t.itemKey, [...(byKey.get(t.itemKey) ?? []), t]);
  const results = items.map((i) => summarizeItem(i.key, i.goal, i.expectedText, byKey.get(i.key) ?? [], epochs));
  const scoredItems = results.filter((r) => r.samples > 0);
  const samples = scoredItems.map((r) => ({ samples: r.samples, passes: r.passes }));
  const passAt: Record<number, number> = {};
  const passHat: Record<number, number> = {};
  const minSamples = Math.min(...scoredItems.map((r) => r.samples));
  for (let k = 1; scoredItems.length && k <= Math.min(epochs, minSamples); k++) {
    passAt[k] = meanPassAtK(samples, k);
    passHat[k] = meanPassHatK(samples, k);
  }
  const durations = trials
    .map((t) => t.durationMs)
    .filter((d): d is number => d !== null)
    .sort((a, b) => a - b);
  return {
    items: results,
    scorers: summarizeScorers(trials),
    score: scoredItems.length
      ? bootstrapCI(
          scoredItems.map((r) => r.score ?? 0),
          { seed: 1 },
        )
      : null,
    passRate: scoredItems.length ? scoredItems.filter((r) => r.passed).length / scoredItems.length : null,
    passAtK: passAt,
    passHatK: passHat,
    costUsd: trials.reduce((s, t) => s + t.costUsd, 0),
    tokens: trials.reduce((s, t) => s + t.inputTokens + t.outputTokens, 0),
    latencyMs: { p50: percentile(durations, 0.5), p95: percentile(durations, 0.95) },
    flaky: results.filter((r) => r.flaky).length,
    threshold,
  };
}

export const TRIAL_RESULT_SELECT = {
  itemKey: true,
  epoch: true,
  status: true,
  runId: true,
  runStatus: true,
  score: true,
  passed: true,
  costUsd: true,
  durationMs: true,
  modelCalls: true,
  inputTokens: true,
  outputTokens: true,
  error: true,
  scores: true,
  itemId: true,
  finalText: true,
  toolSequence: true,
} as const;

export type TrialRow = {
  itemKey: string;
  epoch: number;
  status: string;
  runId: string | null;
  runStatus: string | null;
  score: number | null;
  passed: boolean | null;
  costUsd: number;
  durationMs: number | null;
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  error: string | null;
  scores: string;
  itemId: string;
  finalText: string | null;
  toolSequence: string;
};

export function trialResult(row: TrialRow): TrialResult {
  let parsed: { detail?: string; scorers?: ScoredBy[] } = {};
  try {
    parsed = JSON.parse(row.scores) as typeof parsed;
  } catch {
    // An unreadable row shows without its scorers.
  }
  return {
    itemKey: row.itemKey,
    epoch: row.epoch,
    status: row.status,
    runId: row.runId,
    runStatus: row.runStatus,
    score: row.score,
    passed: row.passed,
    costUsd: row.costUsd,
    durationMs: row.durationMs,
    modelCalls: row.modelCalls,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    error: row.error,
    scorers: Array.isArray(parsed.scorers) ? parsed.scorers : [],
    detail: typeof parsed.detail === "string" ? parsed.detail : null,
  };
}

/** The items an experiment ran (the exact versions), in key order, with what a diff needs. */
export async function itemsOf(db: Db, itemIds: string[]): Promise<Map<string, { key: string; goal: string; expectedText: string | null }>> {
  const rows = await db.datasetItem.findMany({
    where: { id: { in: [...new Set(itemIds)] } },
    select: { id: true, key: true, goal: true, expected: true },
  });
  return new Map(
    rows.map((r) => {
      let text: string | null = null;
      try {
        const e = JSON.parse(r.expected) as { text?: unknown };
        text = typeof e.text === "string" ? e.text : null;
      } catch {
        text = null;
      }
      return [r.id, { key: r.key, goal: r.goal, expectedText: text }];
    }),
  );
}

export async function loadTrials(db: Db, experimentId: string): Promise<TrialRow[]> {
  return db.experimentTrial.findMany({
    where: { experimentId },
    select: TRIAL_RESULT_SELECT,
    orderBy: [{ itemKey: "asc" }, { epoch: "asc" }],
  });
}

export async function experimentResults(db: Db, actor: Actor, id: string): Promise<ExperimentSummary> {
  const experiment = await visibleExperiment(db, actor, id);
  const rows = await loadTrials(db, id);
  const items = await itemsOf(
    db,
    rows.map((r) => r.itemId),
  );
  const keys = [...new Map(rows.map((r) => [r.itemKey, items.get(r.itemId) ?? { key: r.itemKey, goal: "", expectedText: null }])).values()];
  return summarize(keys, rows.map(trialResult), experiment.epochs, storedScoring(experiment.scoring).threshold);
}
