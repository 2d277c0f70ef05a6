"use client";
import { keepPreviousData } from "@tanstack/react-query";
import { useCallback, useMemo, useRef, useState } from "react";
import { NewRunButton } from "@/components/new-run";
import { EmptyState, ErrorState, SkeletonRows, PagedFooter } from "@/components/ui";
import { useMe } from "@/lib/access";
import { errorMessage } from "@/lib/errors";
import { useNow } from "@/lib/use-now";
import { durationTicks } from "@/lib/run-duration";
import { rangeErrors, rangeQuery, tagFilter } from "@/lib/run-list";
import { trpc } from "@/lib/trpc";
import { BulkCancel } from "./bulk-cancel";
import { RunsFilters } from "./runs-filters";
import { CANCELLABLE, RunsTable } from "./runs-table";
import { ColumnChooser, useRunColumns } from "./run-columns";
import { useRunFilters } from "./use-run-filters";
import { useWatchRuns } from "./use-watch-runs";

const PAGE_SIZE = 25;

export function RunsPage() {
  const { filters, setFilters, active, clear } = useRunFilters();
  const { canOperate } = useMe();
  const utils = trpc.useUtils();
  const errors = useMemo(() => rangeErrors(filters.from, filters.to), [filters.from, filters.to]);
  const tag = tagFilter(filters.tag);
  const input = {
    status: filters.status.length ? filters.status : undefined,
    agent: filters.agent || undefined,
    q: filters.q.trim() || undefined,
    mine: filters.mine || undefined,
    tag: tag.tag || undefined,
    ...rangeQuery(filters.from, filters.to),
    sort: filters.sort,
    dir: filters.dir,
    limit: PAGE_SIZE,
  };
  // A bad date or tag is named under its field; the list keeps the last results it could ask for.
  const lastGood = useRef(input);
  if (!errors.from && !errors.to && !tag.error) lastGood.current = input;
  const list = trpc.runs.list.useInfiniteQuery(lastGood.current, {
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    placeholderData: keepPreviousData,
  });
  const refresh = useCallback(() => void utils.runs.list.invalidate(), [utils]);
  useWatchRuns(refresh);

  const runs = list.data?.pages.flatMap((p) => p.runs) ?? [];
  const anyTicking = runs.some(durationTicks);
  const now = useNow(1000, anyTicking);

  // Picked runs for "Cancel N runs": only those still active and shown count.
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const onSelect = useCallback((ids: string[], on: boolean) => {
    setPicked((prev) => {
      const next = new Set(prev);
      for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  }, []);
  const [columns, toggleColumn] = useRunColumns();
  const pickedIds = runs.filter((r) => picked.has(r.id) && CANCELLABLE.includes(r.status)).map((r) => r.id);

  let body;
  if (list.isLoading) {
    body = <SkeletonRows rows={6} columns={6 + columns.size} />;
  } else if (list.isError && runs.length === 0) {
    body = <ErrorState title="Could not load runs" message={errorMessage(list.error)} onRetry={() => list.refetch()} />;
  } else if (runs.length === 0 && active) {
    body = (
      <EmptyState
        icon="⌕"
        title="No runs match these filters"
        action={
          <button type="button" className="btn" onClick={clear}>
            Clear filters
          </button>
        }
      >
        Try another status, agent, tag, date range or search text.
      </EmptyState>
    );
  } else if (runs.length === 0) {
    body = (
      <EmptyState
        icon="▶"
        title="No runs yet"
        action={canOperate ? <NewRunButton label="Start your first run" testId="empty-new-run" /> : undefined}
      >
        {canOperate
          ? "A run gives an agent a goal and lets it work on its own while you watch. Try the demo-coder agent: it writes a small program and runs its tests."
          : "Runs that operators start show up here. Starting runs needs the operator role."}
      </EmptyState>
    );
  } else {
    body = (
      <>
        <RunsTable
          runs={runs}
          now={now}
          sort={{ sort: filters.sort, dir: filters.dir }}
          onSort={setFilters}
          selected={canOperate ? picked : undefined}
          onSelect={onSelect}
          columns={columns}
        />
        <PagedFooter query={list} failed="Could not refresh the list" testId="load-more" />
      </>
    );
  }

  return (
    <div className="page page-wide">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Runs</h1>
          <p>Agents at work on goals: live status, steps and tokens.</p>
        </div>
        <span className="spacer" />
        <NewRunButton />
      </div>
      <div className="card">
        <RunsFilters
          filters={filters}
          onChange={setFilters}
          active={active}
          onClear={clear}
          rangeErrors={errors}
          tagError={tag.error}
          end={<ColumnChooser shown={columns} onToggle={toggleColumn} />}
        />
        {canOperate && (
          <BulkCancel
            ids={pickedIds}
            onDone={() => {
              setPicked(new Set());
              refresh();
            }}
            onClear={() => setPicked(new Set())}
          />
        )}
        <div aria-busy={list.isFetching}>{body}</div>
      </div>
    </div>
  );
}
