// One pod's output as watchers see it: every byte goes through a headless
// xterm on the server (so a newcomer gets the current screen and scrollback as
// a snapshot), then out to listeners in order with a sequence number. A
// chunk is handed to listeners only after the headless terminal has parsed it,
// so a snapshot taken between two chunks is exactly the screen after the
// first one, and live data continues with the second. The headless terminals
// run on a worker thread (terminal-worker.ts): what a pod prints never costs
// the server's event loop more than passing it on (docs/security.md#terminal-output-cannot-stall-the-server).
import { MarkerScanner, type TerminalPod } from "@/server/compute";
import { TERMINAL_SIZE } from "./terminal-protocol";
import { SCROLLBACK_LINES } from "./terminal-screen";
import type { ScreenChannel, WriteResult } from "./terminal-screens";
import { WorkerScreens } from "./terminal-worker-client";

export { SCROLLBACK_LINES };
/** Pods start at this size (server/compute); the stream sets it again so both agree. */
export const DEFAULT_COLS = 120;
export const DEFAULT_ROWS = 32;
/** Output is coalesced into chunks of at most this many characters. */
const MAX_CHUNK = 64 * 1024;
/**
 * Output arrives in reads of at most 4095 bytes (a Linux PTY's). Parsing and
 * sending each on its own costs more than its bytes do. A full read means the
 * program prints faster than it is read, so more follows: it waits up to
 * FLUSH_MS for the rest (or MAX_CHUNK). A shorter read means the program has
 * paused (an echoed keystroke, a prompt, the end of a command's output): what
 * is pending goes out at the end of the event loop's turn, without waiting.
 */
const FULL_READ_BYTES = 4095;
const FLUSH_MS = 4;
/**
 * Output sent to the worker thread and not yet parsed there. Past this the
 * worker has fallen behind: output is skipped (and the watchers told) rather
 * than queued without bound.
 */
const MAX_BACKLOG = 16 * 1024 * 1024;

export interface Screen {
  data: string;
  seq: number;
  cols: number;
  rows: number;
}

export function clampSize(cols: number, rows: number): { cols: number; rows: number } {
  const c = Math.round(Number.isFinite(cols) ? cols : DEFAULT_COLS);
  const r = Math.round(Number.isFinite(rows) ? rows : DEFAULT_ROWS);
  return {
    cols: Math.min(TERMINAL_SIZE.maxCols, Math.max(TERMINAL_SIZE.minCols, c)),
    rows: Math.min(TERMINAL_SIZE.maxRows, Math.max(TERMINAL_SIZE.minRows, r)),
  };
}

let streams = 0;
let defaultChannel: ScreenChannel | null = null;
/** Where streams' screens live unless a stream is given its own: the terminal worker thread, started on first use. */
export function terminalScreens(): ScreenChannel {
  return (defaultChannel ??= new WorkerScreens());
}

export class PodStream {
  readonly podId: string;
  /** This stream's screen in the channel. */
  private readonly id: string;
  private readonly screens: ScreenChannel;
  private readonly scanner = new MarkerScanner();
  private readonly dataListeners = new Set<(seq: number, data: string) => void>();
  private readonly sizeListeners = new Set<(cols: number, rows: number) => void>();
  private readonly replyListeners = new Set<(reply: string) => void>();
  private readonly resetListeners = new Set<(reason: string) => void>();
  private readonly offPod: Array<() => void> = [];
  private pending: string[] = [];
  private pendingChars = 0;
  private flushTimer: NodeJS.Timeout | null = null;
  private flushImmediate: NodeJS.Immediate | null = null;
  private backlog = 0;
  private skipped = 0;
  private parsedSeq: number;
  private disposed = false;
  /** The last lines of the screen as it ended, for a note made after the stream is gone. */
  private finalTail = "";
  /** The shell is at its prompt (its last marker was "command ended"), not running a command. */
  atPrompt = true;
  /** Why the pod exited, once it has. */
  exitReason: string | null = null;
  cols = DEFAULT_COLS;
  rows = DEFAULT_ROWS;

  constructor(
    readonly pod: TerminalPod,
    /** Numbers output chunks; the run's numbering continues across its pods. */
    private readonly nextSeq: () => number,
    startSeq: number,
    onExit: (reason: string) => void,
    screens?: ScreenChannel,
  ) {
    this.podId = pod.id;
    this.id = `${pod.id}#${++streams}`;
    this.parsedSeq = startSeq;
    this.screens = screens ?? terminalScreens();
    void this.screens.request({ op: "open", id: this.id, cols: this.cols, rows: this.rows });
    // The terminal's answers to programs' queries (cursor position, device attributes);
    // a query in replayed output was answered when it was printed, so not again.
    this.offPod.push(this.screens.onReply(this.id, (reply) => this.disposed || this.replyListeners.forEach((l) => l(reply))));
    pod.resize(this.cols, this.rows);
    // What the pod printed before this stream existed (a warm pod's first prompt) comes first.
    let before = true;
    this.offPod.push(
      pod.onData(
        (chunk) => {
          if (before) this.replay(chunk);
          else this.push(chunk);
        },
        { replay: true },
      ),
    );
    before = false;
    this.offPod.push(
      pod.onExit(({ reason }) => {
        this.exitReason = reason;
        onExit(reason);
      }),
    );
  }

