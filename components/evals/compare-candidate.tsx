"use client";
// One candidate against the baseline: the verdict (regressed, improved and
// unchanged items with the exact McNemar test), the mean score difference
// with its paired-bootstrap interval, cost and latency, then every item,
// regressions first; a row opens (click, Enter or Space) to the diffs.
import Link from "next/link";
import { Fragment, useState } from "react";
import { percent } from "@/components/costs/chart-format";
import {
  deltaTone,
  formatDurationDelta,
  formatInterval,
  formatPValue,
  formatScore,
  formatScoreDelta,
  formatUsdDelta,
  outcomeSentence,
  verdictOf,
} from "@/lib/eval-format";
import { formatDuration, formatCost } from "@/lib/format";
import { Chevron, onRowKey } from "./item-results";
import { OutputDiffs } from "./output-diffs";
import { experimentHref, type CandidateComparison, type ComparedItem, type ComparedSide, type ExperimentView } from "./types";
import styles from "./experiments.module.css";

const CHANGE_LABELS: Record<ComparedItem["change"], string> = {
  regressed: "regressed",
  improved: "improved",
  unchanged: "unchanged",
  baseline_only: "baseline only",
  candidate_only: "candidate only",
};

type Summary = CandidateComparison["summary"];

function Delta({ value, text, better }: { value: number | null; text: string; better: "higher" | "lower" }) {
  const tone = deltaTone(value, better);
  return <span className={tone === "good" ? styles.good : tone === "bad" ? styles.bad : "muted"}>{text}</span>;
}

function Side({ side }: { side: ComparedSide | null }) {
  if (!side) return <span className="muted">—</span>;
  return (
    <span className="row" style={{ gap: 6 }}>
      <span className={`badge ${side.passed ? "badge-ok" : "badge-error"}`}>{side.passed ? "pass" : "fail"}</span>
      <span className="small">{formatScore(side.score)}</span>
      {side.flaky && (
        <span className="badge badge-outline" title={`Passed ${side.passes} of ${side.samples} epochs`} data-testid="compare-flaky">
          flaky {side.passes}/{side.samples}
        </span>
      )}
    </span>
  );
}

