"use client";
// A run's trace for the Trace tab, read a page at a time (traces.page) and kept
// current by asking what changed since the last answer's watermark
// (traces.changes) every 2 s while the run is live, and whenever the run page
// says its events may have become spans. Requests go one at a time, in order,
// so a page and a change set never overtake each other.
import { useCallback, useEffect, useRef, useState } from "react";
import { addPage, applyChanges, emptyWindow, openSpanIds, type TraceWindow } from "@/lib/trace-window";
import { trpc } from "@/lib/trpc";
import type { SpanView } from "./span-kind";
import { onSpansChanged } from "./trace-events";

const LIVE_POLL_MS = 2_000;
/** The first page is what the tab draws at once; later pages are read as the person scrolls. */
const FIRST_PAGE = 500;
const NEXT_PAGE = 1000;
/** "End" and a link to a span not loaded yet read the rest in larger pages. */
const BULK_PAGE = 2000;
const MAX_OPEN_IDS = 200;

export interface RunTrace {
  status: "loading" | "ready" | "error";
  error: unknown;
  window: TraceWindow<SpanView>;
  traceId: string | null;
  /** Spans in the whole trace, loaded or not. */
  total: number;
  /** A request is under way (a page or the changes). */
  busy: boolean;
  /** Reading the next page failed (the loaded spans stay). */
  moreError: unknown;
}

interface State extends RunTrace {
  next: string | null;
  watermark: number;
}

const initial = (): State => ({
  status: "loading",
  error: null,
  window: emptyWindow(),
  traceId: null,
  total: 0,
  busy: false,
  moreError: null,
  next: null,
  watermark: 0,
});

type Job = "load" | "more" | "all" | "changes";

export function useRunTrace(runId: string, { enabled, live }: { enabled: boolean; live: boolean }) {
  const client = trpc.useUtils().client;
  const [state, setState] = useState<State>(initial);
  const current = useRef(state);
  const queue = useRef<Promise<void>>(Promise.resolve());
  const queued = useRef(new Set<Job>());
  const generation = useRef(0);
  // Scrolling near the end and "Load more" may both ask for the same page: it is read once.
  const askedAfter = useRef<string | null>(null);

  const commit = useCallback((next: State) => {
    current.current = next;
    setState(next);
  }, []);

  const firstPage = useCallback(async () => {
    const page = await client.traces.page.query({ runId, limit: FIRST_PAGE });
    const s = initial();
    return {
      ...s,
      status: "ready" as const,
      window: addPage(s.window, page.spans, page.next === null),
      traceId: page.traceId,
      total: page.total,
      next: page.next,
      watermark: page.watermark,
    };
  }, [client, runId]);

  const steps: Record<Job, () => Promise<State | null>> = {
    load: firstPage,
    async more() {
      const s = current.current;
      if (s.status !== "ready" || s.next === null) return null;
      const page = await client.traces.page.query({ runId, cursor: s.next, limit: NEXT_PAGE });
      return {
        ...current.current,
        window: addPage(s.window, page.spans, page.next === null),
        total: page.total,
        next: page.next,
        traceId: s.traceId ?? page.traceId,
        moreError: null,
      };
    },
    async all() {
      const gen = generation.current;
      while (gen === generation.current && current.current.status === "ready" && current.current.next !== null) {
        const s = current.current;
        const page = await client.traces.page.query({ runId, cursor: s.next!, limit: BULK_PAGE });
        if (gen !== generation.current) return null;
        commit({
          ...s,
          window: addPage(s.window, page.spans, page.next === null),
          total: page.total,
          next: page.next,
          traceId: s.traceId ?? page.traceId,
          moreError: null,
        });
      }
      return null;
    },
    async changes() {
      const s = current.current;
      if (s.status !== "ready") return null;
      const res = await client.traces.changes.query({ runId, since: s.watermark, open: openSpanIds(s.window, MAX_OPEN_IDS) });
      if (res.reset) return firstPage();
      return { ...current.current, window: applyChanges(s.window, res.spans), total: res.total, watermark: res.watermark };
    },
  };
  const stepsRef = useRef(steps);
  stepsRef.current = steps;

  /** Queues a job unless the same one is waiting already; jobs run one after another. */
  const schedule = useCallback(
    (job: Job) => {
      if (queued.current.has(job)) return;
      queued.current.add(job);
      const gen = generation.current;
      queue.current = queue.current.then(async () => {
        queued.current.delete(job);
        if (gen !== generation.current) return;
        commit({ ...current.current, busy: true });
        try {
          const next = await stepsRef.current[job]();
          if (gen === generation.current) commit({ ...(next ?? current.current), busy: false });
        } catch (error) {
          if (gen !== generation.current) return;
          const s = current.current;
          // A failed poll is retried by the next; a failed first page or next page is shown.
          if (job === "load" || s.status !== "ready") commit({ ...s, status: "error", error, busy: false });
          else {
            if (job === "more") askedAfter.current = null;
            commit({ ...s, busy: false, moreError: job === "more" || job === "all" ? error : s.moreError });
          }
        }
      });
    },
    [commit],
  );

  const reload = useCallback(() => {
    generation.current++;
    queued.current.clear();
    askedAfter.current = null;
    commit(initial());
    schedule("load");
  }, [commit, schedule]);

  // A run's trace is read when its tab is first shown; another run starts over.
  const loadedFor = useRef<string | null>(null);
  useEffect(() => {
    if (!enabled || loadedFor.current === runId) return;
    loadedFor.current = runId;
    reload();
  }, [enabled, runId, reload]);

  // Live: what changed, every 2 s, when the run page says so, and on coming back to the tab.
  const ready = state.status === "ready";
  useEffect(() => {
    if (!enabled || !live || !ready) return;
    schedule("changes");
    const timer = setInterval(() => schedule("changes"), LIVE_POLL_MS);
    const off = onSpansChanged(runId, () => schedule("changes"));
    return () => {
      clearInterval(timer);
      off();
    };
  }, [enabled, live, ready, runId, schedule]);

  const loadMore = useCallback(() => {
    const cursor = current.current.next;
    if (cursor === null || askedAfter.current === cursor) return;
    askedAfter.current = cursor;
    schedule("more");
  }, [schedule]);
  const loadAll = useCallback(() => schedule("all"), [schedule]);
  const { next: _next, watermark: _watermark, ...trace } = state;
  return { ...trace, hasMore: state.next !== null, loadMore, loadAll, reload };
}
