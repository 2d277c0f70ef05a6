"use client";
// The run page's Desktop tab (docs/desktops-and-tiers.md#the-desktop-tab): the
// run's desktop live in noVNC, view-only unless this person took it over, with
// Take over / Hand back for operators. The status (desktop there or not, who
// controls it) comes over the "/runs" socket; the pixels over the VNC
// websocket.
import "@/components/run/live-view.css";
import "./desktop.css";
import { useEffect, useRef, useState } from "react";
import { EmptyState } from "@/components/ui";
import { useMe } from "@/lib/access";
import type { Run, RunState } from "@/lib/trpc";
import { useDesktopStatus } from "./use-desktop-status";
import { VncView, type VncPhase } from "./vnc-view";
import { DesktopControls } from "./desktop-controls";

const FINISHED: RunState[] = ["succeeded", "failed", "canceled"];
const TIER_NAMES: Record<string, string> = { T0: "gateway", T1: "terminal", T2: "desktop", T3: "remote machine", T4: "local device" };

/** What the tab shows, as the state line says it (data-state is for tests and styles). */
export type DesktopViewState = "connecting" | "none" | "live" | "disconnected" | "ended" | "error";

export function DesktopTab({ run, status, active }: { run: Run; status: RunState; active: boolean }) {
  const { me } = useMe();
  const watch = useDesktopStatus(run.id);
  const hostRef = useRef<HTMLDivElement>(null);
  const viewRef = useRef<VncView | null>(null);
  const [vnc, setVnc] = useState<VncPhase>({ phase: "idle" });
  const [attempt, setAttempt] = useState(0);

  const s = watch.status;
  const desktopId = s?.desktop?.id ?? null;
  const ended = !!s?.ended || FINISHED.includes(status);
  const mine = !!me && s?.controller?.id === me.userId;
  const controlling = mine && !!s?.ready;

  useEffect(() => {
    const view = new VncView(hostRef.current!, setVnc);
    viewRef.current = view;
    return () => {
      view.dispose();
      viewRef.current = null;
    };
  }, []);

  // Before connecting: a new connection starts view-only or not as it should.
  useEffect(() => {
    viewRef.current?.setViewOnly(!controlling);
    if (controlling) viewRef.current?.focus();
  }, [controlling]);

  // Connected while the tab is on screen and the run has a desktop; a new desktop gets a new connection.
  useEffect(() => {
    const view = viewRef.current;
    if (!view) return;
    if (active && desktopId && !ended) void view.connect(run.id);
    else view.disconnect();
  }, [active, desktopId, ended, run.id, attempt]);

  const view = viewState(watch.error, s, ended, vnc);
  const reason = vnc.phase === "closed" ? vnc.reason : null;

  return (
    <div className="live-tab" data-testid="desktop-tab">
      <div className="live-toolbar">
        <span className="row small" style={{ gap: 6 }} data-testid="desktop-state" data-state={view}>
          <span className={`live-dot ${DOT[view]}`} aria-hidden="true" />
          {STATE_TEXT[view]}
          {view === "disconnected" && reason && <span className="muted">: {reason}</span>}
        </span>
        {s?.desktop && !ended && (
          <DesktopControls status={s} me={me ?? null} canControl={watch.canControl} live={view === "live"} control={watch.control} />
        )}
        <span className="spacer" />
        {s?.desktop && view === "live" && (
          <span className="live-size mono" title="The desktop's size in pixels">
            {s.desktop.width}×{s.desktop.height}
          </span>
        )}
      </div>
      <div className="live-stage desktop-stage">
        <div
          className={`desktop-screen${controlling ? " controlling" : ""}${view === "live" ? "" : " covered"}`}
          ref={hostRef}
          data-testid="desktop-screen"
        />
        {view !== "live" && (
          <div className="live-cover">
            <Cover
              view={view}
              run={run}
              error={watch.error}
              lastChange={s?.reason ?? null}
              closedReason={reason}
              onReconnect={() => setAttempt((n) => n + 1)}
            />
          </div>
        )}
      </div>
    </div>
  );
}

const DOT: Record<DesktopViewState, string> = {
  live: "",
  connecting: "connecting",
  disconnected: "error",
  error: "error",
  none: "idle",
  ended: "idle",
};

const STATE_TEXT: Record<DesktopViewState, string> = {
  connecting: "Connecting…",
  none: "No desktop",
  live: "Live",
  disconnected: "Disconnected",
  ended: "Ended",
  error: "Not available",
};

function viewState(
  error: string | null,
  s: ReturnType<typeof useDesktopStatus>["status"],
  ended: boolean,
  vnc: VncPhase,
): DesktopViewState {
  if (error) return "error";
  if (!s) return "connecting";
  if (ended) return "ended";
  if (!s.desktop) return "none";
  if (vnc.phase === "live") return "live";
  if (vnc.phase === "closed") return "disconnected";
  return "connecting";
}

function Cover({
  view,
  run,
  error,
  lastChange,
  closedReason,
  onReconnect,
}: {
  view: DesktopViewState;
  run: Run;
  error: string | null;
  lastChange: string | null;
  closedReason: string | null;
  onReconnect(): void;
}) {
  if (view === "error") {
    return (
      <EmptyState icon="!" title="The desktop is not available">
        <span data-testid="desktop-message">{error}</span>
      </EmptyState>
    );
  }
  if (view === "ended") {
    return (
      <EmptyState icon="▣" title="The run has ended">
        <span data-testid="desktop-message">No desktop will appear now. The timeline has everything the agent did.</span>
      </EmptyState>
    );
  }
  if (view === "none") {
    const onLowerTier = run.tier === "T0" || run.tier === "T1";
    return (
      <EmptyState icon="▣" title="No desktop yet">
        <span data-testid="desktop-message">
          {onLowerTier
            ? `This run is on ${run.tier} (${TIER_NAMES[run.tier]}). The desktop appears when the agent moves to T2.`
            : "The run's desktop is not running now. It appears here, live, when the agent uses it."}
          {lastChange && lastChange.startsWith("The desktop stopped") && <span className="desktop-last-change"> {lastChange}.</span>}
        </span>
      </EmptyState>
    );
  }
  if (view === "disconnected") {
    return (
      <EmptyState
        icon="▣"
        title="Disconnected from the desktop"
        action={
          <button type="button" className="btn" onClick={onReconnect} data-testid="desktop-reconnect">
            Reconnect
          </button>
        }
      >
        <span data-testid="desktop-message">{closedReason}</span>
      </EmptyState>
    );
  }
  return (
    <div className="row muted small" role="status" data-testid="desktop-connecting">
      <span className="spinner" aria-hidden="true" /> Connecting to the desktop…
    </div>
  );
}
