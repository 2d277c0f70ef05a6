// The browser side of a run's live terminal: an xterm.js terminal fed from
// the "/terminal" socket. Everything the server sends is applied in order
// (reset, resize, write) and each chunk is acknowledged once xterm has written
// it, which is what the server's flow control counts. Keystrokes go out only
// while this person controls the terminal; the server checks again. Size: the
// person in control sizes the pod to their panel; a watcher's screen follows
// its own panel and xterm re-wraps the stream (the pod keeps its size).
import type { Terminal } from "@xterm/xterm";
import type { FitAddon } from "@xterm/addon-fit";
import { connectTerminalSocket, type ControlReply, type TerminalController, type TerminalSocket } from "@/lib/terminal-socket";
import { socketErrorMessage } from "@/lib/socket";
import { onThemeChange, themeColor } from "@/components/theme";
import { TERMINAL_FONT, terminalTheme } from "@/lib/terminal-theme";

export type TerminalConnection = "connecting" | "live" | "reconnecting" | "error";

export interface TerminalView {
  connection: TerminalConnection;
  /** Why the terminal cannot be shown (connection refused, run not found). */
  error: string | null;
  /** The attach reply arrived. */
  attached: boolean;
  podId: string | null;
  controller: TerminalController | null;
  /** With a controller: the run has paused and they may type. */
  ready: boolean;
  canControl: boolean;
  /** The terminal shows something (a live screen or the last one of an ended terminal). */
  hasScreen: boolean;
  /** Why the terminal ended, while its last screen is shown. */
  endedReason: string | null;
  /** The pod's terminal size (what the agent's commands see). */
  cols: number;
  rows: number;
  /** What this screen shows: the pod's size for the person in control, else fitted to the panel. */
  screenCols: number;
  screenRows: number;
}

export const INITIAL_VIEW: TerminalView = {
  connection: "connecting",
  error: null,
  attached: false,
  podId: null,
  controller: null,
  ready: false,
  canControl: false,
  hasScreen: false,
  endedReason: null,
  cols: 120,
  rows: 32,
  screenCols: 120,
  screenRows: 32,
};

export class TerminalClient {
  private term: Terminal | null = null;
  private fitAddon: FitAddon | null = null;
  private socket: TerminalSocket | null = null;
  private view: TerminalView = INITIAL_VIEW;
  private readonly ops: Array<() => void | Promise<void>> = [];
  private draining = false;
  private disposed = false;
  private userId: string | null = null;
  private resizeTimer: ReturnType<typeof setTimeout> | null = null;
  private observer: ResizeObserver | null = null;
  private stopThemeWatch: (() => void) | null = null;

  constructor(
    private readonly runId: string,
    private readonly onView: (view: TerminalView) => void,
    private readonly onNotice: (message: string) => void,
  ) {}

  /** Who is signed in: their keystrokes are sent only while they control the terminal. */
  setUser(userId: string | null) {
    this.userId = userId;
    this.syncInput();
  }

  get controlling() {
    return !!this.userId && this.view.controller?.id === this.userId;
  }

  private update(patch: Partial<TerminalView>) {
    this.view = { ...this.view, ...patch };
    this.syncInput();
    if (!this.disposed) this.onView(this.view);
  }

  /** Loads xterm (browser only), opens it in `host` and connects. */
  async mount(host: HTMLElement, viewport: HTMLElement) {
    const [{ Terminal }, { FitAddon }] = await Promise.all([import("@xterm/xterm"), import("@xterm/addon-fit")]);
    if (this.disposed) return;
    const term = new Terminal({
      cols: this.view.cols,
      rows: this.view.rows,
      scrollback: 5000,
      fontFamily: TERMINAL_FONT,
      fontSize: 13,
      lineHeight: 1.15,
      theme: terminalTheme(themeColor),
      cursorBlink: false,
      disableStdin: true,
      allowProposedApi: true,
      macOptionIsMeta: true,
    });
    this.fitAddon = new FitAddon();
    term.loadAddon(this.fitAddon);
    term.open(host);
    term.onData((data) => this.send(data));
    this.term = term;
    this.observer = new ResizeObserver(() => this.scheduleFit());
    this.observer.observe(viewport);
    this.stopThemeWatch = onThemeChange(() => {
      if (this.term) this.term.options.theme = terminalTheme(themeColor);
    });
    this.connect();
  }