  onData(listener: (seq: number, data: string) => void) {
    this.dataListeners.add(listener);
    return () => this.dataListeners.delete(listener);
  }

  /** What a terminal sends back when a program asks it something (e.g. ESC [6n). */
  onReply(listener: (reply: string) => void) {
    this.replyListeners.add(listener);
    return () => this.replyListeners.delete(listener);
  }

  onResize(listener: (cols: number, rows: number) => void) {
    this.sizeListeners.add(listener);
    return () => this.sizeListeners.delete(listener);
  }

  /** The screen could not show some output and was replaced by a fresh one (the reason, for the run's log). */
  onReset(listener: (reason: string) => void) {
    this.resetListeners.add(listener);
    return () => this.resetListeners.delete(listener);
  }

  private forms() {
    return [...(this.pod.secretForms?.() ?? [])];
  }

  /** Parses `data` on the screen, then hands what watchers get to the listeners, in order. */
  private parse(data: string, quiet: boolean, done?: () => void) {
    const seq = this.nextSeq();
    void this.screens.request<WriteResult>({ op: "write", id: this.id, data, forms: this.forms(), quiet }).then((result) => {
      done?.();
      this.parsedSeq = seq;
      if (this.disposed) return;
      if (result.reset) this.resetListeners.forEach((l) => l(result.reset as string));
      const out = result.data ?? data;
      this.dataListeners.forEach((l) => l(seq, out));
    });
  }

  private replay(chunk: string) {
    this.scan(chunk);
    this.parse(chunk, true);
  }

  private scan(chunk: string) {
    for (const piece of this.scanner.push(chunk)) {
      if (!("text" in piece)) this.atPrompt = piece.kind === "end";
    }
  }

  private push(chunk: string) {
    if (this.disposed) return;
    this.scan(chunk);
    this.pending.push(chunk);
    this.pendingChars += chunk.length;
    if (this.pendingChars >= MAX_CHUNK) return this.flush();
    if (chunk.length * 3 >= FULL_READ_BYTES && Buffer.byteLength(chunk) >= FULL_READ_BYTES) {
      this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS);
    } else {
      // Chunks read in one turn of the event loop go out as one message.
      this.flushImmediate ??= setImmediate(() => this.flush());
    }
  }

  private cancelFlush() {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    if (this.flushImmediate) clearImmediate(this.flushImmediate);
    this.flushTimer = null;
    this.flushImmediate = null;
  }

  private flush() {
    this.cancelFlush();
    if (this.disposed || this.pendingChars === 0) return;
    let data = this.pending.join("");
    this.pending = [];
    this.pendingChars = 0;
    if (this.backlog > MAX_BACKLOG) {
      this.skipped += data.length;
      return;
    }
    if (this.skipped) {
      data = `\r\n\u001b[0m[Rein: ${this.skipped} characters of output were skipped because the server fell behind]\r\n${data}`;
      this.skipped = 0;
    }
    const size = data.length;
    this.backlog += size;
    this.parse(data, false, () => (this.backlog -= size));
  }

  /** The screen after every chunk handed out so far (asynchronous: waits for the parser). */
  snapshot(callback: (screen: Screen) => void) {
    if (this.disposed) return;
    this.flush();
    void this.screens.request<string>({ op: "snapshot", id: this.id }).then((data) => {
      if (!this.disposed) callback(this.screen(data));
    });
  }

  private screen(data: string): Screen {
    // Values put together on the screen were covered in its cells; this catches one printed whole.
    return { data: this.pod.redactScreen?.(data) ?? data, seq: this.parsedSeq, cols: this.cols, rows: this.rows };
  }

  /** Resizes the pod now and the headless terminal in order with the output. */
  resize(cols: number, rows: number) {
    const size = clampSize(cols, rows);
    if (this.disposed || (size.cols === this.cols && size.rows === this.rows)) return;
    this.cols = size.cols;
    this.rows = size.rows;
    this.pod.resize(size.cols, size.rows);
    this.flush();
    void this.screens.request({ op: "resize", id: this.id, cols: size.cols, rows: size.rows }).then(() => {
      if (!this.disposed) this.sizeListeners.forEach((l) => l(size.cols, size.rows));
    });
  }

  /** The last lines of the screen as plain text (for the note to the agent). */
  async tail(lines: number): Promise<string> {
    const text = this.disposed ? this.finalTail : await this.screens.request<string>({ op: "tail", id: this.id, lines });
    return this.pod.redactScreen?.(text) ?? text;
  }

  /** Parses what is left, then hands back the final screen and frees the terminal. */
  finish(callback: (screen: Screen) => void) {
    if (this.disposed) return;
    this.flush();
    this.offPod.forEach((off) => off());
    void this.screens.request<string>({ op: "tail", id: this.id, lines: 30 }).then((text) => (this.finalTail = text));
    void this.screens.request<string>({ op: "snapshot", id: this.id }).then((data) => {
      const screen = this.screen(data);
      this.dispose();
      callback(screen);
    });
  }

  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    this.offPod.forEach((off) => off());
    this.dataListeners.clear();
    this.sizeListeners.clear();
    this.replyListeners.clear();
    this.resetListeners.clear();
    this.cancelFlush();
    this.pending = [];
    void this.screens.request({ op: "close", id: this.id });
  }
}
