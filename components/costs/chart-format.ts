// Shared by the Costs charts: series colours and axis and tooltip formats.
import type { RunState } from "@/lib/trpc";

/** Distinct on white and for most colour-vision deficiencies (Okabe–Ito, then greys). */
export const SERIES_COLORS = [
  "var(--chart-1)",
  "var(--chart-2)",
  "var(--chart-3)",
  "var(--chart-4)",
  "var(--chart-5)",
  "var(--chart-6)",
  "var(--chart-7)",
  "var(--chart-8)",
];

export const STATUS_COLORS: Record<RunState, string> = {
  succeeded: "var(--green)",
  failed: "var(--red)",
  canceled: "var(--gray)",
  running: "var(--blue)",
  paused: "var(--amber)",
  waiting_human: "var(--purple)",
  queued: "var(--chart-8)",
};

/** The exact figure, for a tooltip: "$12.34567891". */
export function exactUsd(usd: number): string {
  return `$${usd.toFixed(8).replace(/0+$/, "").replace(/\.$/, ".00")}`;
}

/** "2026-03-04" -> "4 Mar" (UTC days, as the rollups are). */
export function formatDay(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString("en-GB", { day: "numeric", month: "short", timeZone: "UTC" });
}

/** Axis ticks: "$0", "$0.5", "$12", "$1.2k". */
export function shortUsd(usd: number): string {
  if (usd === 0) return "$0";
  if (usd >= 1000) return `$${(usd / 1000).toFixed(1)}k`;
  if (usd >= 1) return `$${Number(usd.toFixed(1))}`;
  return `$${Number(usd.toPrecision(2))}`;
}

/** 0.953 -> "95.3%", 1 -> "100%". */
export function percent(share: number): string {
  const p = share * 100;
  return `${p === 100 || p === 0 ? p : p.toFixed(1)}%`;
}

/** A latency bucket's upper bound: "≤ 512 ms", "≤ 2.0 s". */
export function atMostMs(ms: number): string {
  if (ms < 1000) return `≤ ${ms} ms`;
  const s = ms / 1000;
  return s < 60 ? `≤ ${s < 10 ? s.toFixed(1) : Math.round(s)} s` : `≤ ${Math.round(s / 60)} min`;
}
