"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { ModelLabel } from "@/components/model-label";
import { RunEndLine, StatusBadge } from "@/components/status-badge";
import { formatCost, formatDateTime, formatDuration, formatRelative, formatTokens } from "@/lib/format";
import { runDuration } from "@/lib/run-duration";
import type { RunSort, SortDir } from "@/lib/run-list";
import type { Run } from "@/lib/trpc";
import type { OptionalRunColumn } from "./run-columns";
import { SortHeader } from "./sort-header";
import styles from "./runs-table.module.css";

/** Only these can be canceled, so only these can be picked for "Cancel N runs". */
export const CANCELLABLE: readonly Run["status"][] = ["queued", "running", "paused", "waiting_human"];

export function RunsTable({
  runs,
  now,
  sort,
  onSort,
  selected,
  onSelect,
  columns,
}: {
  runs: Run[];
  now: number;
  sort: { sort: RunSort; dir: SortDir };
  onSort(next: { sort: RunSort; dir: SortDir }): void;
  /** Picked run ids; absent: no checkboxes (the person may not cancel runs). */
  selected?: ReadonlySet<string>;
  onSelect?(ids: string[], picked: boolean): void;
  /** The optional columns shown (docs/runs.md#the-runs-list). */
  columns: ReadonlySet<OptionalRunColumn>;
}) {
  const has = (c: OptionalRunColumn) => columns.has(c);
  const router = useRouter();
  const pickable = runs.filter((r) => CANCELLABLE.includes(r.status)).map((r) => r.id);
  const pickedHere = pickable.filter((id) => selected?.has(id)).length;
  const header = (column: RunSort, label: string, numeric = false, title?: string) => (
    <SortHeader column={column} label={label} current={sort} onSort={onSort} numeric={numeric} title={title} />
  );
  return (
    <div className="table-wrap">
      <table className="table" data-testid="runs-table">
        <thead>
          <tr>
            {selected && (
              <th className={styles.pick}>
                <input
                  type="checkbox"
                  aria-label="Select every active run shown"
                  disabled={pickable.length === 0}
                  checked={pickable.length > 0 && pickedHere === pickable.length}
                  ref={(el) => {
                    if (el) el.indeterminate = pickedHere > 0 && pickedHere < pickable.length;
                  }}
                  onChange={(e) => onSelect?.(pickable, e.target.checked)}
                  data-testid="select-all-runs"
                />
              </th>
            )}
            {header("status", "Status")}
            {header("goal", "Goal")}
            {header("agent", "Agent")}
            {has("model") && header("model", "Model")}
            {has("steps") && header("steps", "Steps", true)}
            {has("tokens") && header("tokens", "Tokens", true, "Tokens in / out")}
            {header("cost", "Cost", true)}
            {has("duration") && header("duration", "Duration", true)}
            {has("creator") && header("creator", "Created by")}
            {header("created", "Created")}
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => {
            const canPick = CANCELLABLE.includes(run.status);
            return (
              <tr
                key={run.id}
                className="clickable"
                data-testid="run-row"
                data-list-row
                data-run-id={run.id}
                data-status={run.status}
                onClick={(e) => {
                  if ((e.target as HTMLElement).closest("a, input, label")) return;
                  router.push(`/runs/${run.id}`);
                }}
              >
                {selected && (
                  <td className={styles.pick}>
                    {canPick && (
                      <input
                        type="checkbox"
                        aria-label={`Select run: ${run.goal.slice(0, 80)}`}
                        checked={selected.has(run.id)}
                        onChange={(e) => onSelect?.([run.id], e.target.checked)}
                        data-testid="select-run"
                      />
                    )}
                  </td>
                )}
                <td>
                  <StatusBadge status={run.status} testId="run-row-status" />
                </td>
                <td className="goal-cell">
                  <Link href={`/runs/${run.id}`} title={run.goal}>
                    {run.goal}
                  </Link>
                  <RunEndLine run={run} />
                  {run.tags.length > 0 && (
                    <div className={styles.tags} data-testid="run-row-tags">
                      {run.tags.map((tag) => (
                        <Link key={tag} href={`/runs?tag=${encodeURIComponent(tag)}`} className={styles.tag} title={`Runs tagged ${tag}`}>
                          {tag}
                        </Link>
                      ))}
                    </div>
                  )}
                </td>
                <td className="nowrap">
                  {run.agentName}
                  {run.team && (
                    <div className="small muted" data-testid="run-row-team">
                      {run.team.name}
                    </div>
                  )}
                </td>
                {has("model") && (
                  <td>
                    <ModelLabel model={run.model} scripted={run.scripted} />
                  </td>
                )}
                {has("steps") && <td className="num">{run.stepCount}</td>}
                {has("tokens") && (
                  <td className="num">
                    {formatTokens(run.inputTokens)} / {formatTokens(run.outputTokens)}
                  </td>
                )}
                <td className="num" data-testid="run-row-cost" data-cost={run.costUsd}>
                  {formatCost(run.costUsd)}
                </td>
                {has("duration") && (
                  <td className="num" data-testid="run-row-duration">
                    {formatDuration(runDuration(run, now))}
                  </td>
                )}
                {has("creator") && (
                  <td className="nowrap" title={run.createdBy?.email}>
                    {run.createdBy?.name || run.createdBy?.email || "—"}
                  </td>
                )}
                <td className="nowrap" title={formatDateTime(run.createdAt)}>
                  {formatRelative(run.createdAt, now)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
