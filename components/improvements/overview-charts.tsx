"use client";
// Improvements → Overview charts: friction by kind per day (stacked), improvements
// by tier and state, and the trust score of each live runtime tool.
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { SERIES_COLORS, formatDay } from "@/components/costs/chart-format";
import { IMPROVEMENT_STATES, type ImprovementDashboard } from "./format";

const STATE_COLORS: Record<string, string> = {
  proposed: "var(--blue)",
  active: "var(--green)",
  disabled: "var(--gray)",
  expired: "var(--amber)",
  rejected: "var(--red)",
  superseded: "var(--chart-8)",
};

export function FrictionChart({ data }: { data: ImprovementDashboard }) {
  return (
    <div style={{ width: "100%", height: 260 }} data-testid="friction-chart">
      <ResponsiveContainer>
        <BarChart data={data.frictionByDay} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="var(--border)" />
          <XAxis dataKey="day" tickFormatter={formatDay} tick={{ fontSize: 12 }} minTickGap={16} />
          <YAxis allowDecimals={false} tick={{ fontSize: 12 }} width={40} />
          <Tooltip labelFormatter={(day) => formatDay(String(day))} cursor={{ fill: "var(--surface-2)" }} />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {data.frictionKinds.map((k, i) => (
            <Bar
              key={k}
              dataKey={(p: Record<string, unknown>) => Number(p[k] ?? 0)}
              name={k.replace(/_/g, " ")}
              stackId="friction"
              fill={SERIES_COLORS[i % SERIES_COLORS.length]}
              isAnimationActive={false}
            />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

export function TierStateChart({ data }: { data: ImprovementDashboard }) {
  const tiers = [...new Set(data.byTierState.map((r) => r.tier))].sort();
  const rows = tiers.map((tier) => ({
    tier: `tier ${tier}`,
    ...Object.fromEntries(data.byTierState.filter((r) => r.tier === tier).map((r) => [r.state, r.count])),
  }));
  const states = IMPROVEMENT_STATES.filter((s) => data.byTierState.some((r) => r.state === s));
  return (
    <div style={{ width: "100%", height: Math.max(140, 70 + rows.length * 44) }} data-testid="tier-state-chart">
      <ResponsiveContainer>
        <BarChart data={rows} layout="vertical" margin={{ top: 4, right: 16, bottom: 0, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" horizontal={false} stroke="var(--border)" />
          <XAxis type="number" allowDecimals={false} tick={{ fontSize: 12 }} />
          <YAxis type="category" dataKey="tier" width={60} tick={{ fontSize: 12 }} />
          <Tooltip cursor={{ fill: "var(--surface-2)" }} />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {states.map((s) => (
            <Bar key={s} dataKey={s} name={s} stackId="state" fill={STATE_COLORS[s]} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

export function TrustChart({ data }: { data: ImprovementDashboard }) {
  const rows = data.tools.map((t) => ({ name: `${t.name} v${t.version}`, trust: Number(t.trust.toFixed(3)), uses: t.uses }));
  return (
    <div style={{ width: "100%", height: Math.max(120, 50 + rows.length * 34) }} data-testid="trust-chart">
      <ResponsiveContainer>
        <BarChart data={rows} layout="vertical" margin={{ top: 4, right: 16, bottom: 0, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" horizontal={false} stroke="var(--border)" />
          <XAxis type="number" domain={[0, 1]} tick={{ fontSize: 12 }} />
          <YAxis type="category" dataKey="name" width={150} tick={{ fontSize: 12 }} />
          <Tooltip
            formatter={(value, _n, item) => [`${value} after ${(item?.payload as { uses?: number } | undefined)?.uses ?? 0} uses`, "trust"]}
            cursor={{ fill: "var(--surface-2)" }}
          />
          <Bar dataKey="trust" name="Trust" fill={SERIES_COLORS[2]} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
