"use client";
// The live timeline: follows new events while scrolled to the bottom; when the
// reader scrolls up it stays put and offers "Jump to latest".
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { ErrorState, Skeleton } from "@/components/ui";
import { useMe, useRoleIn } from "@/lib/access";
import { personName } from "@/lib/people";
import type { EventOf } from "@/lib/run-events";
import { askedCalls, groupTimeline, type TimelineEntry } from "@/lib/timeline-groups";
import { formatDateTime, pluralize } from "@/lib/format";
import { isTypingTarget } from "@/lib/keyboard";
import type { Run, RunState } from "@/lib/trpc";
import type { RunEventsState } from "@/lib/use-run-events";
import { StreamingTurnItem } from "./model-turn";
import { TimelineItem, type TimelineContext } from "./timeline-item";
import { useShowAllow } from "./use-show-allow";
import styles from "./timeline.module.css";
import { messagesReadAt } from "./user-message";

const NEAR_BOTTOM_PX = 48;
/** A long run opens on its latest entries; earlier ones come a page at a time above them (docs/runs.md#long-runs). */
const FIRST_ENTRIES = 200;
const EARLIER_PAGE = 500;
const ACTIVE: RunState[] = ["queued", "running", "paused", "waiting_human"];

const LIVE_TEXT = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Reconnecting…",
  error: "Not live",
  ended: "Run ended",
} as const;

