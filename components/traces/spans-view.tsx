"use client";
// Traces › Spans
// (docs/traces-and-costs.md#traces--spans-searching-spans-across-runs): spans across
// runs, filtered by kind, model, tool, team, workflow, status, duration, cost, time
// range and name, newest first; each opens its run's Trace tab with the span
// selected.
import { keepPreviousData } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { EmptyState, ErrorState, SkeletonRows, PagedFooter } from "@/components/ui";
import { roleAtLeast, useMe } from "@/lib/access";
import { errorMessage } from "@/lib/errors";
import { pluralize } from "@/lib/format";
import { useNow } from "@/lib/use-now";
import { trpc } from "@/lib/trpc";
import { SpansTable } from "./spans-table";
import { TracesFilters } from "./traces-filters";
import { RANGES, numberFrom, useTraceFilters } from "./use-trace-filters";

const PAGE_SIZE = 50;

export function SpansView() {
  const { filters, setFilters, active, clear } = useTraceFilters();
  const { me } = useMe();
  // The range starts when it is picked (or refreshed), so "Load more" and refetches ask for the same window.
  const [searched, setSearched] = useState(() => ({ range: filters.range, at: Date.now() }));
  if (searched.range !== filters.range) setSearched({ range: filters.range, at: Date.now() });
  const from = new Date(searched.at - RANGES.find((r) => r.value === searched.range)!.ms).toISOString();

  const input = {
    from,
    kind: filters.kind || undefined,
    model: filters.model || undefined,
    tool: filters.tool || undefined,
    teamId: filters.team || undefined,
    workflowId: filters.workflow || undefined,
    status: filters.status || undefined,
    minDurationMs: numberFrom(filters.minMs),
    maxDurationMs: numberFrom(filters.maxMs),
    minCostUsd: numberFrom(filters.minCost),
    q: filters.q.trim() || undefined,
    limit: PAGE_SIZE,
  };
  const search = trpc.traces.search.useInfiniteQuery(input, {
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    placeholderData: keepPreviousData,
    retry: (count, err) => count < 2 && (err as { data?: { code?: string } }).data?.code !== "BAD_REQUEST",
  });
  const facets = trpc.traces.facets.useQuery({ from }, { staleTime: 60_000, placeholderData: keepPreviousData });
  const teamNames = useMemo(() => new Map((facets.data?.teams ?? []).map((t) => [t.id, t.name])), [facets.data]);

  const spans = search.data?.pages.flatMap((p) => p.spans) ?? [];
  const now = useNow(
    1000,
    spans.some((s) => s.endTime === null),
  );
  const rangeLabel = RANGES.find((r) => r.value === filters.range)!.label;

  let body;
  if (search.isLoading) {
    body = <SkeletonRows rows={8} columns={7} />;
  } else if (search.isError && spans.length === 0) {
    body = <ErrorState title="Could not search spans" message={errorMessage(search.error)} onRetry={() => search.refetch()} />;
  } else if (spans.length === 0 && active) {
    body = (
      <EmptyState
        icon="⌕"
        title="No spans match these filters"
        action={
          <button type="button" className="btn" onClick={clear}>
            Clear filters
          </button>
        }
      >
        Nothing in the last {rangeLabel} matches. Try a longer time range or fewer filters.
      </EmptyState>
    );
  } else if (spans.length === 0) {
    body = (
      <EmptyState icon="≡" title={`No spans in the last ${rangeLabel}`}>
        Every run records spans as it works: the run, each agent, each model call, tool call and human request. Start a run, or pick a
        longer time range.
      </EmptyState>
    );
  } else {
    body = (
      <>
        <SpansTable spans={spans} now={now} teamNames={teamNames} />
        <PagedFooter
          query={search}
          failed="Could not load more spans"
          testId="load-more"
          end={
            <span className="small muted" data-testid="spans-count">
              {pluralize(spans.length, "span")} in the last {rangeLabel}
            </span>
          }
        />
      </>
    );
  }

  return (
    <>
      <div className="row" style={{ marginBottom: 10 }}>
        <p className="small muted" style={{ margin: 0 }}>
          Spans across runs, newest first: model calls, tool calls, human requests. Open one to see it in its run&apos;s trace.
          {me && !roleAtLeast(me.role, "admin") && (
            <span data-testid="traces-scope"> Showing the spans of your teams&apos; runs and of runs you launched.</span>
          )}
        </p>
        <span className="spacer" />
        <button
          type="button"
          className="btn"
          onClick={() => setSearched({ range: filters.range, at: Date.now() })}
          disabled={search.isFetching}
          data-testid="traces-refresh"
        >
          {search.isFetching && !search.isLoading ? <span className="spinner" aria-hidden="true" /> : null}
          Refresh
        </button>
      </div>
      <div className="card">
        <TracesFilters filters={filters} facets={facets.data} onChange={setFilters} active={active} onClear={clear} />
        <div aria-busy={search.isFetching}>{body}</div>
      </div>
    </>
  );
}
