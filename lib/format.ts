// Formatting for the UI: durations, relative times, token counts.

const numberFormat = new Intl.NumberFormat("en-US");

export function formatNumber(n: number): string {
  return numberFormat.format(n);
}

/** 950 -> "950", 12_300 -> "12.3k", 4_200_000 -> "4.2M". */
export function formatTokens(n: number): string {
  if (n < 10_000) return numberFormat.format(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** 850 -> "850 ms", 4200 -> "4.2 s", 192000 -> "3m 12s", 3840000 -> "1h 04m". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.floor(s)} s`;
  const totalS = Math.floor(s);
  const m = Math.floor(totalS / 60);
  if (m < 60) return `${m}m ${String(totalS % 60).padStart(2, "0")}s`;
  const h = Math.floor(m / 60);
  return `${h}h ${String(m % 60).padStart(2, "0")}m`;
}

function toDate(value: Date | string | number): Date {
  return value instanceof Date ? value : new Date(value);
}

/** "just now", "42 s ago", "5 min ago", "3 h ago", "yesterday", "12 Mar", "12 Mar 2023". */
export function formatRelative(value: Date | string | number | null | undefined, now: number = Date.now()): string {
  if (value === null || value === undefined) return "—";
  const date = toDate(value);
  const diff = Math.round((now - date.getTime()) / 1000);
  if (diff < -60) return formatDateTime(date);
  if (diff < 10) return "just now";
  if (diff < 60) return `${diff} s ago`;
  if (diff < 3600) return `${Math.floor(diff / 60)} min ago`;
  if (diff < 86_400) return `${Math.floor(diff / 3600)} h ago`;
  if (diff < 2 * 86_400) return "yesterday";
  if (diff < 7 * 86_400) return `${Math.floor(diff / 86_400)} days ago`;
  const sameYear = date.getFullYear() === new Date(now).getFullYear();
  return date.toLocaleDateString("en-GB", { day: "numeric", month: "short", ...(sameYear ? {} : { year: "numeric" }) });
}

/** "12 Mar 2025, 14:03:27" (for tooltips and fact lists). */
export function formatDateTime(value: Date | string | number | null | undefined): string {
  if (value === null || value === undefined) return "—";
  return toDate(value).toLocaleString("en-GB", {
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
}

/** "14:03:27" */
export function formatClock(value: Date | string | number): string {
  return toDate(value).toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

export function pluralize(n: number, one: string, many = `${one}s`): string {
  return `${formatNumber(n)} ${n === 1 ? one : many}`;
}

/** Status names as people read them. */
export const STATUS_LABELS: Record<string, string> = {
  queued: "queued",
  running: "running",
  paused: "paused",
  waiting_human: "waiting for human",
  succeeded: "succeeded",
  failed: "failed",
  canceled: "canceled",
};

/** 0 -> "0 bytes", 1_234 -> "1.2 kB", 3_400_000 -> "3.4 MB". */
export function formatFileSize(n: number): string {
  if (n === 1) return "1 byte";
  if (n < 1000) return `${n} bytes`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)} kB`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, "")} MB`;
}

/**
 * A cost in US dollars, as every page shows one:
 * - 0 is "$0";
 * - from $1 up, cents with thousands separators: 12.345 -> "$12.35", 1234.5 -> "$1,234.50";
 * - below $1, two significant digits, never fewer than two decimals, so a
 *   model call's fraction of a cent stays readable without noise:
 *   0.5 -> "$0.50", 0.4213 -> "$0.42", 0.0421 -> "$0.042", 0.006546 -> "$0.0065",
 *   0.00001234 -> "$0.000012", 0.05 -> "$0.05" (a figure that rounds up to $1 is shown as "$1.00");
 * - below a millionth of a dollar, "<$0.000001"; negative figures keep their sign.
 * The exact figure belongs in a tooltip where it matters.
 */
export function formatCost(usd: number): string {
  if (!Number.isFinite(usd)) return "—";
  const sign = usd < 0 ? "-" : "";
  const n = Math.abs(usd);
  if (n === 0) return "$0";
  if (n < 0.000001) return `${sign}<$0.000001`;
  const small = Number(n.toPrecision(2));
  if (n >= 1 || small >= 1) return `${sign}$${n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  // Decimals for two significant digits: 0.0065 has its first digit at the 3rd place, so 4.
  const decimals = Math.max(2, 1 - Math.floor(Math.log10(small)));
  // Trailing zeros past the cents say nothing: 0.05 is "$0.05", not "$0.050".
  return `${sign}$${small.toFixed(decimals).replace(/(\.\d\d\d*?)0+$/, "$1")}`;
}

/** A size on disk in the unit people read it in: 512 B, 12 kB, 3.4 MB, 1.2 GB (powers of 1000). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "—";
  if (bytes < 1000) return `${Math.round(bytes)} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value >= 100 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}
