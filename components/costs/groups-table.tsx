"use client";
// The exact figures behind the cost chart: one row per team, workflow or model.
import { formatNumber, formatCost } from "@/lib/format";
import type { RouterOutputs } from "@/lib/trpc";
import { SERIES_COLORS, exactUsd } from "./chart-format";
import styles from "./costs.module.css";

type Summary = RouterOutputs["costs"]["summary"];

const HEADINGS: Record<Summary["groupBy"], string> = { team: "Team", workflow: "Workflow", model: "Model" };

export function GroupsTable({ summary }: { summary: Summary }) {
  const colors = new Map(summary.series.keys.map((k, i) => [k.key, SERIES_COLORS[i % SERIES_COLORS.length]]));
  const other = summary.series.keys.find((k) => !summary.groups.some((g) => g.key === k.key));
  const total = summary.totals.costUsd;
  return (
    <div className="table-wrap">
      <table className="table" data-testid="cost-groups">
        <thead>
          <tr>
            <th>{HEADINGS[summary.groupBy]}</th>
            <th className={styles.num}>Cost</th>
            <th className={styles.num}>Share</th>
            <th className={styles.num}>Calls</th>
            <th className={styles.num}>Input tokens</th>
            <th className={styles.num}>of which cached</th>
            <th className={styles.num}>Output tokens</th>
          </tr>
        </thead>
        <tbody>
          {summary.groups.map((g) => (
            <tr key={g.key} data-testid="cost-group-row" data-key={g.key}>
              <td>
                <span
                  className={styles.swatch}
                  style={{ background: colors.get(g.key) ?? (other ? colors.get(other.key) : undefined) }}
                  aria-hidden="true"
                />
                {summary.groupBy === "model" ? <code>{g.label}</code> : g.label}
              </td>
              <td className={styles.num} title={exactUsd(g.costUsd)} data-testid="cost-group-cost">
                {formatCost(g.costUsd)}
              </td>
              <td className={styles.num}>{total > 0 ? `${((g.costUsd / total) * 100).toFixed(1)}%` : "—"}</td>
              <td className={styles.num}>{formatNumber(g.calls)}</td>
              <td className={styles.num}>{formatNumber(g.inputTokens)}</td>
              <td className={styles.num}>{formatNumber(g.cachedInputTokens)}</td>
              <td className={styles.num}>{formatNumber(g.outputTokens)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
