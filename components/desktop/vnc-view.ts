// The browser side of a run's desktop: noVNC drawing the VNC websocket into a
// canvas, scaled to fit. noVNC is loaded only here, in the browser, when the
// tab first connects. The websocket is opened by this file (not by noVNC) so
// the server's close code and reason, which noVNC does not pass on, reach the
// tab. Input is sent only while this person controls the desktop; the server
// drops anyone else's anyway.
import type RFB from "@novnc/novnc";
import { VNC_CLOSE, vncUrl } from "@/lib/desktop-socket";

export type VncPhase = { phase: "idle" } | { phase: "connecting" } | { phase: "live" } | { phase: "closed"; code: number; reason: string };

let loading: Promise<typeof RFB> | null = null;
const loadRfb = () => (loading ??= import("@novnc/novnc").then((m) => m.default));

export class VncView {
  private rfb: RFB | null = null;
  /** Each connection's number: events of an older one are ignored. */
  private generation = 0;
  private viewOnly = true;

  constructor(
    private readonly host: HTMLElement,
    private readonly onPhase: (phase: VncPhase) => void,
  ) {}

  async connect(runId: string) {
    this.drop();
    const generation = this.generation;
    this.onPhase({ phase: "connecting" });
    let Rfb: typeof RFB;
    try {
      Rfb = await loadRfb();
    } catch (err) {
      loading = null;
      return this.onPhase({ phase: "closed", code: 0, reason: `The desktop viewer could not be loaded: ${(err as Error).message}` });
    }
    if (generation !== this.generation) return;
    const ws = new WebSocket(vncUrl(runId), ["binary"]);
    let closed: { code: number; reason: string } | null = null;
    ws.addEventListener("close", (e) => (closed = { code: e.code, reason: e.reason }));
    const rfb = new Rfb(this.host, ws, { shared: true });
    rfb.viewOnly = this.viewOnly;
    rfb.scaleViewport = true;
    rfb.resizeSession = false;
    rfb.background = "var(--code-bg)"; // noVNC sets it as the screen's CSS background
    rfb.addEventListener("connect", () => generation === this.generation && this.onPhase({ phase: "live" }));
    rfb.addEventListener("disconnect", () => {
      if (generation !== this.generation) return;
      this.rfb = null;
      this.onPhase({ phase: "closed", ...describeClose(closed) });
    });
    this.rfb = rfb;
  }

  setViewOnly(viewOnly: boolean) {
    this.viewOnly = viewOnly;
    if (this.rfb) this.rfb.viewOnly = viewOnly;
  }

  focus() {
    this.rfb?.focus({ preventScroll: true });
  }

  /** Closes the connection without reporting it (the tab was hidden, or reconnects). */
  disconnect() {
    this.drop();
    this.onPhase({ phase: "idle" });
  }

  dispose() {
    this.drop();
  }

  private drop() {
    this.generation++;
    const rfb = this.rfb;
    this.rfb = null;
    try {
      rfb?.disconnect();
    } catch {
      /* already closed */
    }
  }
}

function describeClose(closed: { code: number; reason: string } | null): { code: number; reason: string } {
  if (closed?.reason) return closed;
  const code = closed?.code ?? 1006;
  // A refused upgrade (not logged in, run not visible) reaches a browser only as 1006 without a reason.
  if (code === 1006) return { code, reason: "The connection to the desktop failed or was lost" };
  if (code === VNC_CLOSE.serverStopping) return { code, reason: "The server is restarting" };
  return { code, reason: "The desktop connection closed" };
}
