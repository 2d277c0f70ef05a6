"use client";
// How each scorer scored across the trials: its scores in five buckets, how
// many passed, and how many it skipped and why (e.g. no judge configured).
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { EmptyState } from "@/components/ui";
import { formatScore } from "@/lib/eval-format";
import type { ScorerSummary } from "./types";
import styles from "./experiments.module.css";

/** The server's five buckets: [0, .2), [.2, .4), [.4, .6), [.6, .8), [.8, 1]. */
const BUCKETS = ["<.2", ".2–.4", ".4–.6", ".6–.8", "≥.8"];
const SAID = ["under 0.2", "0.2 to 0.4", "0.4 to 0.6", "0.6 to 0.8", "0.8 or more"];

export function ScorerCharts({ scorers }: { scorers: ScorerSummary[] }) {
  if (scorers.length === 0) {
    return (
      <EmptyState icon="▁" title="No scores yet">
        Each scorer&apos;s distribution shows here once runs are scored.
      </EmptyState>
    );
  }
  return (
    <div className={styles.scorers}>
      {scorers.map((s) => (
        <div key={s.kind} className="card card-body stack" style={{ gap: 6 }} data-testid="scorer-chart" data-kind={s.kind}>
          <div className="row">
            <h3 className="mono">{s.kind}</h3>
            <span className="spacer" />
            <span className="small muted">mean {formatScore(s.meanScore)}</span>
          </div>
          <div className="small muted">
            {s.passed} of {s.scored} passed
            {s.skipped > 0 && (
              <span data-testid="scorer-skipped">
                {" "}
                · {s.skipped} skipped{s.skippedBecause ? `: ${s.skippedBecause}` : ""}
              </span>
            )}
          </div>
          {s.scored > 0 ? (
            <div
              style={{ width: "100%", height: 130 }}
              role="img"
              aria-label={`${s.kind}: ${SAID.map((b, i) => `${s.histogram[i] ?? 0} scored ${b}`).join(", ")}`}
            >
              <ResponsiveContainer>
                <BarChart
                  data={BUCKETS.map((bucket, i) => ({ bucket, count: s.histogram[i] ?? 0 }))}
                  margin={{ top: 4, right: 4, bottom: 0, left: -24 }}
                >
                  <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="var(--border)" />
                  <XAxis dataKey="bucket" tick={{ fontSize: 11, fill: "var(--text-3)" }} interval={0} />
                  <YAxis allowDecimals={false} tick={{ fontSize: 11, fill: "var(--text-3)" }} />
                  <Tooltip formatter={(value) => [String(value), "trials"]} cursor={{ fill: "var(--surface-2)" }} />
                  <Bar dataKey="count" name="Trials" fill="var(--accent)" isAnimationActive={false} />
                </BarChart>
              </ResponsiveContainer>
            </div>
          ) : (
            <p className="small muted">Nothing scored: every trial skipped it.</p>
          )}
        </div>
      ))}
    </div>
  );
}
