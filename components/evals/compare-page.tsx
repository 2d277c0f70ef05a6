"use client";
// Compare (/evals/compare?ids=a,b&baseline=a): two or more experiments of one
// dataset, each candidate against the baseline picked here, item by item.
// Refreshes while one of them is still going.
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useRef, type KeyboardEvent } from "react";
import { EmptyState, ErrorState, Skeleton, SkeletonRows } from "@/components/ui";
import { StatusBadge } from "@/components/status-badge";
import { errorMessage } from "@/lib/errors";
import { compareHref, parseCompareParams } from "@/lib/eval-format";
import { trpc } from "@/lib/trpc";
import { CandidateSection } from "./compare-candidate";
import { agentText, isActive, type ExperimentView } from "./types";
import styles from "./experiments.module.css";

export function ComparePage() {
  const params = useSearchParams();
  const { ids, baselineId } = parseCompareParams(params.get("ids"), params.get("baseline"));
  if (ids.length < 2 || !baselineId) {
    return (
      <div className="page">
        <EmptyState
          icon="⇄"
          title="Pick experiments to compare"
          action={
            <Link href="/evals/experiments" className="btn btn-primary">
              Experiments
            </Link>
          }
        >
          Compare needs two or more experiments of one dataset. Select them in the experiments list, mark one as the baseline, and press
          Compare.
        </EmptyState>
      </div>
    );
  }
  return <Comparison ids={ids} baselineId={baselineId} />;
}

function Comparison({ ids, baselineId }: { ids: string[]; baselineId: string }) {
  const router = useRouter();
  const experiments = trpc.useQueries((t) =>
    ids.map((id) => t.evals.experiments.get({ id }, { refetchInterval: (q) => (isActive(q.state.data?.status) ? 3000 : false) })),
  );
  const byId = new Map(experiments.flatMap((q) => (q.data ? [[q.data.id, q.data] as const] : [])));
  const anyActive = [...byId.values()].some((e) => isActive(e.status));
  const comparison = trpc.evals.experiments.compare.useQuery({ ids, baselineId }, { refetchInterval: anyActive ? 3000 : false });
  const baseline = byId.get(baselineId);

  return (
    <div className="page page-wide" data-testid="compare-page">
      <div className="page-header">
        <div className="page-title-block" style={{ flex: 1 }}>
          <span className="small muted">
            <Link href="/evals">Evals</Link> › <Link href="/evals/experiments">Experiments</Link> ›
          </span>
          <h1>Compare</h1>
          <p>
            Items pair by key. An item <strong>regressed</strong> when it passed under the baseline and fails now, <strong>improved</strong>{" "}
            the other way round. The exact McNemar test says whether the regressions outweigh the improvements by more than chance.
          </p>
        </div>
        {comparison.isFetching && !comparison.isLoading && <span className="spinner" aria-label="Updating" />}
      </div>
      <div className="card card-body stack" style={{ gap: 10, marginBottom: 16 }}>
        <BaselinePicker
          ids={ids}
          baselineId={baselineId}
          byId={byId}
          onPick={(id) => router.replace(compareHref(ids, id), { scroll: false })}
        />
        <ul className="stack" style={{ gap: 4, listStyle: "none", margin: 0, padding: 0 }}>
          {ids.map((id) => {
            const e = byId.get(id);
            return (
              <li key={id} className="row small" style={{ flexWrap: "wrap" }} data-testid="compare-experiment">
                <strong>{id === baselineId ? "Baseline" : "Candidate"}</strong>
                {e ? (
                  <>
                    <Link href={`/evals/experiments/${id}`}>{e.name}</Link>
                    <span className="muted">
                      {agentText(e)} · {e.model ?? "agent's own model"} · {e.epochs} epoch{e.epochs === 1 ? "" : "s"}
                    </span>
                    <StatusBadge status={e.status} />
                  </>
                ) : (
                  <Skeleton width={220} />
                )}
              </li>
            );
          })}
        </ul>
        {anyActive && (
          <div className="alert alert-info">An experiment is still running: the comparison fills in as its runs are scored.</div>
        )}
      </div>
      {comparison.isLoading ? (
        <div className="card">
          <SkeletonRows rows={6} columns={6} />
        </div>
      ) : comparison.isError || !comparison.data ? (
        <ErrorState
          title="Could not compare these experiments"
          message={comparison.error ? errorMessage(comparison.error) : "No data"}
          onRetry={() => comparison.refetch()}
        />
      ) : (
        <div className="stack" style={{ gap: 16 }}>
          {comparison.data.candidates.map((c) => (
            <CandidateSection
              key={c.experimentId}
              candidate={c}
              baselineSummary={comparison.data.baseline.summary}
              baseline={baseline}
              experiment={byId.get(c.experimentId)}
            />
          ))}
        </div>
      )}
    </div>
  );
}

/** A radio group in one row: arrow keys move the choice, as native radios do. */
function BaselinePicker({
  ids,
  baselineId,
  byId,
  onPick,
}: {
  ids: string[];
  baselineId: string;
  byId: Map<string, ExperimentView>;
  onPick(id: string): void;
}) {
  const refs = useRef<Array<HTMLButtonElement | null>>([]);
  function onKey(e: KeyboardEvent, i: number) {
    const step = e.key === "ArrowRight" || e.key === "ArrowDown" ? 1 : e.key === "ArrowLeft" || e.key === "ArrowUp" ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    const next = (i + step + ids.length) % ids.length;
    refs.current[next]?.focus();
    onPick(ids[next]);
  }
  return (
    <div className="row" style={{ flexWrap: "wrap" }}>
      <span id="baseline-label" className="label">
        Baseline
      </span>
      <div className={styles.picker} role="radiogroup" aria-labelledby="baseline-label" data-testid="baseline-picker">
        {ids.map((id, i) => (
          <button
            key={id}
            ref={(el) => {
              refs.current[i] = el;
            }}
            type="button"
            role="radio"
            aria-checked={id === baselineId}
            tabIndex={id === baselineId ? 0 : -1}
            className={styles.pick}
            onClick={() => onPick(id)}
            onKeyDown={(e) => onKey(e, i)}
            data-testid="baseline-option"
            data-experiment={id}
          >
            {byId.get(id)?.name ?? id}
          </button>
        ))}
      </div>
    </div>
  );
}
