// Words and figures for Settings › System (pure; tested in system-views.test.ts).
import { formatDuration, formatRelative } from "./format";
import type { RouterOutputs } from "./trpc";

export type Deployment = RouterOutputs["system"]["processes"];
export type ProcessRowView = Deployment["processes"][number];

/** A heartbeat's age to the second while it is recent: "0 s ago", "2 s ago", "4 min ago". */
export function beatAgo(iso: string, now: number): string {
  const s = Math.max(0, Math.floor((now - new Date(iso).getTime()) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  return formatRelative(iso, now);
}

export const ROLE_WORDS: Record<ProcessRowView["role"], { label: string; title: string }> = {
  all: { label: "all", title: "Serves the pages and the API and executes runs (one process)" },
  web: { label: "web", title: "Serves the pages, the API and live updates; hands runs to the queue" },
  worker: { label: "worker", title: "Takes runs from the queue and executes them" },
};

export const STATE_WORDS: Record<ProcessRowView["state"], { label: string; status: string; title: string }> = {
  running: { label: "running", status: "succeeded", title: "Beats every couple of seconds and holds its liveness lock" },
  stopped: { label: "stopped", status: "canceled", title: "Shut down cleanly; its runs were handed back" },
  "not responding": {
    label: "not responding",
    status: "failed",
    title: "No heartbeat for three intervals, or its liveness lock in PostgreSQL is gone; other workers take its runs",
  },
};

/** "—" where a process reports no figure. */
export const figure = (n: number | null | undefined) => (n === null || n === undefined ? "—" : String(n));

export const lagWords = (ms: number | null) => (ms === null ? "—" : formatDuration(ms));

/** "3 processes: 1 web, 2 workers · 1 not responding" */
export function summary(processes: ProcessRowView[]): string {
  const live = processes.filter((p) => p.state !== "stopped");
  const count = (role: ProcessRowView["role"]) => live.filter((p) => p.role === role).length;
  const parts = [
    count("all") && `${count("all")} all-in-one`,
    count("web") && `${count("web")} web`,
    count("worker") && `${count("worker")} ${count("worker") === 1 ? "worker" : "workers"}`,
  ].filter(Boolean);
  const silent = live.filter((p) => p.state === "not responding").length;
  const stopped = processes.length - live.length;
  return [
    `${live.length} ${live.length === 1 ? "process" : "processes"}${parts.length ? `: ${parts.join(", ")}` : ""}`,
    silent ? `${silent} not responding` : "",
    stopped ? `${stopped} stopped in the last day` : "",
  ]
    .filter(Boolean)
    .join(" · ");
}
