// Compare (Evals, docs/evals.md#compare-and-the-gate): two or more
// experiments of one dataset side by side, one of them the baseline: the one
// the person chose, else the oldest. Items pair by key; each candidate item is
// regressed (passed under the baseline, fails now), improved, unchanged, or
// on one side only. One verdict says whether the scores differ for real (the
// paired bootstrap interval of the difference, verdict.ts); the exact McNemar
// test on pass/fail stays for the gate. The pairing is pure
// (compareSummaries); loading reads trial rows only.
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import { DatasetError } from "./dataset-errors";
import { storedScoring } from "./datasets";
import { visibleExperiment } from "./experiments";
import { itemsOf, loadTrials, summarize, trialResult, type ExperimentSummary, type ItemResult, type TrialRow } from "./results";
import { compareOutcomes, pairedBootstrap, type OutcomeComparison, type PairedDifference } from "./stats";
import { experimentLabels, scoreVerdict, type ScoreVerdict } from "./verdict";

export const MAX_COMPARED = 5;

export type ItemChange = "regressed" | "improved" | "unchanged" | "baseline_only" | "candidate_only";

/** What one side of a compared item shows: its verdict, first epoch's output and tool calls, its figures. */
export interface ComparedSide {
  passed: boolean;
  score: number | null;
  flaky: boolean;
  samples: number;
  passes: number;
  costUsd: number;
  durationMs: number | null;
  finalText: string;
  toolSequence: string[];
  runIds: string[];
}

export interface ComparedItem {
  key: string;
  goal: string;
  expectedText: string | null;
  change: ItemChange;
  /** The two sides ran different versions of the item (it was edited between them): a change may be the edit's, not the agent's. */
  itemChanged: boolean;
  baseline: ComparedSide | null;
  candidate: ComparedSide | null;
  scoreDelta: number | null;
  costDelta: number | null;
  durationDelta: number | null;
}

export interface CandidateComparison {
  experimentId: string;
  /** Its short name in the verdict and the column names: "v2", or the experiment's name. */
  label: string;
  items: ComparedItem[];
  outcomes: OutcomeComparison;
  /** Candidate minus baseline mean item score, over the items both ran; null when they share none. */
  scores: PairedDifference | null;
  /** The one verdict on the scores, in words; Compare shows no other. */
  verdict: ScoreVerdict;
  summary: Omit<ExperimentSummary, "items">;
}

export interface Comparison {
  baseline: {
    experimentId: string;
    label: string;
    /** The person named it; else it is the oldest experiment compared. */
    chosen: boolean;
    summary: Omit<ExperimentSummary, "items">;
  };
  candidates: CandidateComparison[];
}

/** Per item of one experiment: output and tool calls of its first scored epoch. */
export type Outputs = Map<string, { finalText: string; toolSequence: string[]; runIds: string[]; itemId?: string }>;

function side(item: ItemResult, outputs: Outputs): ComparedSide {
  const { itemId: _itemId, ...o } = outputs.get(item.key) ?? { finalText: "", toolSequence: [], runIds: [] };
  return {
    passed: item.passed,
    score: item.score,
    flaky: item.flaky,
    samples: item.samples,
    passes: item.passes,
    costUsd: item.costUsd,
    durationMs: item.durationMs,
    ...o,
  };
}

const ORDER: Record<ItemChange, number> = { regressed: 0, baseline_only: 1, unchanged: 2, candidate_only: 3, improved: 4 };
const delta = (a: number | null | undefined, b: number | null | undefined) =>
  a === null || a === undefined || b === null || b === undefined ? null : b - a;

/** Pairs a candidate's items with the baseline's by key; regressions first, then the largest score drops. */
export function compareSummaries(
  baseline: ExperimentSummary,
  baseOut: Outputs,
  candidate: ExperimentSummary,
  candOut: Outputs,
  labels: { baseline: string; candidate: string } = { baseline: "the baseline", candidate: "the candidate" },
): Omit<CandidateComparison, "experimentId" | "summary" | "label"> {
  const base = new Map(baseline.items.map((i) => [i.key, i]));
  const cand = new Map(candidate.items.map((i) => [i.key, i]));
  const keys = [...new Set([...base.keys(), ...cand.keys()])];
  const items: ComparedItem[] = keys.map((key) => {
    const b = base.get(key);
    const c = cand.get(key);
    const both = b && c && b.samples > 0 && c.samples > 0;
    const change: ItemChange =
      !c || c.samples === 0
        ? "baseline_only"
        : !b || b.samples === 0
          ? "candidate_only"
          : b.passed && !c.passed
            ? "regressed"
            : !b.passed && c.passed
              ? "improved"
              : "unchanged";
    return {
      key,
      goal: (c ?? b)!.goal,
      expectedText: (c ?? b)!.expectedText,
      change,
      itemChanged: !!(
        b &&
        c &&
        baseOut.get(key)?.itemId &&
        candOut.get(key)?.itemId &&
        baseOut.get(key)!.itemId !== candOut.get(key)!.itemId
      ),
      baseline: b ? side(b, baseOut) : null,
      candidate: c ? side(c, candOut) : null,
      scoreDelta: both ? delta(b.score, c.score) : null,
      costDelta: both ? delta(b.costUsd / b.epochs.length, c.costUsd / c.epochs.length) : null,
      durationDelta: both ? delta(b.durationMs, c.durationMs) : null,
    };
  });
  items.sort((x, y) => ORDER[x.change] - ORDER[y.change] || (x.scoreDelta ?? 0) - (y.scoreDelta ?? 0) || x.key.localeCompare(y.key));
  const paired = items.filter((i) => i.baseline && i.candidate && i.scoreDelta !== null);
  const outcomes = compareOutcomes(paired.map((i) => ({ baseline: i.baseline!.passed, candidate: i.candidate!.passed })));
  const baseScores = paired.map((i) => i.baseline!.score ?? 0);
  const candScores = paired.map((i) => i.candidate!.score ?? 0);
  const scores = paired.length ? pairedBootstrap(baseScores, candScores, { seed: 1 }) : null;
  const verdict = scoreVerdict({
    baselineLabel: labels.baseline,
    candidateLabel: labels.candidate,
    baseline: baseScores,
    candidate: candScores,
  });
  return { items, outcomes, scores, verdict };
}

