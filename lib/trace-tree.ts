// The Trace tab's tree and waterfall
// (docs/traces-and-costs.md#try-it-a-runs-trace) as plain functions. A trace is
// indexed once per fetch and flattened once per expand state, so a rendered row
// only looks numbers up: 10,000+ spans stay smooth.

export interface TraceSpanLike {
  spanId: string;
  parentSpanId: string | null;
  startTime: Date | string | number;
  endTime: Date | string | number | null;
}

export interface TraceTree<S extends TraceSpanLike = TraceSpanLike> {
  spans: readonly S[];
  /** Start of each span (ms since the epoch), by index into `spans`. */
  start: Float64Array;
  /** End of each span, NaN while it is open. */
  end: Float64Array;
  /** Index of each span's parent, -1 for roots. */
  parent: Int32Array;
  /** Children of each span, in start order. */
  children: number[][];
  /** Spans without a parent in the trace (its run span, or orphans of a truncated trace), in start order. */
  roots: number[];
  indexOf: Map<string, number>;
}

export interface TraceRow {
  /** Index into the tree's spans. */
  index: number;
  depth: number;
  hasChildren: boolean;
  expanded: boolean;
}

export interface FlatTrace {
  rows: TraceRow[];
  /** Row number of each visible span. */
  rowOf: Map<string, number>;
}

const ms = (t: Date | string | number) => (t instanceof Date ? t.getTime() : new Date(t).getTime());

/**
 * Indexes a trace. Spans whose parent is not in the trace become roots; a
 * parent cycle (bad data) is cut where it is first met, so every span shows once.
 */
export function buildTraceTree<S extends TraceSpanLike>(spans: readonly S[]): TraceTree<S> {
  const n = spans.length;
  const start = new Float64Array(n);
  const end = new Float64Array(n);
  const parent = new Int32Array(n).fill(-1);
  const children: number[][] = Array.from({ length: n }, () => []);
  const indexOf = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const s = spans[i];
    start[i] = ms(s.startTime);
    end[i] = s.endTime === null ? NaN : ms(s.endTime);
    if (!indexOf.has(s.spanId)) indexOf.set(s.spanId, i);
  }
  const roots: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = spans[i].parentSpanId === null ? undefined : indexOf.get(spans[i].parentSpanId!);
    if (p === undefined || p === i || indexOf.get(spans[i].spanId) !== i) roots.push(i);
    else {
      parent[i] = p;
      children[p].push(i);
    }
  }
  // Spans on a parent cycle are reachable from no root: cut each cycle at its first span.
  const seen = new Uint8Array(n);
  const mark = (root: number) => {
    const stack = [root];
    while (stack.length) {
      const i = stack.pop()!;
      seen[i] = 1;
      for (const c of children[i]) if (!seen[c]) stack.push(c);
    }
  };
  for (const r of roots) mark(r);
  for (let i = 0; i < n; i++) {
    if (seen[i]) continue;
    const p = parent[i];
    children[p] = children[p].filter((c) => c !== i);
    parent[i] = -1;
    roots.push(i);
    mark(i);
  }
  const byStart = (a: number, b: number) => start[a] - start[b] || a - b;
  roots.sort(byStart);
  for (const list of children) if (list.length > 1) list.sort(byStart);
  return { spans, start, end, parent, children, roots, indexOf };
}

/** The rows on screen: depth-first, skipping what is under a collapsed span. */
export function flattenTrace(tree: TraceTree, collapsed: ReadonlySet<string>): FlatTrace {
  const rows: TraceRow[] = [];
  const rowOf = new Map<string, number>();
  const stack: Array<[number, number]> = [];
  for (let r = tree.roots.length - 1; r >= 0; r--) stack.push([tree.roots[r], 0]);
  while (stack.length) {
    const [index, depth] = stack.pop()!;
    const kids = tree.children[index];
    const expanded = kids.length > 0 && !collapsed.has(tree.spans[index].spanId);
    rowOf.set(tree.spans[index].spanId, rows.length);
    rows.push({ index, depth, hasChildren: kids.length > 0, expanded });
    if (expanded) for (let c = kids.length - 1; c >= 0; c--) stack.push([kids[c], depth + 1]);
  }
  return { rows, rowOf };
}

