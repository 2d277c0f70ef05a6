"use client";
// The audit log (admins): who did what, when, for whom and from where;
// filtered, paged with "Load more", exported as CSV or JSON.
import { keepPreviousData } from "@tanstack/react-query";
import { useState } from "react";
import { EmptyState, ErrorState, FieldError, PagedFooter, SkeletonRows } from "@/components/ui";
import { RequireRole } from "@/components/require-role";
import { errorMessage } from "@/lib/errors";
import { useNow } from "@/lib/use-now";
import { trpc } from "@/lib/trpc";
import { AuditFiltersBar } from "./audit-filters";
import { AuditTable } from "./audit-table";
import { toApiFilter, useAuditFilters, type AuditFilters } from "./use-audit-filters";

const PAGE_SIZE = 50;

export function AuditPage() {
  return (
    <RequireRole role="admin" title="The audit log needs the admin role" why="Only admins can read the audit log.">
      {() => <AuditLog />}
    </RequireRole>
  );
}

function download(filename: string, mimeType: string, content: string) {
  const url = URL.createObjectURL(new Blob([content], { type: `${mimeType};charset=utf-8` }));
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function ExportButtons({ filters }: { filters: AuditFilters }) {
  const utils = trpc.useUtils();
  const [busy, setBusy] = useState<"csv" | "json" | null>(null);
  const [error, setError] = useState<string | null>(null);
  async function run(format: "csv" | "json") {
    setBusy(format);
    setError(null);
    try {
      const file = await utils.audit.export.fetch({ filter: toApiFilter(filters), format }, { staleTime: 0 });
      download(file.filename, file.mimeType, file.content);
    } catch (err) {
      setError(`Export failed: ${errorMessage(err)}`);
    } finally {
      setBusy(null);
    }
  }
  return (
    <div className="row">
      <FieldError message={error} testId="audit-export-error" live />
      {(["csv", "json"] as const).map((format) => (
        <button
          key={format}
          type="button"
          className="btn"
          onClick={() => run(format)}
          disabled={busy !== null}
          title={`Download every entry matching the filters as ${format.toUpperCase()}`}
          data-testid={`audit-export-${format}`}
        >
          {busy === format && <span className="spinner" aria-hidden="true" />}
          Export {format.toUpperCase()}
        </button>
      ))}
    </div>
  );
}

function AuditLog() {
  const { filters, setFilters, active, clear } = useAuditFilters();
  const list = trpc.audit.list.useInfiniteQuery(
    { ...toApiFilter(filters), limit: PAGE_SIZE },
    { getNextPageParam: (last) => last.nextCursor ?? undefined, placeholderData: keepPreviousData, refetchOnWindowFocus: false },
  );
  const now = useNow(30_000, true);
  const entries = list.data?.pages.flatMap((p) => p.entries) ?? [];
  const people = Object.assign({}, ...(list.data?.pages.map((p) => p.people ?? {}) ?? []));
  const teams = Object.assign({}, ...(list.data?.pages.map((p) => p.teams ?? {}) ?? []));

  let body;
  if (list.isLoading) {
    body = <SkeletonRows rows={8} columns={8} />;
  } else if (list.isError && entries.length === 0) {
    body = <ErrorState title="Could not load the audit log" message={errorMessage(list.error)} onRetry={() => list.refetch()} />;
  } else if (entries.length === 0 && active) {
    body = (
      <EmptyState
        icon="⌕"
        title="No entries match these filters"
        action={
          <button type="button" className="btn" onClick={clear}>
            Clear filters
          </button>
        }
      >
        Try another kind, person, team, channel, run or date range{filters.routine ? "" : ", or show routine allows"}.
      </EmptyState>
    );
  } else if (entries.length === 0) {
    body = (
      <EmptyState icon="☰" title="The audit log is empty">
        Policy changes, policy decisions and answers to human requests are recorded here as they happen.
        {!filters.routine && " Routine allows (calls the policy let through) are hidden: tick Show routine allows to see them."}
      </EmptyState>
    );
  } else {
    body = (
      <>
        <AuditTable entries={entries} people={people} teams={teams} now={now} />
        <PagedFooter query={list} failed="Could not load more" testId="audit-load-more" />
      </>
    );
  }

  return (
    <div className="page page-wide" data-testid="audit-page">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Audit log</h1>
          <p>Every policy change and decision and every answer to a human request: who, when, on whose behalf, from which channel.</p>
        </div>
        <span className="spacer" />
        <button
          type="button"
          className="btn btn-ghost"
          onClick={() => list.refetch()}
          disabled={list.isFetching}
          data-testid="audit-refresh"
        >
          {list.isFetching && !list.isFetchingNextPage && <span className="spinner" aria-hidden="true" />}
          Refresh
        </button>
        <ExportButtons filters={filters} />
      </div>
      <div className="card">
        <AuditFiltersBar filters={filters} onChange={setFilters} active={active} onClear={clear} />
        <div aria-busy={list.isFetching}>{body}</div>
      </div>
    </div>
  );
}
