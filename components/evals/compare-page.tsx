"use client";
// Compare (/evals/compare?ids=a,b[&baseline=a], docs/evals.md#the-experiment-pages):
// two or more experiments of one dataset, each candidate against the
// baseline, item by item. The baseline is the one picked here (kept in the
// address), else the oldest, as the server chooses it. Refreshes while one of
// them is still going.
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useRef, type KeyboardEvent } from "react";
import { EmptyState, ErrorState, Skeleton, SkeletonRows } from "@/components/ui";
import { StatusBadge } from "@/components/status-badge";
import { errorMessage } from "@/lib/errors";
import { formatDateTime } from "@/lib/format";
import { compareHref, parseCompareParams } from "@/lib/eval-format";
import { trpc } from "@/lib/trpc";
import { CandidateSection } from "./compare-candidate";
import { agentText, isActive, type ExperimentView } from "./types";
import styles from "./experiments.module.css";

export function ComparePage() {
  const params = useSearchParams();
  const { ids, baselineId } = parseCompareParams(params.get("ids"), params.get("baseline"));
  if (ids.length < 2) {
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
          Compare needs two or more experiments of one dataset. Select them in the experiments list and press Compare; the oldest is the
          baseline unless you mark another.
        </EmptyState>
      </div>
    );
  }
  return <Comparison ids={ids} baselineId={baselineId} />;
}

function Comparison({ ids, baselineId: chosen }: { ids: string[]; baselineId: string | null }) {
  const router = useRouter();
  const experiments = trpc.useQueries((t) =>
    ids.map((id) => t.evals.experiments.get({ id }, { refetchInterval: (q) => (isActive(q.state.data?.status) ? 3000 : false) })),
  );
  const byId = new Map(experiments.flatMap((q) => (q.data ? [[q.data.id, q.data] as const] : [])));
  const anyActive = [...byId.values()].some((e) => isActive(e.status));
  const comparison = trpc.evals.experiments.compare.useQuery(
    { ids, ...(chosen ? { baselineId: chosen } : {}) },
    { refetchInterval: anyActive ? 3000 : false, placeholderData: (previous) => previous },
  );
  // The server's pick (the oldest) until the person picks one.
  const baselineId = chosen ?? comparison.data?.baseline.experimentId ?? null;
  const baseline = baselineId ? byId.get(baselineId) : undefined;
  const labels = new Map<string, string>(
    comparison.data
      ? [
          [comparison.data.baseline.experimentId, comparison.data.baseline.label],
          ...comparison.data.candidates.map((c) => [c.experimentId, c.label] as [string, string]),
        ]
      : [],
  );
  // Oldest first, so the order on the page is the order they ran in.
  const listed = [...ids].sort((a, b) => createdAt(byId.get(a)) - createdAt(byId.get(b)));

  return (
    <div className="page page-wide" data-testid="compare-page">
      <div className="page-header">
        <div className="page-title-block" style={{ flex: 1 }}>
          <span className="small muted">
            <Link href="/evals">Evals</Link> › <Link href="/evals/experiments">Experiments</Link> ›
          </span>
          <h1>Compare</h1>
          <p>
            Items pair by key. One sentence says whether a candidate&apos;s mean score differs from the baseline&apos;s for real:
            significant when the 95% interval of the difference leaves out 0. An item <strong>regressed</strong> when it passed under the
            baseline and fails now, <strong>improved</strong> the other way round.
          </p>
        </div>
        {comparison.isFetching && !comparison.isLoading && <span className="spinner" aria-label="Updating" />}
      </div>
      <div className="card card-body stack" style={{ gap: 10, marginBottom: 16 }}>
        <BaselinePicker
          ids={listed}
          baselineId={baselineId}
          chosen={!!chosen}
          byId={byId}
          labels={labels}
          onPick={(id) => router.replace(compareHref(ids, id), { scroll: false })}
          onReset={() => router.replace(compareHref(ids), { scroll: false })}
        />
        <ul className="stack" style={{ gap: 4, listStyle: "none", margin: 0, padding: 0 }}>
          {listed.map((id) => {
            const e = byId.get(id);
            return (
              <li
                key={id}
                className="row small"
                style={{ flexWrap: "wrap" }}
                data-testid="compare-experiment"
                data-experiment={id}
                data-role={id === baselineId ? "baseline" : "candidate"}
              >
                <strong>{id === baselineId ? "Baseline" : "Candidate"}</strong>
                {labels.get(id) && <span className="badge badge-outline">{labels.get(id)}</span>}
                {e ? (
                  <>
                    <Link href={`/evals/experiments/${id}`}>{e.name}</Link>
                    <span className="muted">
                      {agentText(e)} · {e.model ?? "agent's own model"} · {e.epochs} epoch{e.epochs === 1 ? "" : "s"} · created{" "}
                      <time dateTime={new Date(e.createdAt).toISOString()}>{formatDateTime(e.createdAt)}</time>
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
              baselineLabel={comparison.data.baseline.label}
              baseline={baseline}
              experiment={byId.get(c.experimentId)}
            />
          ))}
        </div>
      )}
    </div>
  );
}

const createdAt = (e: ExperimentView | undefined) => (e ? new Date(e.createdAt).getTime() : Number.MAX_SAFE_INTEGER);

/** A radio group in one row: arrow keys move the choice, as native radios do. The oldest is the baseline until one is picked. */
function BaselinePicker({
  ids,
  baselineId,
  chosen,
  byId,
  labels,
  onPick,
  onReset,
}: {
  ids: string[];
  baselineId: string | null;
  chosen: boolean;
  byId: Map<string, ExperimentView>;
  labels: Map<string, string>;
  onPick(id: string): void;
  onReset(): void;
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
  // Until the baseline is known, the first button takes Tab, so the group is always reachable.
  const focusable = baselineId && ids.includes(baselineId) ? baselineId : ids[0];
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
            tabIndex={id === focusable ? 0 : -1}
            className={styles.pick}
            onClick={() => onPick(id)}
            onKeyDown={(e) => onKey(e, i)}
            data-testid="baseline-option"
            data-experiment={id}
          >
            {labels.get(id) && labels.get(id) !== byId.get(id)?.name ? `${labels.get(id)} · ` : ""}
            {byId.get(id)?.name ?? id}
          </button>
        ))}
      </div>
      {baselineId && (
        <span className="small muted" data-testid="baseline-why">
          {chosen ? (
            <>
              chosen here ·{" "}
              <button type="button" className="btn btn-sm btn-ghost" onClick={onReset} data-testid="baseline-reset">
                Use the oldest
              </button>
            </>
          ) : (
            "the oldest, until you pick another"
          )}
        </span>
      )}
    </div>
  );
}
