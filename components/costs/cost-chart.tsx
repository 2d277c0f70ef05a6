"use client";
// Cost per day, stacked by the chosen grouping (team, workflow or model).
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatCost } from "@/lib/format";
import type { RouterOutputs } from "@/lib/trpc";
import { SERIES_COLORS, formatDay, shortUsd } from "./chart-format";

type Series = RouterOutputs["costs"]["summary"]["series"];
type Point = Series["days"][number];

export function CostChart({ series }: { series: Series }) {
  return (
    <div style={{ width: "100%", height: 300 }} data-testid="cost-chart">
      <ResponsiveContainer>
        <BarChart data={series.days} margin={{ top: 8, right: 16, bottom: 0, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="var(--border)" />
          <XAxis dataKey="day" tickFormatter={formatDay} tick={{ fontSize: 12 }} minTickGap={16} />
          <YAxis tickFormatter={shortUsd} tick={{ fontSize: 12 }} width={56} />
          <Tooltip
            labelFormatter={(day) => formatDay(String(day))}
            formatter={(value) => formatCost(Number(value ?? 0))}
            cursor={{ fill: "var(--surface-2)" }}
          />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {series.keys.map((k, i) => (
            // A function, not a string key: model names contain dots, which a string key reads as a path.
            <Bar
              key={k.key}
              dataKey={(p: Point) => p.values[k.key] ?? 0}
              name={k.label}
              stackId="cost"
              fill={SERIES_COLORS[i % SERIES_COLORS.length]}
              isAnimationActive={false}
            />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
