"use client";
// The trace as a tree with a waterfall beside it. Only the rows in view are
// rendered (fixed height, @tanstack/react-virtual); the flattened rows and the
// time axis come in precomputed (lib/trace-tree.ts), so a row only looks up.
// Near the end of the loaded rows it asks for more (onNearEnd).
import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useRef, type KeyboardEvent, type ReactNode } from "react";
import { ChevronIcon } from "@/components/files/file-icons";
import { formatDuration, formatTokens, formatCost } from "@/lib/format";
import { barOf, durationOf, type FlatTrace, type TimeAxis, type TraceTree } from "@/lib/trace-tree";
import { KindChip, spanLabel, spanState, type SpanView } from "./span-kind";

export const ROW_HEIGHT = 28;
const HEADER_HEIGHT = 30;
const INDENT = 14;
/** Deeper spans stop moving right, so their names stay readable. */
const MAX_INDENT_LEVELS = 24;
const TICKS = [0, 0.25, 0.5, 0.75, 1];
/** More spans are read when the last row in view is this close to the last loaded row. */
const NEAR_END_ROWS = 60;

export function spanRowId(spanId: string) {
  return `span-row-${spanId}`;
}

export interface SpanTreeProps {
  tree: TraceTree<SpanView>;
  flat: FlatTrace;
  axis: TimeAxis;
  /** Where open spans end: now for a live run. */
  openEnd: number;
  selectedId: string | null;
  openId: string | null;
  onSelect(spanId: string): void;
  onOpen(spanId: string): void;
  onToggle(spanId: string, expand: boolean): void;
  /** There are spans not loaded yet: called when the rows in view near the end of the loaded ones. */
  onNearEnd?: () => void;
  /** There are spans not loaded yet: End was pressed (the last row is selected once they are). */
  onEnd?: () => void;
  /** Shown below the last row. */
  footer?: ReactNode;
}