export function Timeline({ run, status, live }: { run: Run; status: RunState; live: RunEventsState }) {
  const { me } = useMe();
  const { canOperate, operatorHint } = useRoleIn(run.teamId);
  const scroller = useRef<HTMLDivElement>(null);
  const following = useRef(true);
  const [atBottom, setAtBottom] = useState(true);
  const [unseen, setUnseen] = useState(0);
  const seenCount = useRef(0);
  const { events, streaming, progress } = live;
  const [showAllow, setShowAllow] = useShowAllow();
  const entries = useMemo(() => groupTimeline(events), [events]);
  // How many of the oldest entries are not drawn: fixed when the run's events first arrive, so new
  // entries append below and never push the one being read out of the page.
  const [cut, setCut] = useState<{ runId: string; hidden: number } | null>(null);
  const hidden = cut?.runId === run.id ? cut.hidden : Math.max(0, entries.length - FIRST_ENTRIES);
  useEffect(() => {
    if (live.loaded && cut?.runId !== run.id) setCut({ runId: run.id, hidden: Math.max(0, entries.length - FIRST_ENTRIES) });
  }, [live.loaded, run.id, entries.length, cut]);
  // While the reader follows a live run, the oldest drawn entries leave the page as new ones arrive: a run
  // that streams for an hour redraws a few hundred entries per batch, not every one since the page opened.
  useEffect(() => {
    if (cut?.runId === run.id && following.current && entries.length - cut.hidden > FIRST_ENTRIES * 2)
      setCut({ runId: run.id, hidden: entries.length - FIRST_ENTRIES });
  }, [entries.length, run.id, cut]);
  const drawn = hidden > 0 ? entries.slice(hidden) : entries;
  // Showing earlier entries keeps the reader where they were: the page grows above them.
  const heightBefore = useRef<number | null>(null);
  const showEarlier = () => {
    heightBefore.current = scroller.current?.scrollHeight ?? null;
    following.current = false;
    setCut({ runId: run.id, hidden: Math.max(0, hidden - EARLIER_PAGE) });
  };
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (heightBefore.current === null) {
      if (following.current) el.scrollTop = el.scrollHeight; // entries left the top while following
      return;
    }
    el.scrollTop += el.scrollHeight - heightBefore.current;
    heightBefore.current = null;
  }, [hidden]);
  // A finished run has nothing more to stream: no green dot while the connection is merely open.
  const liveState = live.status === "live" && !ACTIVE.includes(status) ? "ended" : live.status;

  const ctx = useMemo<TimelineContext>(() => {
    const results = new Map<string, EventOf<"tool.result">>();
    const calls = new Map<string, EventOf<"tool.call">>();
    const asked = askedCalls(events);
    const decided = new Set<string>();
    const ended = new Map<number, EventOf<"session.ended">>();
    const started = new Set<number>();
    let lastStep = 0;
    let lastState: { to: string; error?: { message: string } } | null = null;
    for (const e of events) {
      if (e.type === "run.state") lastState = e.payload as { to: string; error?: { message: string } };
      if (e.type === "tool.result") {
        const id = (e.payload as { toolCallId: string }).toolCallId;
        if (!results.has(id)) results.set(id, e as EventOf<"tool.result">);
      } else if (e.type === "tool.call") calls.set((e.payload as { toolCallId: string }).toolCallId, e as EventOf<"tool.call">);
      else if (e.type === "human.decided") decided.add((e.payload as { requestId: string }).requestId);
      else if (e.type === "model.turn") lastStep = Math.max(lastStep, (e.payload as { step: number }).step);
      else if (e.type === "session.ended") ended.set((e.payload as { session: number }).session, e as EventOf<"session.ended">);
      else if (e.type === "session.started") started.add((e.payload as { session: number }).session);
    }
    const read = messagesReadAt(events);
    const people = new Map<string, { name: string; email: string }>();
    if (run.createdBy) people.set(run.createdBy.id, { name: personName(run.createdBy), email: run.createdBy.email });
    if (me) people.set(me.userId, { name: personName(me), email: me.email });
    return {
      hasResult: (id) => results.has(id),
      resultOf: (id) => results.get(id) ?? null,
      askedFirst: (id) => asked.has(id),
      callOf: (id) => calls.get(id) ?? null,
      showAllow,
      userEmail: (id) => (id ? people.get(id)?.email : undefined),
      requestOpen: (id) => !decided.has(id),
      userName: (id) =>
        id
          ? (people.get(id)?.name ?? (id.startsWith("agent:") ? id.slice(6) : id === "system" ? "Rein" : `user ${id.slice(0, 8)}`))
          : "Rein",
      // The header shows the failure of a failed run (run-header.tsx): said once there.
      failureShown: (message) => status === "failed" && lastState?.to === "failed" && lastState.error?.message === message,
      active: ACTIVE.includes(status),
      running: status === "running",
      waitingHuman: status === "waiting_human",
      progressOf: (id) => progress[id],
      messageReadAt: (seq) => read.get(seq) ?? null,
      run,
      forkAccess: { canOperate, operatorHint },
      stepDone: (step, ids) => step < lastStep || ids.every((id) => results.has(id)),
      sessionEnded: (n) => ended.get(n) ?? null,
      sessionFollowed: (n) => started.has(n + 1),
    };
  }, [events, run, me, status, progress, canOperate, operatorHint, showAllow]);

  const scrollToBottom = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    el.scrollTop = el.scrollHeight;
    following.current = true;
    setAtBottom(true);
    setUnseen(0);
  }, []);

  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (!el || el.clientHeight === 0) return; // hidden with its tab
    const near = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_BOTTOM_PX;
    following.current = near;
    setAtBottom(near);
    if (near) setUnseen(0);
  }, []);

  const streamedChars = streaming.reduce((n, t) => n + t.text.length, 0);
  useLayoutEffect(() => {
    const added = events.length - seenCount.current;
    seenCount.current = events.length;
    if (following.current) {
      const el = scroller.current;
      if (el) el.scrollTop = el.scrollHeight;
    } else if (added > 0) {
      setUnseen((n) => n + added);
    }
  }, [events.length, streamedChars]);

  // The timeline is hidden while another tab of the run is open; coming back, it follows again.
  useEffect(() => {
    const el = scroller.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    let lastHeight = el.clientHeight;
    const observer = new ResizeObserver(() => {
      if (lastHeight === 0 && el.clientHeight > 0 && following.current) el.scrollTop = el.scrollHeight;
      lastHeight = el.clientHeight;
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    // Keyboard: End jumps to the latest event when focus is not in a field.
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "End" && !e.defaultPrevented && !isTypingTarget(e.target) && !document.querySelector("dialog[open]")) scrollToBottom();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [scrollToBottom]);

  return (
    <section className="timeline-pane" aria-label="Timeline">
      <div className="timeline-toolbar">
        <span className="panel-title">Timeline</span>
        <span data-testid="event-count">{pluralize(events.length, "event")}</span>
        <span className="spacer" />
        <label
          className="row small muted"
          style={{ gap: 6 }}
          title="Calls the policy simply allowed get a “policy: allow” note; shown when ticked (remembered in this browser)"
        >
          <input type="checkbox" checked={showAllow} onChange={(e) => setShowAllow(e.target.checked)} data-testid="show-allow-toggle" />
          Show allowed calls’ policy
        </label>
        <span className="row" style={{ gap: 6 }} data-testid="live-status" data-state={liveState}>
          {liveState !== "ended" && <span className={`live-dot ${liveState}`} aria-hidden="true" />}
          {LIVE_TEXT[liveState]}
        </span>
      </div>
      {live.error && live.loaded && events.length > 0 && (
        <div className="alert alert-warn small" role="alert" style={{ marginBottom: 8 }}>
          {live.error}{" "}
          <button type="button" className="btn-link" onClick={live.retry}>
            Reconnect
          </button>
        </div>
      )}
      <div className="timeline-scroll" ref={scroller} onScroll={onScroll} tabIndex={0} aria-label="Run events">
        {!live.loaded ? (
          <div className="stack" role="status" aria-label="Loading the timeline">
            {[70, 45, 85, 55].map((w, i) => (
              <div key={i} className="row" style={{ gap: 10 }}>
                <Skeleton width={28} height={28} />
                <Skeleton width={`${w}%`} height={i % 2 ? 18 : 48} />
              </div>
            ))}
          </div>
        ) : events.length === 0 && live.error ? (
          <ErrorState title="The timeline is unavailable" message={live.error} onRetry={live.retry} />
        ) : events.length === 0 && run.pruned.some((p) => p.part === "events") ? (
          <p className="muted" style={{ padding: 16 }} data-testid="timeline-pruned">
            Retention dropped this run&apos;s event log on {formatDateTime(run.pruned.find((p) => p.part === "events")!.at)}. The summary
            above, its cost and its outcome stay.
          </p>
        ) : events.length === 0 ? (
          <p className="muted" style={{ padding: 16 }}>
            No events yet. They appear here as soon as the run starts.
          </p>
        ) : (
          <ol className="timeline" data-testid="timeline">
            {hidden > 0 && (
              <li className={styles.earlier}>
                <button type="button" className="btn btn-sm" onClick={showEarlier} data-testid="timeline-earlier">
                  Show {pluralize(Math.min(hidden, EARLIER_PAGE), "earlier entry", "earlier entries")}
                </button>{" "}
                <span className="small muted">{hidden.toLocaleString("en-US")} not shown</span>
              </li>
            )}
            {drawn.map((entry) => (
              <TimelineEntryView key={entryKey(entry)} entry={entry} ctx={ctx} />
            ))}
            {streaming.map((t) => (
              <StreamingTurnItem key={`stream-${t.step}`} turn={t} />
            ))}
          </ol>
        )}
      </div>
      {!atBottom && (
        <button type="button" className="btn btn-primary btn-sm jump-latest" onClick={scrollToBottom} data-testid="jump-to-latest">
          ↓ Jump to latest{unseen > 0 ? ` (${unseen} new)` : ""}
        </button>
      )}
    </section>
  );
}

function entryKey(entry: TimelineEntry): number {
  return entry.kind === "event" ? entry.event.seq : entry.kind === "tool" ? entry.call.seq : entry.head.seq;
}

/** One entry: an event, a tool call's card, or a resume with its routine rows folded under it. */
function TimelineEntryView({ entry, ctx }: { entry: TimelineEntry; ctx: TimelineContext }) {
  if (entry.kind === "event") return <TimelineItem event={entry.event} ctx={ctx} />;
  if (entry.kind === "tool") return <TimelineItem event={entry.call} ctx={ctx} />;
  return (
    <>
      <TimelineItem event={entry.head} ctx={ctx} />
      <li className={styles.group} data-testid="resume-group">
        <details>
          <summary className="small muted">{pluralize(entry.rows.length, "routine event")} of the resume</summary>
          <ol className="timeline">
            {entry.rows.map((e) => (
              <TimelineItem key={e.seq} event={e} ctx={ctx} />
            ))}
          </ol>
        </details>
      </li>
    </>
  );
}
