// The part of a run's trace the Trace tab has loaded
// (docs/traces-and-costs.md#try-it-a-runs-trace): pages in start order, then
// the spans that changed since (traces.page and traces.changes). A changed span
// replaces its row; a new one is added only inside the loaded range, as the
// pages after it will bring the rest as they are read then. Parents and
// children may arrive in any order: the tree is built from the set
// (lib/trace-tree.ts), so an orphan finds its parent when that arrives.

export interface WindowSpan {
  spanId: string;
  parentSpanId: string | null;
  startTime: Date;
  endTime: Date | null;
  status: string;
  name: string;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costUsd: number;
  attributes: Record<string, unknown>;
}

export interface TraceWindow<S extends WindowSpan> {
  /** Loaded spans, each once; a changed span keeps its place. */
  spans: readonly S[];
  indexOf: ReadonlyMap<string, number>;
  /** The last loaded span in start order (start ms, id), or null before the first page. */
  end: { start: number; spanId: string } | null;
  /** Every page has been read: new spans are added wherever they start. */
  complete: boolean;
}

export function emptyWindow<S extends WindowSpan>(): TraceWindow<S> {
  return { spans: [], indexOf: new Map(), end: null, complete: false };
}

/** Start order, ties by id, as the server pages: negative when a comes first. */
export function compareSpanKeys(a: { start: number; spanId: string }, b: { start: number; spanId: string }): number {
  return a.start - b.start || (a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0);
}

const keyOf = (s: WindowSpan) => ({ start: s.startTime.getTime(), spanId: s.spanId });
const time = (d: Date | null) => (d === null ? null : d.getTime());

function sameSpan(a: WindowSpan, b: WindowSpan): boolean {
  return (
    time(a.endTime) === time(b.endTime) &&
    time(a.startTime) === time(b.startTime) &&
    a.status === b.status &&
    a.name === b.name &&
    a.parentSpanId === b.parentSpanId &&
    a.costUsd === b.costUsd &&
    a.inputTokens === b.inputTokens &&
    a.outputTokens === b.outputTokens &&
    a.cachedInputTokens === b.cachedInputTokens &&
    JSON.stringify(a.attributes) === JSON.stringify(b.attributes)
  );
}

/** The window with `incoming` put in (replacing rows with the same id); itself when nothing differs. */
function merged<S extends WindowSpan>(
  w: TraceWindow<S>,
  incoming: readonly S[],
  keep: (s: S) => boolean,
): { spans: readonly S[]; indexOf: ReadonlyMap<string, number> } {
  let spans: S[] | null = null;
  let indexOf: Map<string, number> | null = null;
  for (const s of incoming) {
    const at = (indexOf ?? w.indexOf).get(s.spanId);
    if (at !== undefined) {
      const list = spans ?? w.spans;
      if (sameSpan(list[at], s)) continue;
      spans ??= [...w.spans];
      spans[at] = s;
    } else if (keep(s)) {
      spans ??= [...w.spans];
      indexOf ??= new Map(w.indexOf);
      indexOf.set(s.spanId, spans.length);
      spans.push(s);
    }
  }
  return { spans: spans ?? w.spans, indexOf: indexOf ?? w.indexOf };
}

/** A page read after the loaded ones (in start order); `last` says there are no pages after it. */
export function addPage<S extends WindowSpan>(w: TraceWindow<S>, page: readonly S[], last: boolean): TraceWindow<S> {
  const { spans, indexOf } = merged(w, page, () => true);
  const tail = page.at(-1);
  const end = tail && (!w.end || compareSpanKeys(keyOf(tail), w.end) > 0) ? keyOf(tail) : w.end;
  if (spans === w.spans && end === w.end && last === w.complete) return w;
  return { spans, indexOf, end, complete: last };
}

/** Spans changed since the last look (any order): known ones are replaced, new ones added where loaded. */
export function applyChanges<S extends WindowSpan>(w: TraceWindow<S>, changed: readonly S[]): TraceWindow<S> {
  const inRange = (s: S) => w.complete || (w.end !== null && compareSpanKeys(keyOf(s), w.end) <= 0);
  const { spans, indexOf } = merged(w, changed, inRange);
  return spans === w.spans ? w : { ...w, spans, indexOf };
}

/** Ids of loaded spans that have not ended (at most `max`, the latest started first): the server is asked about them. */
export function openSpanIds(w: TraceWindow<WindowSpan>, max: number): string[] {
  const open = w.spans.filter((s) => s.endTime === null);
  open.sort((a, b) => compareSpanKeys(keyOf(b), keyOf(a)));
  return open.slice(0, max).map((s) => s.spanId);
}
