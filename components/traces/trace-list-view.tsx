"use client";
// Traces › Traces (docs/traces-and-costs.md#traces-the-list-of-runs): one row
// per run, newest first or by duration, cost or tokens, filtered by agent,
// status, launcher, duration, time and name; each opens its run's Trace tab. A
// filter that cannot be read (from the address, or refused by the server) is
// named under its field and the rows stay.
import { keepPreviousData } from "@tanstack/react-query";
import { useMemo, useRef, useState } from "react";
import { EmptyState, ErrorBlock, ErrorState, PagedFooter, SkeletonRows } from "@/components/ui";
import { roleAtLeast, useMe } from "@/lib/access";
import { errorMessage } from "@/lib/errors";
import { fieldErrors, issuesOf } from "@/lib/field-errors";
import { pluralize } from "@/lib/format";
import { traceListQuery, type TraceListField } from "@/lib/trace-list-filters";
import { useNow } from "@/lib/use-now";
import { trpc } from "@/lib/trpc";
import { TraceListFiltersBar } from "./trace-list-filters";
import { TraceListTable, type TraceRowView } from "./trace-list-table";
import { useTraceListFilters } from "./use-trace-list-filters";

const PAGE_SIZE = 50;
const FIELDS = ["status", "minDuration", "from", "to"] as const satisfies readonly TraceListField[];

export function TraceListView() {
  const { filters, setFilters, active, clear } = useTraceListFilters();
  const { me } = useMe();
  // The range is anchored when it is picked (or refreshed), so "Load more" and refetches ask for the same window.
  const [anchor, setAnchor] = useState(() => ({ range: filters.range, at: Date.now() }));
  if (anchor.range !== filters.range) setAnchor({ range: filters.range, at: Date.now() });
  const { query, errors: localErrors } = useMemo(() => traceListQuery(filters, anchor.at), [filters, anchor.at]);

  const list = trpc.traces.list.useInfiniteQuery(
    { ...query, limit: PAGE_SIZE },
    {
      getNextPageParam: (last) => last.nextCursor ?? undefined,
      placeholderData: keepPreviousData,
      retry: (count, err) => count < 2 && (err as { data?: { code?: string } }).data?.code !== "BAD_REQUEST",
    },
  );
  const agents = trpc.agents.list.useQuery({}, { staleTime: 60_000 });

  // The last rows that loaded stay on screen when a filter is refused.
  const lastGood = useRef<TraceRowView[]>([]);
  const loaded = list.data?.pages.flatMap((p) => p.traces);
  if (loaded) lastGood.current = loaded;
  const traces = loaded ?? (list.isError ? lastGood.current : []);

  const server =
    list.isError && list.error.data?.code === "BAD_REQUEST"
      ? fieldErrors(issuesOf(list.error), list.error.message, FIELDS, { minDurationMs: "minDuration" })
      : null;
  const errors = { ...server?.fields, ...localErrors };
  const now = useNow(
    1000,
    traces.some((t) => t.status === "running"),
  );

  const agentOptions = (agents.data ?? []).map((a) => ({ value: a.name, label: a.name }));
  // Anyone seen in the rows, and the person themself.
  const people = new Map<string, string>();
  if (me) people.set(me.userId, `Me (${me.name || me.email})`);
  for (const t of traces) if (!people.has(t.user.id)) people.set(t.user.id, t.user.name || t.user.email);
  const userOptions = [...people].map(([value, label]) => ({ value, label }));

  let body;
  if (list.isLoading) {
    body = <SkeletonRows rows={8} columns={9} />;
  } else if (list.isError && traces.length === 0 && !server) {
    body = <ErrorState title="Could not list traces" message={errorMessage(list.error)} onRetry={() => list.refetch()} />;
  } else if (traces.length === 0 && (active || filters.range)) {
    body = (
      <EmptyState
        icon="⌕"
        title="No traces match these filters"
        action={
          active ? (
            <button type="button" className="btn" onClick={clear}>
              Clear filters
            </button>
          ) : undefined
        }
      >
        Try a longer time range or fewer filters.
      </EmptyState>
    );
  } else if (traces.length === 0) {
    body = (
      <EmptyState icon="≡" title="No runs in the last 7 days">
        Every run leaves a trace: its model calls, tool calls and human requests, with their time, tokens and cost. Start a run, or pick a
        longer time range.
      </EmptyState>
    );
  } else {
    body = (
      <>
        <TraceListTable
          traces={traces}
          now={now}
          sort={query.sort}
          order={query.order}
          onSort={(sort, order) => setFilters({ sort: sort === "time" ? "" : sort, order: order === "desc" ? "" : order })}
        />
        {server?.other && <ErrorBlock message={server.other} style={{ margin: 12 }} testId="trace-list-filter-error" />}
        {/* A filter the server refused is said under its field; Load more would only ask again. */}
        <PagedFooter
          query={list}
          failed={server ? null : "Could not load more traces"}
          testId="trace-list-load-more"
          more={list.hasNextPage && !list.isError}
          end={
            <span className="small muted" data-testid="trace-list-count">
              {pluralize(traces.length, "trace")}
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
          One row per run. Open one to see its spans in the run&apos;s Trace tab.
          {me && !roleAtLeast(me.role, "admin") && (
            <span data-testid="trace-list-scope"> Showing your teams&apos; runs and runs you launched.</span>
          )}
        </p>
        <span className="spacer" />
        <button
          type="button"
          className="btn"
          onClick={() => setAnchor({ range: filters.range, at: Date.now() })}
          disabled={list.isFetching}
          data-testid="trace-list-refresh"
        >
          {list.isFetching && !list.isLoading ? <span className="spinner" aria-hidden="true" /> : null}
          Refresh
        </button>
      </div>
      <div className="card">
        <TraceListFiltersBar
          filters={filters}
          errors={errors}
          agents={agentOptions}
          users={userOptions}
          onChange={setFilters}
          active={active}
          onClear={clear}
        />
        <div aria-busy={list.isFetching}>{body}</div>
      </div>
    </>
  );
}
