"use client";
// The run page's Terminal tab: the agent's shell live in xterm.js, with take
// over / hand back for operators and a read-only view for everyone else.
import "@xterm/xterm/css/xterm.css";
import "@/components/run/live-view.css";
import "./terminal.css";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { EmptyState } from "@/components/ui";
import { useRoleIn } from "@/lib/access";
import { latest, type TimelineEvent } from "@/lib/run-events";
import type { Run, RunState } from "@/lib/trpc";
import { INITIAL_VIEW, TerminalClient, type TerminalView } from "./terminal-client";

const FINISHED: RunState[] = ["succeeded", "failed", "canceled"];

export function TerminalTab({ run, status, events }: { run: Run; status: RunState; events: TimelineEvent[] }) {
  const { me, canOperate, operatorHint } = useRoleIn(run.teamId);
  const hostRef = useRef<HTMLDivElement>(null);
  const viewportRef = useRef<HTMLDivElement>(null);
  const clientRef = useRef<TerminalClient | null>(null);
  const [view, setView] = useState<TerminalView>(INITIAL_VIEW);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState<"takeover" | "handback" | null>(null);
  const noticeTimer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const showNotice = useCallback((message: string | null, sticky = false) => {
    if (noticeTimer.current) clearTimeout(noticeTimer.current);
    setNotice(message);
    if (message && !sticky) noticeTimer.current = setTimeout(() => setNotice(null), 6000);
  }, []);

  useEffect(() => {
    const client = new TerminalClient(run.id, setView, (m) => showNotice(m));
    clientRef.current = client;
    setView(INITIAL_VIEW);
    void client.mount(hostRef.current!, viewportRef.current!);
    return () => {
      client.dispose();
      clientRef.current = null;
    };
  }, [run.id, showNotice]);
  useEffect(() => clientRef.current?.setUser(me?.userId ?? null), [me?.userId, view.attached]);
  useEffect(() => () => void (noticeTimer.current && clearTimeout(noticeTimer.current)), []);

  const unavailable = useMemo(() => latest(events, "terminal.unavailable"), [events]);
  const mine = !!me && view.controller?.id === me.userId;
  const finished = FINISHED.includes(status);
  const live = !!view.podId;

  async function control(action: "takeover" | "handback") {
    const client = clientRef.current;
    if (!client) return;
    setBusy(action);
    showNotice(null);
    const reply = await (action === "takeover" ? client.takeover() : client.handback());
    setBusy(null);
    if (!reply.ok) showNotice(reply.error, true);
    else if (action === "takeover") client.focus();
    else if (reply.message && reply.message !== "The agent continues") showNotice(reply.message);
  }

  const empty = emptyState(view, status, unavailable?.payload.reason ?? null);

  return (
    <div className="live-tab" data-testid="terminal-tab">
      <div className="live-toolbar">
        <ConnectionLabel view={view} />
        <ControlLabel view={view} mine={mine} live={live} />
        {!mine && live && (
          <span
            className="badge badge-outline"
            data-testid="terminal-readonly"
            title={canOperate ? "Only the person who took over the terminal can type in it" : operatorHint}
          >
            Read-only
          </span>
        )}
        <span className="spacer" />
        {live && (
          <span
            className="live-size mono"
            title={
              view.screenCols === view.cols
                ? "The terminal's size in columns × rows"
                : `The terminal's size in columns × rows; shown here ${view.screenCols} columns wide, its lines re-wrapped to fit this panel`
            }
            data-testid="terminal-size"
          >
            {view.cols}×{view.rows}
          </span>
        )}
        {/* Viewers only watch: no control they could never use (the server refuses their keystrokes anyway). */}
        {live && !view.controller && !finished && canOperate && (
          <button
            type="button"
            className="btn btn-sm"
            disabled={busy !== null || view.connection !== "live"}
            title="Pause the agent after its current step and type in its shell yourself"
            onClick={() => void control("takeover")}
            data-testid="terminal-takeover"
          >
            {busy === "takeover" && <span className="spinner" aria-hidden="true" />}
            Take over
          </button>
        )}
        {view.controller && (mine || me?.role === "admin") && (
          <button
            type="button"
            className="btn btn-sm btn-primary"
            disabled={busy !== null || view.connection !== "live"}
            title={
              mine
                ? "Give the shell back to the agent; it is told what you ran"
                : `End ${view.controller.name}'s control and resume the agent`
            }
            onClick={() => void control("handback")}
            data-testid="terminal-handback"
          >
            {busy === "handback" && <span className="spinner" aria-hidden="true" />}
            {mine ? "Hand back" : `End ${view.controller.name}'s control`}
          </button>
        )}
      </div>
      {notice && (
        <div className="alert alert-warn small terminal-notice" role="alert" data-testid="terminal-notice">
          {notice}
        </div>
      )}
      {view.endedReason && view.hasScreen && (
        <div className="terminal-ended small" data-testid="terminal-ended">
          <strong>The run&apos;s terminal has ended</strong> ({view.endedReason.replace(/^The terminal ended: /, "")}). This is its last
          screen.
        </div>
      )}
      <div className="live-stage">
        {/* Laid out even while a state covers it: xterm measures its font when it opens. */}
        <div
          className={`terminal-viewport${mine && view.ready ? " controlling" : ""}${empty ? " covered" : ""}`}
          ref={viewportRef}
          onClick={() => mine && clientRef.current?.focus()}
          data-testid="terminal-viewport"
        >
          <div
            className="terminal-host"
            ref={hostRef}
            data-testid="terminal-screen"
            data-cols={view.screenCols}
            data-rows={view.screenRows}
          />
        </div>
        {empty && <div className="live-cover">{empty}</div>}
      </div>
    </div>
  );
}

