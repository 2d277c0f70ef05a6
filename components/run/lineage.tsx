"use client";
// Where a run comes from (the run it re-runs, or forks at a checkpoint) and
// what came of it (its re-runs and forks), in the run header.
import Link from "next/link";
import { StatusBadge } from "@/components/status-badge";
import { trpc, type Run } from "@/lib/trpc";

const GOAL_CHARS = 70;

function short(goal: string): string {
  const line = goal.trim().split("\n")[0];
  return line.length > GOAL_CHARS ? `${line.slice(0, GOAL_CHARS - 1)}…` : line;
}

function runHref(id: string) {
  return `/runs/${encodeURIComponent(id)}`;
}

export function Lineage({ run }: { run: Run }) {
  const lineage = trpc.runs.lineage.useQuery({ id: run.id }, { staleTime: 10_000 });
  const data = lineage.data;
  // Nothing to show (or not loaded yet): a run most often has no lineage, so no placeholder either.
  if (!data || (!data.parent && data.children.length === 0)) {
    if (run.parentRunId && lineage.isError) {
      return (
        <div className="lineage small muted" data-testid="lineage">
          {run.lineage === "fork" ? "Forked from" : "Re-run of"}{" "}
          <Link href={runHref(run.parentRunId)} className="mono" data-testid="lineage-parent">
            {run.parentRunId}
          </Link>
        </div>
      );
    }
    return null;
  }
  const { parent, children } = data;
  return (
    <nav className="lineage" aria-label="Lineage" data-testid="lineage">
      {parent && (
        <span className="lineage-part">
          <span className="muted">{parent.kind === "fork" ? "Forked from" : "Re-run of"}</span>
          <Link href={runHref(parent.id)} className="lineage-link" title={parent.goal} data-testid="lineage-parent">
            <span>{short(parent.goal)}</span>
          </Link>
          {parent.kind === "fork" && parent.seq !== null && <span className="muted">at checkpoint #{parent.seq}</span>}
          <StatusBadge status={parent.status} />
        </span>
      )}
      {children.length > 0 && (
        <span className="lineage-part" data-testid="lineage-children">
          <span className="muted">Re-runs and forks:</span>
          {children.map((c, i) => (
            <span key={c.id} className="lineage-part">
              <Link href={runHref(c.id)} className="lineage-link" title={`${c.lineage === "fork" ? "Fork" : "Re-run"}: ${c.goal}`} data-testid="lineage-child">
                <span>{short(c.goal)}</span>
              </Link>
              {c.lineage === "fork" && <span className="muted small">(fork{c.parentSeq !== null ? ` at #${c.parentSeq}` : ""})</span>}
              <StatusBadge status={c.status} />
              {i < children.length - 1 && <span aria-hidden="true" className="muted">·</span>}
            </span>
          ))}
        </span>
      )}
    </nav>
  );
}
