"use client";
// Tool calls per tool, those that worked and those that failed, with the rate.
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatNumber } from "@/lib/format";
import type { RouterOutputs } from "@/lib/trpc";
import { percent } from "./chart-format";
import styles from "./costs.module.css";

type ToolRow = RouterOutputs["costs"]["health"]["tools"][number];

export function ToolSuccessChart({ tools }: { tools: ToolRow[] }) {
  const data = tools.map((t) => ({ label: `${t.tool} · ${percent(t.successRate)}`, ok: t.calls - t.errors, errors: t.errors }));
  return (
    <>
      <div style={{ width: "100%", height: Math.max(140, 56 + data.length * 32) }} data-testid="tool-success-chart">
        <ResponsiveContainer>
          <BarChart data={data} layout="vertical" margin={{ top: 4, right: 16, bottom: 0, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" horizontal={false} stroke="var(--border)" />
            <XAxis type="number" allowDecimals={false} tick={{ fontSize: 12 }} />
            <YAxis type="category" dataKey="label" width={170} tick={{ fontSize: 12 }} />
            <Tooltip formatter={(value) => formatNumber(Number(value ?? 0))} cursor={{ fill: "var(--surface-2)" }} />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            <Bar dataKey="ok" name="Succeeded" stackId="calls" fill="var(--green)" isAnimationActive={false} />
            <Bar dataKey="errors" name="Failed" stackId="calls" fill="var(--red)" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <div className="table-wrap">
        <table className="table" data-testid="tool-success-table">
          <thead>
            <tr>
              <th>Tool</th>
              <th className={styles.num}>Calls</th>
              <th className={styles.num}>Failed</th>
              <th className={styles.num}>Success rate</th>
            </tr>
          </thead>
          <tbody>
            {tools.map((t) => (
              <tr key={t.tool} data-testid="tool-success-row" data-tool={t.tool}>
                <td>
                  <code>{t.tool}</code>
                </td>
                <td className={styles.num}>{formatNumber(t.calls)}</td>
                <td className={styles.num}>{formatNumber(t.errors)}</td>
                <td className={styles.num}>{percent(t.successRate)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
