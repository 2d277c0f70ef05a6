// How the Evals pages say experiment figures: scores, intervals, deltas and
// Compare's address. Pure, so tests pin the words down. Compare's verdict is
// the server's sentence (server/evals/verdict.ts), never worded here.
import { formatDuration, formatCost } from "@/lib/format";

/** A score from 0 to 1: "0.83"; "—" when there is none. */
export function formatScore(score: number | null | undefined): string {
  return score === null || score === undefined || !Number.isFinite(score) ? "—" : score.toFixed(2);
}

/** A 95% interval: "0.67 – 1.00". */
export function formatInterval(i: { low: number; high: number }): string {
  return `${formatScore(i.low)} – ${formatScore(i.high)}`;
}

/** "+", or a true minus sign. */
const sign = (n: number) => (n > 0 ? "+" : n < 0 ? "−" : "±");

/** A score difference: "+0.25", "−0.50", "±0.00"; "—" when there is none. */
export function formatScoreDelta(d: number | null | undefined): string {
  if (d === null || d === undefined || !Number.isFinite(d)) return "—";
  const rounded = Math.abs(d) < 0.005 ? 0 : d;
  return `${sign(rounded)}${Math.abs(rounded).toFixed(2)}`;
}

/** A cost difference: "+$0.0012", "−$1.20". */
export function formatUsdDelta(d: number | null | undefined): string {
  if (d === null || d === undefined || !Number.isFinite(d)) return "—";
  if (d === 0) return "±$0";
  return `${sign(d)}${formatCost(Math.abs(d))}`;
}

/** A duration difference: "+1.2 s", "−850 ms". */
export function formatDurationDelta(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  if (Math.round(ms) === 0) return "±0 ms";
  return `${sign(ms)}${formatDuration(Math.abs(ms))}`;
}

/** Higher is better for scores; lower for cost and time. Says which way a delta went. */
export function deltaTone(d: number | null | undefined, better: "higher" | "lower"): "good" | "bad" | "same" {
  if (d === null || d === undefined || !Number.isFinite(d) || Math.abs(d) < 1e-9) return "same";
  return d > 0 === (better === "higher") ? "good" : "bad";
}

/** The address of Compare; with a baseline the person chose, it comes first and is named (else the server takes the oldest). */
export function compareHref(ids: readonly string[], baselineId?: string | null): string {
  const ordered = baselineId ? [baselineId, ...ids.filter((id) => id !== baselineId)] : ids;
  const list = `/evals/compare?ids=${[...new Set(ordered)].map(encodeURIComponent).join(",")}`;
  return baselineId ? `${list}&baseline=${encodeURIComponent(baselineId)}` : list;
}

/** Compare's query string: the ids (deduplicated, empty ones dropped) and the baseline the person chose, if it is among them. */
export function parseCompareParams(ids: string | null, baseline: string | null): { ids: string[]; baselineId: string | null } {
  const list = [
    ...new Set(
      (ids ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  return { ids: list, baselineId: baseline && list.includes(baseline) ? baseline : null };
}

export interface Progress {
  total: number;
  pending: number;
  running: number;
  scoring: number;
  done: number;
  failed: number;
  canceled: number;
  passed: number;
}

export type SegmentKind = "passed" | "not_passed" | "running" | "failed" | "canceled";

/** The bar's parts, left to right: scored and passed, scored and not passed, under way, could not run, canceled (pending is the rest). */
export function progressSegments(p: Progress): Array<{ kind: SegmentKind; count: number; share: number }> {
  const parts: Array<[SegmentKind, number]> = [
    ["passed", p.passed],
    ["not_passed", Math.max(0, p.done - p.passed)],
    ["running", p.running + p.scoring],
    ["failed", p.failed],
    ["canceled", p.canceled],
  ];
  return parts.filter(([, n]) => n > 0).map(([kind, count]) => ({ kind, count, share: p.total ? count / p.total : 0 }));
}

/** "4 of 6 done · 2 running · 1 could not run". */
export function progressLine(p: Progress): string {
  const parts = [`${p.done} of ${p.total} done`];
  if (p.running + p.scoring) parts.push(`${p.running + p.scoring} running`);
  if (p.failed) parts.push(`${p.failed} could not run`);
  if (p.canceled) parts.push(`${p.canceled} canceled`);
  return parts.join(" · ");
}

/** Passed of scored trials: 0.75; null before any was scored. */
export function trialPassRate(p: Progress): number | null {
  return p.done ? p.passed / p.done : null;
}
