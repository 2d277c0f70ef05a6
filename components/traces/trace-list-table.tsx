"use client";
import Link from "next/link";
import { StatusBadge } from "@/components/status-badge";
import { formatCost, formatDateTime, formatDuration, formatNumber, formatRelative, formatTokens } from "@/lib/format";
import type { TraceListSort } from "@/lib/trace-list-filters";
import type { RouterOutputs } from "@/lib/trpc";
import styles from "./traces.module.css";

export type TraceRowView = RouterOutputs["traces"]["list"]["traces"][number];

/** A run still going counts up from when it started. */
function durationOf(t: TraceRowView, now: number): number | null {
  if (t.status === "running" && t.startedAt && !t.endedAt) return Math.max(0, now - new Date(t.startedAt).getTime());
  return t.durationMs;
}

function SortHeader({
  label,
  sort,
  current,
  order,
  onSort,
  className,
}: {
  label: string;
  sort: TraceListSort;
  current: TraceListSort;
  order: "asc" | "desc";
  onSort(sort: TraceListSort, order: "asc" | "desc"): void;
  className?: string;
}) {
  const active = current === sort;
  const next = active && order === "desc" ? "asc" : "desc";
  return (
    <th className={className} aria-sort={active ? (order === "asc" ? "ascending" : "descending") : "none"}>
      <button
        type="button"
        className={styles.sortButton}
        onClick={() => onSort(sort, next)}
        data-testid={`trace-list-sort-${sort}`}
        title={`Sort by ${label.toLowerCase()}`}
      >
        {label}
        {active ? (order === "asc" ? " ↑" : " ↓") : ""}
      </button>
    </th>
  );
}

export function TraceListTable({
  traces,
  now,
  sort,
  order,
  onSort,
}: {
  traces: TraceRowView[];
  now: number;
  sort: TraceListSort;
  order: "asc" | "desc";
  onSort(sort: TraceListSort, order: "asc" | "desc"): void;
}) {
  const header = { current: sort, order, onSort };
  return (
    <div className="table-wrap">
      <table className="table" data-testid="trace-list-table">
        <thead>
          <tr>
            <th>Run</th>
            <th>Agent</th>
            <th>Launched by</th>
            <th>Status</th>
            <SortHeader label="Duration" sort="duration" className="num" {...header} />
            <th className="num">Spans</th>
            <SortHeader label="Tokens" sort="tokens" className="num" {...header} />
            <SortHeader label="Cost" sort="cost" className="num" {...header} />
            <SortHeader label="Time" sort="time" {...header} />
          </tr>
        </thead>
        <tbody>
          {traces.map((t) => (
            <tr key={t.runId} data-testid="trace-row" data-run-id={t.runId} data-status={t.status}>
              <td>
                <Link href={`/runs/${t.runId}?tab=trace`} className={styles.name} title={t.name} data-testid="trace-row-link">
                  {t.name}
                </Link>
              </td>
              <td className="nowrap">
                {t.agentName}
                {t.teamName && (
                  <div className="small muted" data-testid="trace-row-team">
                    {t.teamName}
                  </div>
                )}
              </td>
              <td className="nowrap" title={t.user.email} data-testid="trace-row-user">
                {t.user.name || t.user.email}
              </td>
              <td>
                <StatusBadge status={t.status} />
              </td>
              <td className="num">{formatDuration(durationOf(t, now))}</td>
              <td className="num" data-testid="trace-row-spans">
                {formatNumber(t.spanCount)}
              </td>
              <td className="num" title={`${formatNumber(t.inputTokens)} in, ${formatNumber(t.outputTokens)} out`}>
                {t.inputTokens || t.outputTokens ? `${formatTokens(t.inputTokens)} / ${formatTokens(t.outputTokens)}` : "—"}
              </td>
              <td className="num" title={`${t.costUsd} USD`} data-testid="trace-row-cost">
                {formatCost(t.costUsd)}
              </td>
              <td className="nowrap" title={formatDateTime(t.createdAt)}>
                {formatRelative(t.createdAt, now)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