function ConnectionLabel({ view }: { view: TerminalView }) {
  const text =
    view.connection === "live"
      ? "Live"
      : view.connection === "connecting"
        ? "Connecting…"
        : view.connection === "reconnecting"
          ? "Reconnecting…"
          : "Not connected";
  return (
    <span className="row small" style={{ gap: 6 }} data-testid="terminal-connection" data-state={view.connection}>
      <span className={`live-dot ${view.connection === "live" ? "" : view.connection}`} aria-hidden="true" />
      {text}
    </span>
  );
}

function ControlLabel({ view, mine, live }: { view: TerminalView; mine: boolean; live: boolean }) {
  if (!live) return null;
  if (!view.controller) {
    return (
      <span className="live-who" data-testid="terminal-controller" data-controller="">
        The agent is at the keyboard
      </span>
    );
  }
  const waiting = !view.ready;
  return (
    <span
      className={`live-who ${mine ? "mine" : "other"}`}
      data-testid="terminal-controller"
      data-controller={view.controller.name}
      data-ready={view.ready}
    >
      {waiting && <span className="spinner" aria-hidden="true" />}
      {mine
        ? waiting
          ? "You took over; the agent is finishing its current step…"
          : "You control the terminal; the agent is paused"
        : waiting
          ? `${view.controller.name} is taking over; the agent is finishing its current step…`
          : `${view.controller.name} is controlling the terminal`}
    </span>
  );
}

function emptyState(view: TerminalView, status: RunState, unavailable: string | null) {
  if (view.error) {
    return (
      <EmptyState icon="!" title="The terminal is not available">
        <span data-testid="terminal-error">{view.error}</span>
      </EmptyState>
    );
  }
  if (view.podId || view.hasScreen) return null;
  if (!view.attached) {
    return (
      <div className="row muted small" role="status" data-testid="terminal-connecting">
        <span className="spinner" aria-hidden="true" /> Connecting to the terminal…
      </div>
    );
  }
  if (unavailable) {
    return (
      <EmptyState icon=">_" title="This run has no terminal">
        <span data-testid="terminal-empty">{unavailable}</span>
      </EmptyState>
    );
  }
  if (FINISHED.includes(status)) {
    return (
      <EmptyState icon=">_" title="The run's terminal has ended">
        <span data-testid="terminal-empty">
          The run is {status}; its last screen is no longer kept by the server. The timeline has every command and its output.
        </span>
      </EmptyState>
    );
  }
  if (status === "paused" || status === "waiting_human") {
    return (
      <EmptyState icon=">_" title="No terminal now">
        <span data-testid="terminal-empty">
          The run is {status === "paused" ? "paused" : "waiting for a person"} without a terminal; one starts when the agent uses the shell
          again.
        </span>
      </EmptyState>
    );
  }
  return (
    <EmptyState icon=">_" title="No terminal yet">
      <span data-testid="terminal-empty">
        {status === "queued"
          ? "The terminal appears when the run starts."
          : "It appears here, live, when the agent starts using the shell."}
      </span>
    </EmptyState>
  );
}