function Figures({ baseline, candidate }: { baseline: Summary; candidate: Summary }) {
  const rows: Array<{ label: string; base: string; cand: string; delta: number | null; text: string; better: "higher" | "lower" }> = [
    {
      label: "Pass rate",
      base: baseline.passRate === null ? "—" : percent(baseline.passRate),
      cand: candidate.passRate === null ? "—" : percent(candidate.passRate),
      delta: baseline.passRate !== null && candidate.passRate !== null ? candidate.passRate - baseline.passRate : null,
      text:
        baseline.passRate !== null && candidate.passRate !== null
          ? `${candidate.passRate >= baseline.passRate ? "+" : "−"}${percent(Math.abs(candidate.passRate - baseline.passRate))}`
          : "—",
      better: "higher",
    },
    {
      label: "Cost",
      base: formatCost(baseline.costUsd),
      cand: formatCost(candidate.costUsd),
      delta: candidate.costUsd - baseline.costUsd,
      text: formatUsdDelta(candidate.costUsd - baseline.costUsd),
      better: "lower",
    },
    {
      label: "Latency p50",
      base: formatDuration(baseline.latencyMs.p50),
      cand: formatDuration(candidate.latencyMs.p50),
      delta: baseline.latencyMs.p50 !== null && candidate.latencyMs.p50 !== null ? candidate.latencyMs.p50 - baseline.latencyMs.p50 : null,
      text:
        baseline.latencyMs.p50 !== null && candidate.latencyMs.p50 !== null
          ? formatDurationDelta(candidate.latencyMs.p50 - baseline.latencyMs.p50)
          : "—",
      better: "lower",
    },
    {
      label: "Latency p95",
      base: formatDuration(baseline.latencyMs.p95),
      cand: formatDuration(candidate.latencyMs.p95),
      delta: baseline.latencyMs.p95 !== null && candidate.latencyMs.p95 !== null ? candidate.latencyMs.p95 - baseline.latencyMs.p95 : null,
      text:
        baseline.latencyMs.p95 !== null && candidate.latencyMs.p95 !== null
          ? formatDurationDelta(candidate.latencyMs.p95 - baseline.latencyMs.p95)
          : "—",
      better: "lower",
    },
  ];
  return (
    <table className={styles.scorerTable} style={{ maxWidth: 560 }} data-testid="compare-figures">
      <thead>
        <tr>
          <th scope="col" />
          <th scope="col">Baseline</th>
          <th scope="col">Candidate</th>
          <th scope="col">Change</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.label}>
            <td className="muted">{r.label}</td>
            <td>{r.base}</td>
            <td>{r.cand}</td>
            <td>
              <Delta value={r.delta} text={r.text} better={r.better} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function CandidateSection({
  candidate,
  baselineSummary,
  baseline,
  experiment,
}: {
  candidate: CandidateComparison;
  baselineSummary: Summary;
  baseline?: ExperimentView;
  experiment?: ExperimentView;
}) {
  const [open, setOpen] = useState<Set<string>>(new Set());
  const toggle = (key: string) =>
    setOpen((s) => {
      const next = new Set(s);
      if (!next.delete(key)) next.add(key);
      return next;
    });
  const verdict = verdictOf(candidate.outcomes);
  const s = candidate.scores;
  return (
    <section
      className="card"
      aria-labelledby={`candidate-${candidate.experimentId}`}
      data-testid="compare-candidate"
      data-experiment={candidate.experimentId}
    >
      <div className="card-header" style={{ flexWrap: "wrap" }}>
        <h2 id={`candidate-${candidate.experimentId}`}>
          <Link href={experimentHref(candidate.experimentId)}>{experiment?.name ?? candidate.experimentId}</Link>
          <span className="muted" style={{ fontWeight: 400 }}>
            {" "}
            vs baseline{" "}
          </span>
          {baseline ? <Link href={experimentHref(baseline.id)}>{baseline.name}</Link> : null}
        </h2>
      </div>
      <div className="card-body stack" style={{ gap: 12 }}>
        <div className={`${styles.verdict} ${styles[`verdict-${verdict}`] ?? ""}`} data-testid="compare-verdict" data-verdict={verdict}>
          {outcomeSentence(candidate.outcomes)}
        </div>
        <div className="small" data-testid="compare-score-diff">
          {s ? (
            <>
              Mean score difference <Delta value={s.meanDiff} text={formatScoreDelta(s.meanDiff)} better="higher" /> (95% interval{" "}
              {formatInterval(s)}, paired bootstrap p{" "}
              {formatPValue(s.pValue).startsWith("<") ? formatPValue(s.pValue) : `= ${formatPValue(s.pValue)}`})
              {s.high < 0 ? (
                <strong className={styles.bad}> — lower for sure</strong>
              ) : s.low > 0 ? (
                <strong className={styles.good}> — higher for sure</strong>
              ) : null}
            </>
          ) : (
            <span className="muted">No item was scored on both sides, so the scores cannot be compared.</span>
          )}
        </div>
        <Figures baseline={baselineSummary} candidate={candidate.summary} />
      </div>
      <div className="table-wrap">
        <table className="table" data-testid="compare-items">
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col">Change</th>
              <th scope="col">Baseline</th>
              <th scope="col">Candidate</th>
              <th scope="col" className="num">
                Score Δ
              </th>
              <th scope="col" className="num">
                Cost Δ a run
              </th>
              <th scope="col" className="num">
                Latency Δ
              </th>
            </tr>
          </thead>
          <tbody>
            {candidate.items.map((item) => {
              const expanded = open.has(item.key);
              return (
                <Fragment key={item.key}>
                  <tr
                    className={styles.expandRow}
                    tabIndex={0}
                    aria-expanded={expanded}
                    onClick={() => toggle(item.key)}
                    onKeyDown={onRowKey(() => toggle(item.key))}
                    data-testid="compare-item"
                    data-item={item.key}
                    data-change={item.change}
                  >
                    <td>
                      <div className="nowrap">
                        <Chevron open={expanded} /> <span className="mono">{item.key}</span>
                        {item.itemChanged && (
                          <span
                            className="badge"
                            title="The two sides ran different versions of this item: a change may come from the edit, not the agent"
                            data-testid="item-edited"
                          >
                            edited between
                          </span>
                        )}
                      </div>
                      <div className={`${styles.goal} small muted`} title={item.goal}>
                        {item.goal}
                      </div>
                    </td>
                    <td>
                      <span className={`badge ${styles.change} ${styles[`change-${item.change}`]}`} data-testid="change-badge">
                        <span className="badge-dot" aria-hidden="true" />
                        {CHANGE_LABELS[item.change]}
                      </span>
                    </td>
                    <td>
                      <Side side={item.baseline} />
                    </td>
                    <td>
                      <Side side={item.candidate} />
                    </td>
                    <td className="num">
                      <Delta value={item.scoreDelta} text={formatScoreDelta(item.scoreDelta)} better="higher" />
                    </td>
                    <td className="num">
                      <Delta value={item.costDelta} text={formatUsdDelta(item.costDelta)} better="lower" />
                    </td>
                    <td className="num">
                      <Delta value={item.durationDelta} text={formatDurationDelta(item.durationDelta)} better="lower" />
                    </td>
                  </tr>
                  {expanded && (
                    <tr>
                      <td colSpan={7} className={styles.detailCell}>
                        <OutputDiffs item={item} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
