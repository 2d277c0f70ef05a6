"use client";
// Runs created in the range, by how they ended (or where they are now).
import { Bar, BarChart, CartesianGrid, Cell, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { RouterOutputs, RunState } from "@/lib/trpc";
import { STATUS_COLORS } from "./chart-format";

type Outcome = RouterOutputs["costs"]["summary"]["runsByOutcome"][number];

export function OutcomeChart({ outcomes }: { outcomes: Outcome[] }) {
  return (
    <div style={{ width: "100%", height: Math.max(120, 40 + outcomes.length * 34) }} data-testid="outcome-chart">
      <ResponsiveContainer>
        <BarChart data={outcomes} layout="vertical" margin={{ top: 4, right: 16, bottom: 0, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" horizontal={false} stroke="var(--border)" />
          <XAxis type="number" allowDecimals={false} tick={{ fontSize: 12 }} />
          <YAxis type="category" dataKey="status" width={110} tick={{ fontSize: 12 }} tickFormatter={(s) => String(s).replace("_", " ")} />
          <Tooltip formatter={(value) => [String(value), "runs"]} cursor={{ fill: "var(--surface-2)" }} />
          <Bar dataKey="count" name="Runs" isAnimationActive={false}>
            {outcomes.map((o) => (
              <Cell key={o.status} fill={STATUS_COLORS[o.status as RunState] ?? "var(--chart-8)"} />
            ))}
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
