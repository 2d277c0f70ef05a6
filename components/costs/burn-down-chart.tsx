"use client";
// A team's spend this month, cumulative per day, against its monthly budget
// (the reference line), with the month's spend at the pace so far (dashed).
import { CartesianGrid, Legend, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatCost } from "@/lib/format";
import type { RouterOutputs } from "@/lib/trpc";
import { exactUsd, formatDay, shortUsd } from "./chart-format";
import styles from "./costs.module.css";

type Team = RouterOutputs["costs"]["health"]["burnDown"]["teams"][number];

export function BurnDownChart({ team }: { team: Team }) {
  const n = team.days.length;
  const data = team.days.map((d, i) => ({ day: d.day, spent: d.cumulativeUsd, pace: (team.projectedUsd * (i + 1)) / n }));
  const over = team.spentUsd > team.budgetUsd;
  const overSoon = !over && team.projectedUsd > team.budgetUsd;
  return (
    <div data-testid="burn-down" data-team={team.name}>
      <div className={styles.burnTitle}>
        <strong>{team.name}</strong>
        <span className="small muted">
          <span title={exactUsd(team.spentUsd)} data-testid="burn-down-spent">
            {formatCost(team.spentUsd)}
          </span>{" "}
          of {formatCost(team.budgetUsd)}
        </span>
        {over && <span className={`small ${styles.over}`}>over budget: model calls are refused</span>}
        {overSoon && <span className={`small ${styles.over}`}>on pace for {formatCost(team.projectedUsd)}</span>}
      </div>
      <div style={{ width: "100%", height: 200 }}>
        <ResponsiveContainer>
          <LineChart data={data} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="var(--border)" />
            <XAxis dataKey="day" tickFormatter={formatDay} tick={{ fontSize: 11 }} minTickGap={24} />
            <YAxis tickFormatter={shortUsd} tick={{ fontSize: 11 }} width={52} domain={[0, "auto"]} />
            <Tooltip labelFormatter={(day) => formatDay(String(day))} formatter={(value) => formatCost(Number(value ?? 0))} />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            <ReferenceLine
              y={team.budgetUsd}
              ifOverflow="extendDomain"
              stroke="var(--red)"
              strokeDasharray="6 3"
              label={{ value: `Budget ${formatCost(team.budgetUsd)}`, position: "insideTopLeft", fontSize: 11, fill: "var(--red)" }}
            />
            <Line
              type="monotone"
              dataKey="pace"
              name="At this pace"
              stroke="var(--chart-8)"
              strokeDasharray="3 3"
              dot={false}
              isAnimationActive={false}
            />
            <Line
              type="linear"
              dataKey="spent"
              name="Spent"
              stroke="var(--chart-1)"
              strokeWidth={2}
              dot={false}
              connectNulls={false}
              isAnimationActive={false}
            />
          </LineChart>
        </ResponsiveContainer>
      </div>
    </div>
  );
}
