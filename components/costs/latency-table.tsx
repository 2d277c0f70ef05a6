"use client";
// Latency percentiles per model and per tool. The rollups count calls in
// power-of-two buckets, so each figure is an upper bound ("≤ 512 ms"); the
// bars share one log scale across the rows.
import { formatNumber } from "@/lib/format";
import type { RouterOutputs } from "@/lib/trpc";
import { atMostMs } from "./chart-format";
import styles from "./costs.module.css";

type LatencyRow = RouterOutputs["costs"]["health"]["latency"][number];

const PERCENTILES = [
  { key: "p50Ms", label: "p50", color: "var(--chart-1)" },
  { key: "p95Ms", label: "p95", color: "var(--chart-2)" },
  { key: "p99Ms", label: "p99", color: "var(--chart-6)" },
] as const;

export function LatencyTable({ rows }: { rows: LatencyRow[] }) {
  const max = Math.max(1, ...rows.map((r) => r.p99Ms));
  // Bucket 0 (under 1 ms) still gets a visible bar.
  const width = (ms: number) => `${(((Math.log2(Math.max(ms, 1)) + 1) / (Math.log2(max) + 1)) * 100).toFixed(1)}%`;
  return (
    <div className="table-wrap">
      <table className="table" data-testid="latency-table">
        <thead>
          <tr>
            <th>Model or tool</th>
            <th className={styles.num}>Calls</th>
            {PERCENTILES.map((p) => (
              <th key={p.key} className={styles.num}>
                {p.label}
              </th>
            ))}
            <th style={{ width: "32%" }}>
              <span className={styles.legend}>
                {PERCENTILES.map((p) => (
                  <span key={p.key}>
                    <span className={styles.swatch} style={{ background: p.color }} aria-hidden="true" />
                    {p.label}
                  </span>
                ))}
                <span className="muted">(log scale)</span>
              </span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.kind} ${r.name}`} data-testid="latency-row" data-kind={r.kind} data-name={r.name}>
              <td>
                <span className="badge badge-outline" style={{ marginRight: 8 }}>
                  {r.kind === "chat" ? "model" : "tool"}
                </span>
                <code>{r.name}</code>
              </td>
              <td className={styles.num}>{formatNumber(r.count)}</td>
              {PERCENTILES.map((p) => (
                <td key={p.key} className={styles.num} data-testid={`latency-${p.label}`}>
                  {atMostMs(r[p.key])}
                </td>
              ))}
              <td>
                <div className={styles.latencyBars} aria-hidden="true">
                  {PERCENTILES.map((p) => (
                    <div
                      key={p.key}
                      className={styles.latencyBar}
                      style={{ width: width(r[p.key]), background: p.color }}
                      title={`${p.label} ${atMostMs(r[p.key])}`}
                    />
                  ))}
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
