// A run's event log, live: the server sends everything after our cursor, then
// tails new events. Reconnecting subscribes again from the cursor, so nothing
// is lost or shown twice (events are deduplicated by seq).
import { useCallback, useEffect, useRef, useState } from "react";
import { connectRunsSocket, socketErrorMessage, type RunsSocket } from "@/lib/socket";
import type { TimelineEvent, ToolProgress } from "@/lib/run-events";

/** How long live events wait to be drawn together. */
const LIVE_BATCH_MS = 250;

export type LiveStatus = "connecting" | "live" | "reconnecting" | "error";

/** A model turn still streaming: text built from deltas until its model.turn arrives. */
export interface StreamingTurn {
  step: number;
  agent: string;
  text: string;
}

export interface RunEventsState {
  events: TimelineEvent[];
  streaming: StreamingTurn[];
  /** The last progress of each tool call still running, by toolCallId. */
  progress: Record<string, ToolProgress>;
  /** The first snapshot has arrived. */
  loaded: boolean;
  status: LiveStatus;
  error: string | null;
  retry(): void;
}

export function useRunEvents(runId: string, onNewEvents?: (events: TimelineEvent[]) => void): RunEventsState {
  const [events, setEvents] = useState<TimelineEvent[]>([]);
  const [streaming, setStreaming] = useState<StreamingTurn[]>([]);
  const [progress, setProgress] = useState<Record<string, ToolProgress>>({});
  const [loaded, setLoaded] = useState(false);
  const [status, setStatus] = useState<LiveStatus>("connecting");
  const [error, setError] = useState<string | null>(null);
  const socketRef = useRef<RunsSocket | null>(null);
  const onNewRef = useRef(onNewEvents);
  onNewRef.current = onNewEvents;

  useEffect(() => {
    let cursor = 0;
    const finishedSteps = new Set<number>();
    // The log the server sends on subscribing comes in pages: they are kept here and shown at
    // once when it says it is done, so a long run is drawn once, not once per page.
    let catchingUp = true;
    let caughtUp: TimelineEvent[] = [];
    const show = (fresh: TimelineEvent[]) => {
      setEvents((prev) => {
        const last = prev.length ? prev[prev.length - 1].seq : 0;
        const add = fresh.filter((e) => e.seq > last);
        return add.length ? [...prev, ...add] : prev;
      });
      onNewRef.current?.(fresh);
    };
    // Live events are drawn in batches, at most every LIVE_BATCH_MS: a page re-drawn for each of 50 events a
    // second over a long log had no time left to answer its reader (docs/performance.md#the-run-page-of-a-long-run).
    let queued: TimelineEvent[] = [];
    let batchTimer: ReturnType<typeof setTimeout> | null = null;
    const drawQueued = () => {
      batchTimer = null;
      const fresh = queued;
      queued = [];
      if (fresh.length) apply(fresh);
    };

    const flush = () => {
      catchingUp = false;
      // A batch still waiting (from before a reconnect) goes first: its events come before the caught-up ones.
      if (batchTimer) clearTimeout(batchTimer);
      batchTimer = null;
      const fresh = [...queued, ...caughtUp];
      queued = [];
      caughtUp = [];
      if (fresh.length) apply(fresh);
    };
    setEvents([]);
    setStreaming([]);
    setProgress({});
    setLoaded(false);
    setStatus("connecting");
    setError(null);

    const socket = connectRunsSocket();
    socketRef.current = socket;

    socket.on("connect", () => {
      // Deltas sent while we were away are lost; the durable turn will follow.
      setStreaming([]);
      catchingUp = true;
      socket.emit("subscribe", { runId, after: cursor }, (reply) => {
        flush();
        setLoaded(true);
        if (reply.ok) {
          setStatus("live");
          setError(null);
        } else {
          setStatus("error");
          setError(reply.error);
        }
      });
    });
    socket.on("disconnect", () => setStatus((s) => (s === "error" ? s : "reconnecting")));
    socket.on("connect_error", (err) => {
      if (socket.active) {
        setStatus("reconnecting");
      } else {
        setStatus("error");
        setError(socketErrorMessage(err));
        setLoaded(true);
      }
    });

    socket.on("events", (message) => {
      if (message.runId !== runId) return;
      const fresh = message.events.filter((e) => e.seq > cursor).sort((a, b) => a.seq - b.seq);
      if (fresh.length === 0) return;
      cursor = fresh[fresh.length - 1].seq;
      if (catchingUp) {
        caughtUp.push(...fresh);
        markFinished(fresh);
        return;
      }
      queued.push(...fresh);
      markFinished(fresh);
      batchTimer ??= setTimeout(drawQueued, LIVE_BATCH_MS);
    });

    /** Deltas of a turn already logged are dropped as they arrive, even while the turn waits in a batch. */
    const markFinished = (fresh: TimelineEvent[]) => {
      for (const e of fresh) if (e.type === "model.turn") finishedSteps.add((e.payload as { step: number }).step);
    };

    const apply = (fresh: TimelineEvent[]) => {
      const turnSteps: number[] = [];
      const results: string[] = [];
      for (const e of fresh) {
        if (e.type === "tool.result") results.push((e.payload as { toolCallId: string }).toolCallId);
        if (e.type === "model.turn") turnSteps.push((e.payload as { step: number }).step);
      }
      show(fresh);
      if (turnSteps.length) setStreaming((prev) => prev.filter((t) => !turnSteps.includes(t.step)));
      if (results.length)
        setProgress((prev) =>
          results.some((id) => id in prev) ? Object.fromEntries(Object.entries(prev).filter(([id]) => !results.includes(id))) : prev,
        );
    };

    socket.on("delta", (message) => {
      if (message.runId !== runId || finishedSteps.has(message.step)) return;
      setStreaming((prev) => {
        const i = prev.findIndex((t) => t.step === message.step);
        if (i === -1) return [...prev, { step: message.step, agent: message.agent, text: message.delta }];
        const next = prev.slice();
        next[i] = { ...prev[i], text: prev[i].text + message.delta };
        return next;
      });
    });

    socket.on("progress", (message) => {
      if (message.runId !== runId) return;
      setProgress((prev) => ({ ...prev, [message.toolCallId]: message }));
    });

    return () => {
      if (batchTimer) clearTimeout(batchTimer);
      socket.removeAllListeners();
      socket.disconnect();
      socketRef.current = null;
    };
  }, [runId]);

  const retry = useCallback(() => {
    const socket = socketRef.current;
    if (!socket) return;
    setStatus("connecting");
    setError(null);
    if (socket.connected) socket.disconnect();
    socket.connect();
  }, []);

  return { events, streaming, progress, loaded, status, error, retry };
}
