"use client";
// An experiment (/evals/experiments/[id]): what ran, its live progress while
// it goes (polled every 1.5 s, stopped once it finishes), then its results:
// the figures, every item with its epochs, and each scorer's distribution.
import Link from "next/link";
import { useEffect, useRef } from "react";
import { EmptyState, ErrorState, PageShell, Skeleton, SkeletonRows } from "@/components/ui";
import { errorCode, errorMessage } from "@/lib/errors";
import { trpc } from "@/lib/trpc";
import { ExperimentHeader } from "./experiment-header";
import { ExperimentSummary } from "./experiment-summary";
import { ItemResults } from "./item-results";
import { ScorerCharts } from "./scorer-charts";
import { isActive } from "./types";

const LIVE_MS = 1500;

export function ExperimentPage({ id }: { id: string }) {
  const experiment = trpc.evals.experiments.get.useQuery(
    { id },
    { refetchInterval: (q) => (isActive(q.state.data?.status) ? LIVE_MS : false) },
  );
  const active = isActive(experiment.data?.status);
  const results = trpc.evals.experiments.results.useQuery(
    { id },
    { enabled: !!experiment.data, refetchInterval: active ? LIVE_MS * 2 : false },
  );

  // The last trials are scored as it finishes: fetch the results once more then.
  const wasActive = useRef(active);
  const refetchResults = results.refetch;
  useEffect(() => {
    if (wasActive.current && !active) void refetchResults();
    wasActive.current = active;
  }, [active, refetchResults]);

  if (experiment.isLoading) {
    return (
      <div className="page page-wide" role="status" aria-label="Loading">
        <Skeleton width={320} height={28} />
        <div style={{ height: 16 }} />
        <SkeletonRows rows={6} columns={6} />
      </div>
    );
  }
  if (experiment.isError || !experiment.data) {
    return (
      <div className="page">
        {errorCode(experiment.error) === "NOT_FOUND" ? (
          <EmptyState
            icon="?"
            title="No such experiment"
            action={
              <Link href="/evals/experiments" className="btn">
                All experiments
              </Link>
            }
          >
            There is no experiment {id}, or it belongs to a team you are not in. It may have been deleted.
          </EmptyState>
        ) : (
          <ErrorState
            title="Could not load the experiment"
            message={experiment.error ? errorMessage(experiment.error) : "No data"}
            onRetry={() => experiment.refetch()}
          />
        )}
      </div>
    );
  }
  const e = experiment.data;
  return (
    <div className="page page-wide" data-testid="experiment-page" data-status={e.status}>
      <ExperimentHeader experiment={e} updating={experiment.isFetching} />
      <PageShell query={results} loading={<SkeletonRows rows={5} columns={6} />} failed="Could not load the results">
        {(data) => (
          <div className="stack" style={{ gap: 16 }}>
            <ExperimentSummary results={data} epochs={e.epochs} />
            <section className="card" aria-labelledby="items-title">
              <div className="card-header">
                <h2 id="items-title">Items</h2>
                <span className="small muted">
                  One dot per epoch: green passed, red did not, grey no verdict yet. Open a row for each scorer&apos;s result.
                </span>
              </div>
              <ItemResults items={data.items} />
            </section>
            <section className="stack" style={{ gap: 8 }} aria-labelledby="scorers-title">
              <h2 id="scorers-title">Scorers</h2>
              <ScorerCharts scorers={data.scorers} />
            </section>
          </div>
        )}
      </PageShell>
    </div>
  );
}