function outputsOf(rows: TrialRow[]): Outputs {
  const out: Outputs = new Map();
  const shown = new Set<string>();
  for (const r of rows) {
    const entry = out.get(r.itemKey) ?? { finalText: "", toolSequence: [], runIds: [], itemId: r.itemId };
    if (r.runId) entry.runIds.push(r.runId);
    // The first epoch that was scored stands for the item in diffs (rows come in epoch order).
    if (r.status === "done" && !shown.has(r.itemKey)) {
      shown.add(r.itemKey);
      entry.finalText = r.finalText ?? "";
      entry.toolSequence = toolSequenceOf(r.toolSequence);
    }
    out.set(r.itemKey, entry);
  }
  return out;
}

function toolSequenceOf(json: string): string[] {
  try {
    const seq = JSON.parse(json) as unknown;
    return Array.isArray(seq) ? seq.filter((s): s is string => typeof s === "string") : [];
  } catch {
    return [];
  }
}

async function load(db: Db, actor: Actor, id: string) {
  const experiment = await visibleExperiment(db, actor, id);
  const rows = await loadTrials(db, id);
  const items = await itemsOf(
    db,
    rows.map((r) => r.itemId),
  );
  const keys = [...new Map(rows.map((r) => [r.itemKey, items.get(r.itemId) ?? { key: r.itemKey, goal: "", expectedText: null }])).values()];
  const summary = summarize(keys, rows.map(trialResult), experiment.epochs, storedScoring(experiment.scoring).threshold);
  return { experiment, summary, outputs: outputsOf(rows) };
}

const withoutItems = ({ items: _items, ...rest }: ExperimentSummary) => rest;

/** The baseline when nobody chose one: the experiment created first (by id on a tie, so it never flips). */
export function oldestFirst<T extends { id: string; createdAt: Date }>(experiments: readonly T[]): T[] {
  return [...experiments].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
}

/** Compares experiments against `baselineId`, or, when none is given, against the oldest of them. */
export async function compareExperiments(db: Db, actor: Actor, ids: string[], baselineId?: string | null): Promise<Comparison> {
  const unique = [...new Set(ids)];
  if (unique.length < 2) throw new DatasetError("INVALID_INPUT", "Compare needs at least two experiments");
  if (unique.length > MAX_COMPARED) throw new DatasetError("INVALID_INPUT", `Compare takes at most ${MAX_COMPARED} experiments at once`);
  if (baselineId && !unique.includes(baselineId))
    throw new DatasetError("INVALID_INPUT", "The baseline must be one of the experiments compared");
  const loaded = await Promise.all(unique.map((id) => load(db, actor, id)));
  const baseId = baselineId || oldestFirst(loaded.map((l) => l.experiment))[0].id;
  const base = loaded.find((l) => l.experiment.id === baseId)!;
  const other = loaded.find((l) => l.experiment.datasetId !== base.experiment.datasetId);
  if (other)
    throw new DatasetError(
      "INVALID_INPUT",
      `${other.experiment.name} ran another dataset than the baseline; only experiments of one dataset compare`,
    );
  const labels = experimentLabels(loaded.map((l) => l.experiment));
  const baseLabel = labels.get(baseId)!;
  return {
    baseline: { experimentId: baseId, label: baseLabel, chosen: !!baselineId, summary: withoutItems(base.summary) },
    candidates: loaded
      .filter((l) => l !== base)
      .map((l) => {
        const label = labels.get(l.experiment.id)!;
        return {
          experimentId: l.experiment.id,
          label,
          summary: withoutItems(l.summary),
          ...compareSummaries(base.summary, base.outputs, l.summary, l.outputs, { baseline: baseLabel, candidate: label }),
        };
      }),
  };
}