/** Every span with children: "collapse all". */
export function collapsibleSpanIds(tree: TraceTree): Set<string> {
  const ids = new Set<string>();
  tree.children.forEach((kids, i) => kids.length && ids.add(tree.spans[i].spanId));
  return ids;
}

/** The spans above one (nearest first), to expand so it can be seen. */
export function ancestorIds(tree: TraceTree, spanId: string): string[] {
  const out: string[] = [];
  let i = tree.indexOf.get(spanId) ?? -1;
  while (i !== -1 && (i = tree.parent[i]) !== -1) out.push(tree.spans[i].spanId);
  return out;
}

export interface TimeAxis {
  start: number;
  end: number;
}

/**
 * The trace's time axis: its first start to its last end. Open spans end at
 * `openEnd` (now for a live run, the run's end for a finished one).
 */
export function traceAxis(tree: TraceTree, openEnd: number): TimeAxis {
  let start = Infinity;
  let end = -Infinity;
  for (let i = 0; i < tree.spans.length; i++) {
    start = Math.min(start, tree.start[i]);
    const e = Number.isNaN(tree.end[i]) ? Math.max(openEnd, tree.start[i]) : tree.end[i];
    end = Math.max(end, e);
  }
  if (!Number.isFinite(start)) return { start: openEnd, end: openEnd + 1 };
  return { start, end: Math.max(end, start + 1) };
}

export interface Bar {
  /** Offset from the axis start, 0..1. */
  left: number;
  /** 0..1 of the axis. */
  width: number;
  open: boolean;
}

/** Where a span's waterfall bar sits on the axis. */
export function barOf(tree: TraceTree, index: number, axis: TimeAxis, openEnd: number): Bar {
  const span = axis.end - axis.start;
  const open = Number.isNaN(tree.end[index]);
  const s = Math.min(Math.max(tree.start[index], axis.start), axis.end);
  const e = Math.min(Math.max(open ? openEnd : tree.end[index], s), axis.end);
  return { left: (s - axis.start) / span, width: (e - s) / span, open };
}

/** A span's duration in ms; open spans count until `openEnd`. */
export function durationOf(tree: TraceTree, index: number, openEnd: number): number {
  const e = tree.end[index];
  return Math.max(0, (Number.isNaN(e) ? openEnd : e) - tree.start[index]);
}

export interface TraceTotals {
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

interface CostedSpan {
  kind: string;
  parentSpanId: string | null;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

/** The run span carries the run's totals; without one (truncated), the model calls are summed. */
export function traceTotals(spans: readonly CostedSpan[]): TraceTotals {
  const run = spans.find((s) => s.kind === "run" && s.parentSpanId === null);
  if (run)
    return { costUsd: run.costUsd, inputTokens: run.inputTokens, outputTokens: run.outputTokens, cachedInputTokens: run.cachedInputTokens };
  const totals = { costUsd: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
  for (const s of spans) {
    if (s.kind !== "chat") continue;
    totals.costUsd += s.costUsd;
    totals.inputTokens += s.inputTokens;
    totals.outputTokens += s.outputTokens;
    totals.cachedInputTokens += s.cachedInputTokens;
  }
  return totals;
}

export type AttributeGroup = { name: "gen_ai" | "rein" | "other"; entries: Array<[string, string | number | boolean]> };

/** A span's attributes for its detail table: gen_ai.*, then rein.*, then the rest, each sorted by key. */
export function groupAttributes(attributes: Record<string, string | number | boolean>): AttributeGroup[] {
  const groups: AttributeGroup[] = [
    { name: "gen_ai", entries: [] },
    { name: "rein", entries: [] },
    { name: "other", entries: [] },
  ];
  for (const key of Object.keys(attributes).sort()) {
    const g = key.startsWith("gen_ai.") ? 0 : key.startsWith("rein.") ? 1 : 2;
    groups[g].entries.push([key, attributes[key]]);
  }
  return groups.filter((g) => g.entries.length > 0);
}
