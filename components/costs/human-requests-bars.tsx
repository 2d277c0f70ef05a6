"use client";
// Human requests per day, stacked by kind (a Recharts chart, loaded on its own: lazy-charts.tsx).
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { RouterOutputs } from "@/lib/trpc";
import { SERIES_COLORS, formatDay } from "./chart-format";

type Requests = RouterOutputs["costs"]["health"]["humanRequests"];
type Point = Requests["byDay"][number];

export function HumanRequestsBars({ requests }: { requests: Requests }) {
  return (
    <div style={{ width: "100%", height: 160 }} data-testid="human-requests-chart">
      <ResponsiveContainer>
        <BarChart data={requests.byDay} margin={{ top: 4, right: 16, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="var(--border)" />
          <XAxis dataKey="day" tickFormatter={formatDay} tick={{ fontSize: 11 }} minTickGap={16} />
          <YAxis allowDecimals={false} tick={{ fontSize: 11 }} width={32} />
          <Tooltip labelFormatter={(day) => formatDay(String(day))} cursor={{ fill: "var(--surface-2)" }} />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {requests.kinds.map((k, i) => (
            <Bar
              key={k}
              dataKey={(p: Point) => p.counts[k] ?? 0}
              name={k}
              stackId="kind"
              fill={SERIES_COLORS[i % SERIES_COLORS.length]}
              isAnimationActive={false}
            />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
