"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { ModelLabel } from "@/components/model-label";
import { StatusBadge } from "@/components/status-badge";
import { formatDateTime, formatDuration, formatRelative, formatTokens } from "@/lib/format";
import type { Run } from "@/lib/trpc";

/** Running runs count up; others show their recorded duration. */
export function runDuration(run: Pick<Run, "status" | "startedAt" | "durationMs">, now: number): number | null {
  if (run.status === "running" && run.startedAt) return now - new Date(run.startedAt).getTime();
  return run.durationMs;
}

export function RunsTable({ runs, now }: { runs: Run[]; now: number }) {
  const router = useRouter();
  return (
    <div className="table-wrap">
      <table className="table" data-testid="runs-table">
        <thead>
          <tr>
            <th>Status</th>
            <th>Goal</th>
            <th>Agent</th>
            <th>Model</th>
            <th className="num">Steps</th>
            <th className="num">Tokens in / out</th>
            <th className="num">Duration</th>
            <th>Created by</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr
              key={run.id}
              className="clickable"
              data-testid="run-row"
              data-list-row
              data-run-id={run.id}
              data-status={run.status}
              onClick={(e) => {
                if ((e.target as HTMLElement).closest("a")) return;
                router.push(`/runs/${run.id}`);
              }}
            >
              <td>
                <StatusBadge status={run.status} testId="run-row-status" />
              </td>
              <td className="goal-cell">
                <Link href={`/runs/${run.id}`} title={run.goal}>
                  {run.goal}
                </Link>
                {run.status === "failed" && run.errorMessage && (
                  <div className="small" style={{ color: "var(--red)", overflow: "hidden", textOverflow: "ellipsis", whiteSpace: "nowrap" }} title={run.errorMessage}>
                    {run.errorMessage}
                  </div>
                )}
              </td>
              <td className="nowrap">
                {run.agentName}
                {run.team && <div className="small muted" data-testid="run-row-team">{run.team.name}</div>}
              </td>
              <td>
                <ModelLabel model={run.model} scripted={run.scripted} />
              </td>
              <td className="num">{run.stepCount}</td>
              <td className="num">
                {formatTokens(run.inputTokens)} / {formatTokens(run.outputTokens)}
              </td>
              <td className="num">{formatDuration(runDuration(run, now))}</td>
              <td className="nowrap" title={run.createdBy?.email}>
                {run.createdBy?.name || run.createdBy?.email || "—"}
              </td>
              <td className="nowrap" title={formatDateTime(run.createdAt)}>
                {formatRelative(run.createdAt, now)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
