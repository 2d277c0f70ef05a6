// The results in figures: mean score with its 95% interval, pass rate, pass@k
// and pass^k, cost, tokens, latency and flaky items.
import type { ReactNode } from "react";
import { percent } from "@/components/costs/chart-format";
import { formatInterval, formatScore } from "@/lib/eval-format";
import { formatDuration, formatTokens, formatCost, pluralize } from "@/lib/format";
import type { ExperimentResults } from "./types";
import styles from "./experiments.module.css";

function Card({ label, value, children, testId }: { label: string; value: string; children?: ReactNode; testId: string }) {
  return (
    <div className="card card-body" data-testid={testId}>
      <div className={styles.cardLabel}>{label}</div>
      <div className={styles.cardValue} data-testid={`${testId}-value`}>
        {value}
      </div>
      {children && <div className="small muted">{children}</div>}
    </div>
  );
}

export function ExperimentSummary({ results, epochs }: { results: ExperimentResults; epochs: number }) {
  const scored = results.items.filter((i) => i.samples > 0).length;
  const trials = results.items.reduce((n, i) => n + i.epochs.length, 0);
  const ks = Array.from({ length: epochs }, (_, i) => i + 1).filter((k) => results.passAtK[k] !== undefined);
  return (
    <div className={styles.cards} data-testid="experiment-summary">
      <Card label="Mean score" value={formatScore(results.score?.mean)} testId="summary-score">
        {results.score ? (
          <>
            95% interval {formatInterval(results.score)} · threshold {results.threshold}
          </>
        ) : (
          "No item scored yet"
        )}
      </Card>
      <Card label="Pass rate" value={results.passRate === null ? "—" : percent(results.passRate)} testId="summary-pass-rate">
        {scored ? `of ${pluralize(scored, "scored item")}` : "No item scored yet"}
      </Card>
      <div className="card card-body" data-testid="summary-pass-at-k">
        <div className={styles.cardLabel}>pass@k · pass^k</div>
        {ks.length === 0 ? (
          <div className="small muted" style={{ marginTop: 8 }}>
            Shown once every item has a score
          </div>
        ) : (
          <table className={styles.kTable}>
            <thead>
              <tr>
                <th scope="col">k</th>
                <th scope="col" title="Chance that at least one of k tries passes">
                  pass@k
                </th>
                <th scope="col" title="Chance that all k tries pass">
                  pass^k
                </th>
              </tr>
            </thead>
            <tbody>
              {ks.map((k) => (
                <tr key={k}>
                  <td>{k}</td>
                  <td>{percent(results.passAtK[k])}</td>
                  <td>{percent(results.passHatK[k])}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      <Card label="Cost" value={formatCost(results.costUsd)} testId="summary-cost">
        {trials ? `${formatCost(results.costUsd / trials)} a run` : null}
      </Card>
      <Card label="Tokens" value={formatTokens(results.tokens)} testId="summary-tokens" />
      <Card label="Latency p50" value={formatDuration(results.latencyMs.p50)} testId="summary-latency">
        p95 {formatDuration(results.latencyMs.p95)}
      </Card>
      <Card label="Flaky items" value={String(results.flaky)} testId="summary-flaky">
        {epochs > 1 ? "passed in some epochs, not all" : "needs 2 or more epochs"}
      </Card>
    </div>
  );
}