  private connect() {
    const socket = connectTerminalSocket();
    this.socket = socket;
    const runId = this.runId;
    socket.on("connect", () => {
      // On every (re)connect: attach again; the snapshot that follows restores the screen.
      const size = this.controlling ? this.proposedSize() : null;
      socket.emit("attach", { runId, ...(size ?? {}) }, (reply) => {
        if (!reply.ok) return this.update({ attached: true, connection: "error", error: reply.error });
        this.update({
          attached: true,
          connection: "live",
          error: null,
          podId: reply.podId,
          controller: reply.controller,
          canControl: reply.canControl,
          ready: reply.controller ? this.view.ready : false,
        });
      });
    });
    socket.on("disconnect", () => this.update({ connection: this.view.connection === "error" ? "error" : "reconnecting" }));
    socket.on("connect_error", (err) => {
      if (socket.active) this.update({ connection: "reconnecting" });
      else this.update({ connection: "error", error: socketErrorMessage(err), attached: true });
    });
    socket.on("snapshot", (m) => {
      if (m.runId !== runId) return;
      this.update({ podId: m.podId, hasScreen: true, endedReason: null, cols: m.cols, rows: m.rows });
      this.enqueue(() => this.replace(m.cols, m.rows, m.data));
    });
    socket.on("ended", (m) => {
      if (m.runId !== runId) return;
      this.update({ hasScreen: true, endedReason: m.reason, cols: m.cols, rows: m.rows });
      this.enqueue(() => this.replace(m.cols, m.rows, m.data));
    });
    socket.on("data", (m) => {
      if (m.runId !== runId) return;
      this.enqueue(async () => {
        await this.write(m.data);
        socket.emit("ack", { runId, seq: m.seq });
      });
    });
    socket.on("resize", (m) => {
      if (m.runId !== runId) return;
      this.update({ cols: m.cols, rows: m.rows });
      this.enqueue(() => this.fitScreen());
    });
    socket.on("status", (m) => {
      if (m.runId !== runId) return;
      const wasControlling = this.controlling;
      this.update({
        podId: m.podId,
        controller: m.controller,
        ready: !!m.controller && !!m.ready,
        endedReason: m.podId
          ? null
          : m.reason?.startsWith("The terminal ended")
            ? m.reason
            : (this.view.endedReason ?? "The terminal ended"),
      });
      this.scheduleFit();
      if (this.controlling && this.view.ready) {
        this.term?.focus();
      } else if (wasControlling && !this.controlling) {
        this.term?.blur();
      }
    });
  }

  private syncInput() {
    if (this.term) this.term.options.disableStdin = !(this.controlling && this.view.ready);
    if (this.term) this.term.options.cursorBlink = this.controlling && this.view.ready;
  }

  private send(data: string) {
    if (!this.controlling || !this.view.ready || !this.socket?.connected) return;
    this.socket.emit("input", { runId: this.runId, data }, (reply) => {
      if (!reply.ok) this.onNotice(reply.error);
    });
  }

  // ---- ordered terminal operations ----

  private enqueue(op: () => void | Promise<void>) {
    this.ops.push(op);
    if (!this.draining) void this.drain();
  }

  private async drain() {
    this.draining = true;
    while (this.ops.length && !this.disposed) {
      try {
        await this.ops.shift()!();
      } catch {
        /* one bad chunk must not stop the terminal */
      }
    }
    this.draining = false;
  }

  private write(data: string) {
    return new Promise<void>((resolve) => {
      if (!this.term || this.disposed) return resolve();
      this.term.write(data, resolve);
    });
  }

  /** A whole screen at the pod's size, then re-wrapped to this screen's. */
  private async replace(cols: number, rows: number, data: string) {
    if (!this.term) return;
    this.term.reset();
    this.term.resize(cols, rows);
    await this.write(data);
    this.fitScreen();
  }

  // ---- size: the pod's size drives every viewer; the controller's window drives the pod ----

  private proposedSize(): { cols: number; rows: number } | null {
    const dims = this.fitAddon?.proposeDimensions();
    if (!dims || !Number.isFinite(dims.cols) || !Number.isFinite(dims.rows) || dims.cols < 2 || dims.rows < 2) return null;
    return { cols: dims.cols, rows: dims.rows };
  }

  /** The person in control types into the pod: their screen is the pod's size. A watcher's fits its panel. */
  private screenSize(): { cols: number; rows: number } {
    const pod = { cols: this.view.cols, rows: this.view.rows };
    if (this.controlling && this.view.ready) return pod;
    return this.proposedSize() ?? pod;
  }

  private fitScreen() {
    const term = this.term;
    if (!term || this.disposed) return;
    const size = this.screenSize();
    if (term.cols !== size.cols || term.rows !== size.rows) term.resize(size.cols, size.rows);
    if (term.cols !== this.view.screenCols || term.rows !== this.view.screenRows)
      this.update({ screenCols: term.cols, screenRows: term.rows });
  }

  private scheduleFit() {
    if (this.resizeTimer) clearTimeout(this.resizeTimer);
    this.resizeTimer = setTimeout(() => {
      this.resizeTimer = null;
      // In order with what is being written: a resize between two chunks would split a line differently.
      this.enqueue(() => this.fitScreen());
      if (!this.controlling || !this.view.ready || !this.socket?.connected) return;
      const size = this.proposedSize();
      if (size && (size.cols !== this.view.cols || size.rows !== this.view.rows))
        this.socket.emit("resize", { runId: this.runId, ...size });
    }, 120);
  }

  // ---- take over ----

  private control(event: "takeover" | "handback"): Promise<ControlReply> {
    const socket = this.socket;
    if (!socket?.connected) return Promise.resolve({ ok: false, error: "Not connected to the terminal; reconnecting…" });
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ ok: false, error: "The server did not answer; try again" }), 15_000);
      socket.emit(event, { runId: this.runId }, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
    });
  }

  takeover() {
    return this.control("takeover");
  }

  handback() {
    return this.control("handback");
  }

  focus() {
    this.term?.focus();
  }

  dispose() {
    this.disposed = true;
    if (this.resizeTimer) clearTimeout(this.resizeTimer);
    this.observer?.disconnect();
    this.stopThemeWatch?.();
    this.socket?.removeAllListeners();
    this.socket?.disconnect();
    this.term?.dispose();
    this.ops.length = 0;
  }
}
