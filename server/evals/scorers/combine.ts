// One item's verdict from its scorers: the weighted mean of the scores of the
// scorers that ran (skipped ones count for nothing either way); the item
// passes when that mean reaches the threshold and every required scorer
// passed. A required scorer that was skipped fails the item: what must hold
// was not checked.
import type { ScoreResult } from "./types";

export interface ScoredBy {
  kind: string;
  weight: number;
  required: boolean;
  result: ScoreResult;
}

export interface ItemVerdict {
  /** Weighted mean, 0..1; null when every scorer was skipped. */
  score: number | null;
  passed: boolean;
  /** Kinds of the required scorers that did not pass or were skipped. */
  failedRequired: string[];
  detail: string;
}

export function combine(scored: ScoredBy[], threshold: number): ItemVerdict {
  let weights = 0;
  let sum = 0;
  for (const s of scored) {
    if ("skipped" in s.result) continue;
    weights += s.weight;
    sum += s.weight * s.result.score;
  }
  const failedRequired = scored.filter((s) => s.required && ("skipped" in s.result || !s.result.passed)).map((s) => s.kind);
  if (weights === 0) {
    return {
      score: null,
      passed: false,
      failedRequired,
      detail: scored.length ? "every scorer was skipped, so nothing was checked" : "there are no scorers",
    };
  }
  const score = sum / weights;
  // Sums of fractions land a hair under an exact threshold (0.1 + 0.2); a millionth is well below any meaningful difference.
  const reached = score + 1e-9 >= threshold;
  const passed = reached && failedRequired.length === 0;
  const parts = [`score ${score.toFixed(3)} ${reached ? "reaches" : "is under"} the threshold ${threshold}`];
  if (failedRequired.length) parts.push(`required scorers did not pass: ${failedRequired.join(", ")}`);
  return { score, passed, failedRequired, detail: parts.join("; ") };
}
