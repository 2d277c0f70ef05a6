"use client";
// One candidate against the baseline: the one verdict, the server's sentence
// (docs/evals.md#compare-and-the-gate), the pass/fail counts, pass rate, cost
// and latency side by side, then every item, regressions first; a row opens
// (click, Enter or Space) to the diffs. No other verdict, badge or colour
// judges the whole comparison, so nothing here can contradict the sentence.
import Link from "next/link";
import { Fragment, useState } from "react";
import { percent } from "@/components/costs/chart-format";
import { deltaTone, formatDurationDelta, formatScore, formatScoreDelta, formatUsdDelta } from "@/lib/eval-format";
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
/** The short names of the two sides: "v1", "v2", or the experiments' names. */
type Labels = { baseline: string; candidate: string };

const VERDICT_CLASS: Partial<Record<CandidateComparison["verdict"]["kind"], string>> = {
  worse: styles["verdict-worse"],
  better: styles["verdict-better"],
};

/** One item's difference, coloured by which way it went; the whole comparison's figures stay plain (the verdict judges them). */
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

function Figures({ baseline, candidate, labels }: { baseline: Summary; candidate: Summary; labels: Labels }) {
  const rows: Array<{ label: string; base: string; cand: string; text: string }> = [
    {
      label: "Pass rate (% of items)",
      base: baseline.passRate === null ? "—" : percent(baseline.passRate),
      cand: candidate.passRate === null ? "—" : percent(candidate.passRate),
      text:
        baseline.passRate !== null && candidate.passRate !== null
          ? `${candidate.passRate >= baseline.passRate ? "+" : "−"}${percent(Math.abs(candidate.passRate - baseline.passRate))}`
          : "—",
    },
    {
      label: "Cost (USD, all runs)",
      base: formatCost(baseline.costUsd),
      cand: formatCost(candidate.costUsd),
      text: formatUsdDelta(candidate.costUsd - baseline.costUsd),
    },
    {
      label: "Latency p50 (a run)",
      base: formatDuration(baseline.latencyMs.p50),
      cand: formatDuration(candidate.latencyMs.p50),
      text:
        baseline.latencyMs.p50 !== null && candidate.latencyMs.p50 !== null
          ? formatDurationDelta(candidate.latencyMs.p50 - baseline.latencyMs.p50)
          : "—",
    },
    {
      label: "Latency p95 (a run)",
      base: formatDuration(baseline.latencyMs.p95),
      cand: formatDuration(candidate.latencyMs.p95),
      text:
        baseline.latencyMs.p95 !== null && candidate.latencyMs.p95 !== null
          ? formatDurationDelta(candidate.latencyMs.p95 - baseline.latencyMs.p95)
          : "—",
    },
  ];
  return (
    <table className={styles.scorerTable} style={{ maxWidth: 560 }} data-testid="compare-figures">
      <thead>
        <tr>
          <th scope="col">Figure</th>
          <th scope="col">{labels.baseline} (baseline)</th>
          <th scope="col">{labels.candidate}</th>
          <th scope="col">Change</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.label}>
            <td className="muted">{r.label}</td>
            <td>{r.base}</td>
            <td>{r.cand}</td>
            <td>{r.text}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function CandidateSection({
  candidate,
  baselineSummary,
  baselineLabel,
  baseline,
  experiment,
}: {
  candidate: CandidateComparison;
  baselineSummary: Summary;
  baselineLabel: string;
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
  const { verdict, outcomes: o } = candidate;
  const labels: Labels = { baseline: baselineLabel, candidate: candidate.label };
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
            against the baseline{" "}
          </span>
          {baseline ? <Link href={experimentHref(baseline.id)}>{baseline.name}</Link> : null}
        </h2>
      </div>
      <div className="card-body stack" style={{ gap: 12 }}>
        <p className={`${styles.verdict} ${VERDICT_CLASS[verdict.kind] ?? ""}`} data-testid="compare-verdict" data-verdict={verdict.kind}>
          {verdict.sentence}
        </p>
        <p className="small muted" style={{ margin: 0 }} data-testid="compare-counts">
          Pass/fail item by item: {o.regressed} regressed, {o.improved} improved, {o.unchanged} unchanged.
        </p>
        <Figures baseline={baselineSummary} candidate={candidate.summary} labels={labels} />
      </div>
      <div className="table-wrap">
        <table className="table" data-testid="compare-items">
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col">Pass/fail</th>
              <th scope="col">Score ({labels.baseline}, baseline)</th>
              <th scope="col">Score ({labels.candidate})</th>
              <th scope="col" className="num" title={`Score of ${labels.candidate} minus score of ${labels.baseline}, 0 to 1`}>
                Change
              </th>
              <th scope="col" className="num">
                Cost a run, change (USD)
              </th>
              <th scope="col" className="num">
                Latency, change
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
