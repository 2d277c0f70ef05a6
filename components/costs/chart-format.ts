// Shared by the Costs charts: series colours and axis and tooltip formats.
import type { RunState } from "@/lib/trpc";

/** Distinct on white and for most colour-vision deficiencies (Okabe–Ito, then greys). */
export const SERIES_COLORS = ["#3451d1", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#0072b2", "#9aa1ad"];

export const STATUS_COLORS: Record<RunState, string> = {
  succeeded: "#1a7f45",
  failed: "#c0282d",
  canceled: "#586172",
  running: "#1d63c9",
  paused: "#9a5b00",
  waiting_human: "#6d3fc4",
  queued: "#9aa1ad",
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
