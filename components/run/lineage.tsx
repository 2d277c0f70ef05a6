"use client";
// Where a run comes from (the run it re-runs, or forks after a step) and
// what came of it (its re-runs and forks), in the run header, each with a
// link to compare the two runs step by step.
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

/** The Compare page for two runs: `a` on the left (the earlier one), `b` on the right. */
export function compareHref(a: string, b: string) {
  return `/runs/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`;
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
          </Link>{" "}
          <Link href={compareHref(run.parentRunId, run.id)} className="lineage-compare" data-testid="compare-link">
            Compare with parent
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
          {parent.kind === "fork" && parent.step !== null ? (
            <span className="muted" data-testid="lineage-step">
              after step {parent.step}
            </span>
          ) : (
            parent.kind === "fork" && parent.seq !== null && <span className="muted">at checkpoint #{parent.seq}</span>
          )}
          <StatusBadge status={parent.status} />
          <Link
            href={compareHref(parent.id, run.id)}
            className="lineage-compare"
            data-testid="compare-link"
            title="Both runs side by side, step by step"
          >
            Compare with parent
          </Link>
        </span>
      )}
      {children.length > 0 && (
        <span className="lineage-part" data-testid="lineage-children">
          <span className="muted">Re-runs and forks:</span>
          {children.map((c, i) => (
            <span key={c.id} className="lineage-part">
              <Link
                href={runHref(c.id)}
                className="lineage-link"
                title={`${c.lineage === "fork" ? "Fork" : "Re-run"}: ${c.goal}`}
                data-testid="lineage-child"
              >
                <span>{short(c.goal)}</span>
              </Link>
              {c.lineage === "fork" && (
                <span className="muted small">
                  (fork{c.step !== null ? ` after step ${c.step}` : c.parentSeq !== null ? ` at #${c.parentSeq}` : ""})
                </span>
              )}
              <StatusBadge status={c.status} />
              <Link
                href={compareHref(run.id, c.id)}
                className="lineage-compare"
                data-testid="compare-link"
                data-child={c.id}
                title="This run and that one side by side, step by step"
              >
                Compare
              </Link>
              {i < children.length - 1 && (
                <span aria-hidden="true" className="muted">
                  ·
                </span>
              )}
            </span>
          ))}
        </span>
      )}
    </nav>
  );
}
