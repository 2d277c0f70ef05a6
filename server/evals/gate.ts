// EvalGate (I5, docs/evals.md#compare-and-the-gate): says whether a candidate
// experiment may replace its baseline. It fails when the candidate is
// significantly worse (the exact McNemar test on pass/fail, or Compare's
// verdict: the score difference's interval entirely below zero) or when its
// mean item score is under the dataset's threshold. The verdict is pure
// (gateVerdict); check() loads the comparison and run() starts an experiment,
// waits for it and checks it.
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import { compareExperiments, type CandidateComparison, type ComparedItem } from "./compare";
import { DatasetError } from "./dataset-errors";
import type { DatasetActor } from "./datasets";
import { startExperiment, visibleExperiment, type ExperimentDeps } from "./experiments";

export interface GateVerdict {
  passed: boolean;
  /** Why it failed, in words; empty when it passed. */
  reasons: string[];
  baselineId: string;
  candidateId: string;
  /** The items that passed under the baseline and fail under the candidate, worst first. */
  regressed: Array<Pick<ComparedItem, "key" | "goal" | "scoreDelta"> & { baselineScore: number | null; candidateScore: number | null }>;
  improved: number;
  unchanged: number;
  /** Exact McNemar p-value of regressed against improved items. */
  pValue: number;
  /** Candidate minus baseline mean item score, with its 95% interval. */
  scoreDiff: { mean: number; low: number; high: number } | null;
  candidateScore: number | null;
  threshold: number;
}

/** The gate's decision on one comparison (pure). */
export function gateVerdict(c: CandidateComparison, baselineId: string): GateVerdict {
  const reasons: string[] = [];
  if (c.outcomes.significantlyWorse) {
    reasons.push(
      `${c.outcomes.regressed} item${c.outcomes.regressed === 1 ? "" : "s"} regressed against ${c.outcomes.improved} improved (McNemar p = ${c.outcomes.pValue.toFixed(4)} < 0.05)`,
    );
  }
  // Compare's own sentence, so the gate and the page say the same numbers.
  if (c.verdict.kind === "worse") reasons.push(c.verdict.sentence);
  // An item the baseline scored and the candidate ran without a verdict (its runs could not start, its scoring failed, it was
  // canceled) is no evidence the candidate does as well: left out, a candidate that breaks items that way would pass.
  const unscored = c.items
    .filter((i) => i.baseline && i.baseline.samples > 0 && i.candidate && i.candidate.samples === 0)
    .map((i) => i.key);
  if (unscored.length) {
    const named = `${unscored.slice(0, 5).join(", ")}${unscored.length > 5 ? ", ..." : ""}`;
    reasons.push(
      `${unscored.length} item${unscored.length === 1 ? " the baseline scored has" : "s the baseline scored have"} no verdict in the candidate: ${named}`,
    );
  }
  const candidateScore = c.summary.score?.mean ?? null;
  const threshold = c.summary.threshold;
  if (candidateScore === null) reasons.push("the candidate has no scored item");
  else if (candidateScore + 1e-9 < threshold)
    reasons.push(`the mean score ${candidateScore.toFixed(3)} is under the dataset's threshold ${threshold}`);
  return {
    passed: reasons.length === 0,
    reasons,
    baselineId,
    candidateId: c.experimentId,
    regressed: c.items
      .filter((i) => i.change === "regressed")
      .map((i) => ({
        key: i.key,
        goal: i.goal,
        scoreDelta: i.scoreDelta,
        baselineScore: i.baseline?.score ?? null,
        candidateScore: i.candidate?.score ?? null,
      })),
    improved: c.outcomes.improved,
    unchanged: c.outcomes.unchanged,
    pValue: c.outcomes.pValue,
    scoreDiff: c.scores ? { mean: c.scores.meanDiff, low: c.scores.low, high: c.scores.high } : null,
    candidateScore,
    threshold,
  };
}

export interface EvalGateDeps extends ExperimentDeps {
  /** Resolves when the experiment is no longer queued or running (the ExperimentRunner). */
  whenDone(experimentId: string): Promise<void>;
}

export class EvalGate {
  constructor(private readonly deps: EvalGateDeps) {}

  /** The verdict on a finished candidate against a baseline of the same dataset. */
  async check(actor: Actor, candidateId: string, baselineId: string): Promise<GateVerdict> {
    return checkGate(this.deps.db, actor, candidateId, baselineId);
  }

  /** Starts an experiment with `baselineId` as its baseline, waits for it, and checks it. */
  async run(who: DatasetActor, input: Record<string, unknown> & { baselineId: string }): Promise<GateVerdict> {
    const experiment = await startExperiment(this.deps, who, input);
    await this.deps.whenDone(experiment.id);
    return this.check(who.actor, experiment.id, input.baselineId);
  }
}

export async function checkGate(db: Db, actor: Actor, candidateId: string, baselineId: string): Promise<GateVerdict> {
  if (candidateId === baselineId)
    throw new DatasetError("INVALID_INPUT", "The gate compares an experiment with another one; name a different baseline");
  for (const id of [candidateId, baselineId]) {
    const e = await visibleExperiment(db, actor, id);
    if (e.status === "queued" || e.status === "running")
      throw new DatasetError("CONFLICT", `The experiment ${e.name} is still ${e.status}; the gate checks finished experiments`);
  }
  const comparison = await compareExperiments(db, actor, [baselineId, candidateId], baselineId);
  return gateVerdict(comparison.candidates[0], baselineId);
}
