"use client";
// Tokens by model: input read from the cache, the rest of the input, output.
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatNumber, formatTokens } from "@/lib/format";
import type { RouterOutputs } from "@/lib/trpc";
import { SERIES_COLORS } from "./chart-format";

type ModelTokens = RouterOutputs["costs"]["summary"]["tokensByModel"][number];

export function TokensChart({ models }: { models: ModelTokens[] }) {
  const data = models.map((m) => ({
    model: m.model,
    uncached: m.inputTokens - m.cachedInputTokens,
    cached: m.cachedInputTokens,
    output: m.outputTokens,
  }));
  return (
    <div style={{ width: "100%", height: Math.max(140, 56 + data.length * 36) }} data-testid="tokens-chart">
      <ResponsiveContainer>
        <BarChart data={data} layout="vertical" margin={{ top: 4, right: 16, bottom: 0, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" horizontal={false} stroke="var(--border)" />
          <XAxis type="number" tickFormatter={(n) => formatTokens(Number(n))} tick={{ fontSize: 12 }} />
          <YAxis type="category" dataKey="model" width={170} tick={{ fontSize: 12 }} />
          <Tooltip formatter={(value) => formatNumber(Number(value ?? 0))} cursor={{ fill: "var(--surface-2)" }} />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          <Bar dataKey="uncached" name="Input" stackId="t" fill={SERIES_COLORS[0]} isAnimationActive={false} />
          <Bar dataKey="cached" name="Input from cache" stackId="t" fill={SERIES_COLORS[4]} isAnimationActive={false} />
          <Bar dataKey="output" name="Output" stackId="t" fill={SERIES_COLORS[1]} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