export function SpanTree({
  tree,
  flat,
  axis,
  openEnd,
  selectedId,
  openId,
  onSelect,
  onOpen,
  onToggle,
  onNearEnd,
  onEnd,
  footer,
}: SpanTreeProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const { rows, rowOf } = flat;
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    scrollMargin: HEADER_HEIGHT,
    scrollPaddingStart: HEADER_HEIGHT,
    // React 19 warns about flushSync during render; plain updates are smooth enough here.
    useFlushSync: false,
  });

  // The selected row is kept in view when the selection moves, or when it first
  // arrives (a linked span in a later page), not whenever spans arrive.
  const rowOfRef = useRef(rowOf);
  rowOfRef.current = rowOf;
  const selectedShown = selectedId !== null && rowOf.has(selectedId);
  useEffect(() => {
    const at = selectedId ? rowOfRef.current.get(selectedId) : undefined;
    if (at !== undefined) virtualizer.scrollToIndex(at, { align: "auto" });
  }, [selectedId, selectedShown, virtualizer]);

  // Asked once per length of the list: a page that adds no visible rows (under a collapsed span) asks for no other.
  const lastInView = virtualizer.getVirtualItems().at(-1)?.index ?? -1;
  const askedAt = useRef(-1);
  useEffect(() => {
    if (!onNearEnd || lastInView < rows.length - NEAR_END_ROWS || askedAt.current === rows.length) return;
    askedAt.current = rows.length;
    onNearEnd();
  }, [onNearEnd, lastInView, rows.length]);

  const selectedRow = selectedId ? rowOf.get(selectedId) : undefined;
  const spanAt = (at: number) => tree.spans[rows[Math.max(0, Math.min(rows.length - 1, at))].index].spanId;

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (rows.length === 0 || e.altKey || e.ctrlKey || e.metaKey) return;
    const at = selectedRow ?? -1;
    const row = at >= 0 ? rows[at] : null;
    const id = row ? tree.spans[row.index].spanId : null;
    const pageRows = Math.max(1, Math.floor((e.currentTarget.clientHeight - HEADER_HEIGHT) / ROW_HEIGHT) - 1);
    let handled = true;
    switch (e.key) {
      case "ArrowDown":
        onSelect(spanAt(at + 1));
        break;
      case "ArrowUp":
        onSelect(spanAt(at < 0 ? 0 : at - 1));
        break;
      case "PageDown":
        onSelect(spanAt(at + pageRows));
        break;
      case "PageUp":
        onSelect(spanAt(at - pageRows));
        break;
      case "Home":
        onSelect(spanAt(0));
        break;
      case "End":
        onSelect(spanAt(rows.length - 1));
        onEnd?.();
        break;
      case "ArrowRight":
        if (!row || !id) onSelect(spanAt(0));
        else if (row.hasChildren && !row.expanded) onToggle(id, true);
        else if (row.expanded) onSelect(spanAt(at + 1));
        break;
      case "ArrowLeft": {
        if (!row || !id) break;
        const parent = tree.parent[row.index];
        if (row.expanded) onToggle(id, false);
        else if (parent !== -1) onSelect(tree.spans[parent].spanId);
        break;
      }
      case "Enter":
        if (id) onOpen(id);
        break;
      default:
        handled = false;
    }
    if (handled) {
      e.preventDefault();
      e.stopPropagation();
    }
  };

  const width = axis.end - axis.start;
  return (
    <div
      ref={scroller}
      className="span-tree"
      role="tree"
      aria-label="Spans"
      aria-activedescendant={selectedRow !== undefined ? spanRowId(selectedId!) : undefined}
      tabIndex={0}
      onKeyDown={onKeyDown}
      data-testid="span-tree"
      data-rows={rows.length}
    >
      <div className="span-grid span-head" style={{ height: HEADER_HEIGHT }} aria-hidden="true">
        <div className="span-name-cell">Span</div>
        <div className="num">Duration</div>
        <div className="num">Tokens</div>
        <div className="num">Cost</div>
        <div className="span-ruler">
          {TICKS.map((t) => (
            <span key={t} style={t === 1 ? { right: 0 } : { left: `${t * 100}%` }}>
              {formatDuration(t * width)}
            </span>
          ))}
        </div>
      </div>
      <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index];
          const span = tree.spans[row.index];
          const state = spanState(span);
          const bar = barOf(tree, row.index, axis, openEnd);
          const tokens = span.inputTokens + span.outputTokens;
          return (
            <div
              key={span.spanId}
              id={spanRowId(span.spanId)}
              role="treeitem"
              aria-level={row.depth + 1}
              aria-expanded={row.hasChildren ? row.expanded : undefined}
              aria-selected={span.spanId === selectedId}
              aria-label={span.name}
              className={`span-grid span-row${span.spanId === selectedId ? " selected" : ""}${span.spanId === openId ? " opened" : ""}`}
              style={{ height: ROW_HEIGHT, transform: `translateY(${item.start - HEADER_HEIGHT}px)` }}
              data-testid="span-row"
              data-span-id={span.spanId}
              data-kind={span.kind}
              data-state={state}
              onClick={() => {
                onSelect(span.spanId);
                onOpen(span.spanId);
              }}
            >
              <div className="span-name-cell" style={{ paddingLeft: 4 + Math.min(row.depth, MAX_INDENT_LEVELS) * INDENT }}>
                {row.hasChildren ? (
                  <button
                    type="button"
                    className="span-toggle"
                    tabIndex={-1}
                    aria-label={row.expanded ? `Collapse ${span.name}` : `Expand ${span.name}`}
                    data-testid="span-toggle"
                    onClick={(e) => {
                      e.stopPropagation();
                      onSelect(span.spanId);
                      onToggle(span.spanId, !row.expanded);
                    }}
                  >
                    <ChevronIcon open={row.expanded} />
                  </button>
                ) : (
                  <span className="span-toggle" aria-hidden="true" />
                )}
                <KindChip kind={span.kind} />
                <span className={`span-dot span-${state}`} title={state === "open" ? "not finished" : state} aria-hidden="true" />
                <span className="span-label" title={span.name}>
                  {spanLabel(span)}
                </span>
              </div>
              <div className="num">{formatDuration(durationOf(tree, row.index, openEnd))}</div>
              <div
                className="num"
                title={tokens ? `${span.inputTokens} in (${span.cachedInputTokens} cached) / ${span.outputTokens} out` : undefined}
              >
                {tokens ? formatTokens(tokens) : ""}
              </div>
              <div className="num">
                {span.costUsd ? formatCost(span.costUsd) : span.kind === "chat" || span.kind === "run" ? formatCost(0) : ""}
              </div>
              <div className="span-track">
                <div
                  className={`span-bar kind-${span.kind} span-${state}`}
                  style={{ left: `${bar.left * 100}%`, width: `${bar.width * 100}%` }}
                  data-testid="span-bar"
                />
              </div>
            </div>
          );
        })}
      </div>
      {footer}
    </div>
  );
}
