"use client";
// The run page's Trace tab (docs/traces-and-costs.md#try-it-a-runs-trace): the
// run's spans as a tree with a waterfall, totals, and the opened span's detail
// (?tab=trace&span=<id>). The first page of spans is drawn at once and the rest
// read as the person scrolls (use-run-trace). Spans are written in batches a
// moment after the run's events, so a live run asks what changed every 2 s and
// after its events (run-workspace), and changed spans replace their rows.
import { useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { EmptyState, ErrorState, Skeleton, SkeletonRows } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { formatNumber, formatTokens, formatCost, pluralize } from "@/lib/format";
import { ancestorIds, buildTraceTree, collapsibleSpanIds, flattenTrace, traceAxis, traceTotals } from "@/lib/trace-tree";
import type { Run, RunState } from "@/lib/trpc";
import { useNow } from "@/lib/use-now";
import { SpanDetail } from "./span-detail";
import type { SpanView } from "./span-kind";
import { SpanTree } from "./span-tree";
import { useRunTrace } from "./use-run-trace";

const TERMINAL: RunState[] = ["succeeded", "failed", "canceled"];
/** After a run ends, its last spans are still read until they arrive (or this long). */
const SETTLE_MS = 60_000;

function showSpan(spanId: string | null) {
  const url = new URL(window.location.href);
  if (spanId) url.searchParams.set("span", spanId);
  else url.searchParams.delete("span");
  window.history.replaceState(null, "", url);
}

export function TraceTab({ run, status, active }: { run: Run; status: RunState; active: boolean }) {
  const runId = run.id;
  const terminal = TERMINAL.includes(status);
  const endedAt = run.endedAt ? new Date(run.endedAt).getTime() : null;
  const [settled, setSettled] = useState(false);
  // Hidden behind another tab, the trace is not read; it catches up when shown.
  const trace = useRunTrace(runId, { enabled: active, live: !terminal || !settled });
  const spans = trace.window.spans;
  const runSpan = spans.find((s) => s.kind === "run" && s.parentSpanId === null);
  // A finished run's last spans are still asked for until its run span has ended (or SETTLE_MS passed).
  const runEnded = runSpan?.endTime != null;
  useEffect(() => {
    const left = endedAt === null ? SETTLE_MS : SETTLE_MS - (Date.now() - endedAt);
    if (!terminal || runEnded || left <= 0) {
      setSettled(terminal);
      return;
    }
    const timer = setTimeout(() => setSettled(true), left);
    return () => clearTimeout(timer);
  }, [terminal, runEnded, endedAt]);

  const tree = useMemo(() => buildTraceTree<SpanView>(spans), [spans]);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(() => new Set());
  const flat = useMemo(() => flattenTrace(tree, collapsed), [tree, collapsed]);
  const totals = useMemo(() => traceTotals(spans), [spans]);
  const hasOpen = useMemo(() => tree.end.some(Number.isNaN), [tree]);

  // Open spans run to now while the run is live; in a finished run, to its end.
  const now = useNow(1000, active && !terminal && hasOpen);
  const lastEnd = useMemo(() => (tree.spans.length ? traceAxis(tree, -Infinity).end : 0), [tree]);
  const openEnd = !terminal ? Math.max(now, lastEnd) : (runSpan?.endTime?.getTime() ?? endedAt ?? lastEnd);
  const axis = useMemo(() => traceAxis(tree, openEnd), [tree, openEnd]);

  const params = useSearchParams();
  const openId = params.get("span");
  const [selectedId, setSelectedId] = useState<string | null>(openId);

  // A span opened from the URL (or a link) is shown: its ancestors expand, it is selected.
  const revealed = useRef<string | null>(null);
  useEffect(() => {
    if (!openId || revealed.current === openId || !tree.indexOf.has(openId)) return;
    revealed.current = openId;
    const above = ancestorIds(tree, openId);
    setCollapsed((prev) => (above.some((a) => prev.has(a)) ? new Set([...prev].filter((id) => !above.includes(id))) : prev));
    setSelectedId(openId);
  }, [openId, tree]);
  const { hasMore, loadAll, loadMore } = trace;
  const ready = trace.status === "ready";
  useEffect(() => {
    if (ready && openId && revealed.current !== openId && !tree.indexOf.has(openId) && hasMore) loadAll();
  }, [ready, openId, tree, hasMore, loadAll]);

  // End goes to the trace's last span: the pages not read yet are read first.
  const toEnd = useRef(false);
  const onEnd = useCallback(() => {
    toEnd.current = true;
    loadAll();
  }, [loadAll]);
  useEffect(() => {
    if (!toEnd.current || hasMore || flat.rows.length === 0) return;
    toEnd.current = false;
    setSelectedId(tree.spans[flat.rows[flat.rows.length - 1].index].spanId);
  }, [hasMore, flat, tree]);

  const onToggle = useCallback((spanId: string, expand: boolean) => {
    setCollapsed((prev) => {
      if (expand !== prev.has(spanId)) return prev;
      const next = new Set(prev);
      if (expand) next.delete(spanId);
      else next.add(spanId);
      return next;
    });
  }, []);
  const onOpen = useCallback((spanId: string) => {
    revealed.current = spanId;
    showSpan(spanId);
  }, []);
  const collapseAll = () => {
    setCollapsed(collapsibleSpanIds(tree));
    // The selection moves up to what stays visible.
    setSelectedId((id) => (id ? (ancestorIds(tree, id).at(-1) ?? id) : id));
  };

  if (trace.status === "loading") {
    return (
      <div className="trace-tab" aria-busy="true" data-testid="trace-loading">
        <div className="trace-toolbar">
          <Skeleton width={320} />
        </div>
        <div className="card" style={{ flex: 1 }}>
          <SkeletonRows rows={8} columns={5} />
        </div>
      </div>
    );
  }
  if (trace.status === "error") {
    return (
      <div className="card trace-message">
        <ErrorState title="Could not load the trace" message={errorMessage(trace.error)} onRetry={trace.reload} />
      </div>
    );
  }
  if (spans.length === 0) {
    return (
      <div className="card trace-message" data-testid="trace-empty">
        <EmptyState icon="≡" title="No spans yet">
          {terminal
            ? "This run recorded no spans."
            : "The trace appears as the run works: model calls, tool calls and human requests, each as a span."}
        </EmptyState>
      </div>
    );
  }

  const total = Math.max(trace.total, spans.length);
  const openSpan = openId ? tree.spans[tree.indexOf.get(openId) ?? -1] : undefined;
  const footer = hasMore ? (
    <div
      data-testid="trace-more"
      style={{ display: "flex", alignItems: "center", gap: 8, padding: "6px 12px", borderTop: "1px solid var(--border)" }}
    >
      {trace.moreError ? (
        <span className="small" role="alert">
          Could not read more spans: {errorMessage(trace.moreError)}
        </span>
      ) : (
        <span className="small muted" data-testid="trace-loaded">
          {formatNumber(spans.length)} of {pluralize(total, "span")} loaded
        </span>
      )}
      <button type="button" className="btn btn-ghost btn-sm" onClick={loadMore} disabled={trace.busy} data-testid="trace-load-more">
        {trace.moreError ? "Try again" : "Load more"}
      </button>
    </div>
  ) : null;
  return (
    <div className="trace-tab" data-testid="trace-tab">
      <div className="trace-toolbar">
        <span className="trace-summary" data-testid="trace-summary">
          <strong data-testid="trace-span-count">{pluralize(total, "span")}</strong>
          {hasMore && (
            <span className="muted" data-testid="trace-loaded-count">
              ({formatNumber(spans.length)} loaded)
            </span>
          )}
          <span aria-hidden="true">·</span>
          <span title="Cost of the run's model calls" data-testid="trace-cost">
            {formatCost(totals.costUsd)}
          </span>
          <span aria-hidden="true">·</span>
          <span data-testid="trace-tokens" title="Input tokens (of which cached) / output tokens">
            {formatTokens(totals.inputTokens)} in ({formatTokens(totals.cachedInputTokens)} cached) / {formatTokens(totals.outputTokens)}{" "}
            out
          </span>
          {trace.traceId && (
            <>
              <span aria-hidden="true">·</span>
              <span className="trace-id">
                trace <code data-testid="trace-id">{trace.traceId}</code>
              </span>
            </>
          )}
        </span>
        <span className="spacer" />
        {trace.busy && <span className="spinner" aria-label="Refreshing" />}
        <button type="button" className="btn btn-ghost btn-sm" onClick={() => setCollapsed(new Set())} data-testid="trace-expand-all">
          Expand all
        </button>
        <button type="button" className="btn btn-ghost btn-sm" onClick={collapseAll} data-testid="trace-collapse-all">
          Collapse all
        </button>
      </div>
      <div className="trace-body">
        <div className="card trace-tree-card">
          <SpanTree
            tree={tree}
            flat={flat}
            axis={axis}
            openEnd={openEnd}
            selectedId={selectedId}
            openId={openId}
            onSelect={setSelectedId}
            onOpen={onOpen}
            onToggle={onToggle}
            onNearEnd={hasMore ? loadMore : undefined}
            onEnd={hasMore ? onEnd : undefined}
            footer={footer}
          />
        </div>
        {openSpan ? (
          <SpanDetail runId={runId} span={openSpan} openEnd={openEnd} onClose={() => showSpan(null)} />
        ) : (
          <aside className="span-detail card" aria-label="Span detail">
            <EmptyState icon="↖" title="Pick a span">
              Click a span, or move with ↑ ↓ and press Enter, to see its attributes, inputs and outputs. ← → collapse and expand.
            </EmptyState>
          </aside>
        )}
      </div>
    </div>
  );
}
