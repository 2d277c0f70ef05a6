// One pod's output as watchers see it: every byte goes through a headless
// xterm on the server (so a newcomer gets the current screen and scrollback as
// a snapshot), then out to listeners in order with a sequence number. A
// chunk is handed to listeners only after the headless terminal has parsed it,
// so a snapshot taken between two chunks is exactly the screen after the
// first one, and live data continues with the second.
import * as headlessModule from "@xterm/headless";
import * as serializeModule from "@xterm/addon-serialize";
import type { Terminal as HeadlessTerminal } from "@xterm/headless";
import type { SerializeAddon as SerializeAddonType } from "@xterm/addon-serialize";
import { MarkerScanner, type TerminalPod } from "@/server/compute";
import { TERMINAL_SIZE } from "./terminal-protocol";
import { ControlSequenceCap } from "./terminal-sanitize";

// Both packages are CommonJS bundles: Node's ES module loader exposes them as
// the default export, tsx and Vitest as named exports.
const pick = <T>(mod: unknown, name: string): T => {
  const m = mod as Record<string, unknown> & { default?: Record<string, unknown> };
  return (m[name] ?? m.default?.[name]) as T;
};
const Terminal = pick<typeof HeadlessTerminal>(headlessModule, "Terminal");
const SerializeAddon = pick<typeof SerializeAddonType>(serializeModule, "SerializeAddon");

export const SCROLLBACK_LINES = 2000;
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
 * Output not yet parsed by the headless terminal. The pod is read on the same
 * event loop that parses, so this stays small; the cap only keeps a stalled
 * loop from growing memory (xterm itself refuses more than 50 MB).
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

export class PodStream {
  readonly podId: string;
  private readonly term: HeadlessTerminal;
  private readonly serializer: SerializeAddonType;
  private readonly scanner = new MarkerScanner();
  /** Every byte goes through it first: what the headless terminal parses and what watchers get are the same capped bytes. */
  private readonly cap = new ControlSequenceCap(() => ({ cols: this.cols, rows: this.rows }));
  private readonly dataListeners = new Set<(seq: number, data: string) => void>();
  private readonly sizeListeners = new Set<(cols: number, rows: number) => void>();
  private readonly replyListeners = new Set<(reply: string) => void>();
  private readonly offPod: Array<() => void> = [];
  private pending: string[] = [];
  private pendingChars = 0;
  private flushTimer: NodeJS.Timeout | null = null;
  private flushImmediate: NodeJS.Immediate | null = null;
  private backlog = 0;
  private skipped = 0;
  private parsedSeq: number;
  private disposed = false;
  /** Replayed output still being parsed. */
  private replaying = 0;
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
  ) {
    this.podId = pod.id;
    this.parsedSeq = startSeq;
    this.term = new Terminal({ cols: this.cols, rows: this.rows, scrollback: SCROLLBACK_LINES, allowProposedApi: true });
    this.serializer = new SerializeAddon();
    this.term.loadAddon(this.serializer);
    // The terminal's answers to programs' queries (cursor position, device attributes);
    // a query in replayed output was answered when it was printed, so not again.
    this.term.onData((reply) => this.replaying === 0 && this.replyListeners.forEach((l) => l(reply)));
    pod.resize(this.cols, this.rows);
    // What the pod printed before this stream existed (a warm pod's first prompt) comes first.
    let before = true;
    this.offPod.push(
      pod.onData(
        (raw) => {
          const chunk = this.cap.push(raw);
          if (!chunk) return;
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

  private replay(chunk: string) {
    this.scan(chunk);
    const seq = this.nextSeq();
    this.replaying++;
    this.term.write(chunk, () => {
      this.replaying--;
      this.parsedSeq = seq;
      if (!this.disposed) this.dataListeners.forEach((l) => l(seq, chunk));
    });
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
    const seq = this.nextSeq();
    this.backlog += data.length;
    this.term.write(data, () => {
      this.backlog -= data.length;
      // A value that cursor movements put together on the screen is covered in the same message, before any watcher draws it.
      const cover = this.coverSecrets();
      if (cover) this.term.write(cover);
      this.parsedSeq = seq;
      if (!this.disposed) this.dataListeners.forEach((l) => l(seq, data + cover));
    });
  }

  /** Escape sequences that overwrite every secret value visible on the screen with its [secret:NAME] marker, or "". */
  private coverSecrets(): string {
    const forms = this.pod.secretForms?.() ?? [];
    if (forms.length === 0 || this.disposed) return "";
    const buffer = this.term.buffer.active;
    let cover = "";
    for (let y = 0; y < this.term.rows; y++) {
      const line = buffer.getLine(buffer.viewportY + y)?.translateToString(false) ?? "";
      for (const { form, name } of forms) {
        for (let x = line.indexOf(form); x >= 0; x = line.indexOf(form, x + form.length)) {
          const marker = `[secret:${name}]`;
          const text = marker.length <= form.length ? marker.padEnd(form.length, " ") : "*".repeat(form.length);
          cover += `\u001b[${y + 1};${x + 1}H${text}`;
        }
      }
    }
    return cover ? `\u001b7${cover}\u001b8` : "";
  }

  /** The screen after every chunk handed out so far (asynchronous: waits for the parser). */
  snapshot(callback: (screen: Screen) => void) {
    if (this.disposed) return;
    this.flush();
    this.term.write("", () => {
      if (!this.disposed) callback(this.serializeNow());
    });
  }

  private serializeNow(): Screen {
    // The screen is rows of what was drawn: a value that cursor movements put together shows here as one, and is redacted.
    const data = this.serializer.serialize({ scrollback: SCROLLBACK_LINES });
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
    this.term.write("", () => {
      if (this.disposed) return;
      this.term.resize(size.cols, size.rows);
      this.sizeListeners.forEach((l) => l(size.cols, size.rows));
    });
  }

  /** The last lines of the screen as plain text (for the note to the agent). */
  tail(lines: number): string {
    const buffer = this.term.buffer.active;
    const end = buffer.baseY + buffer.cursorY;
    const out: string[] = [];
    for (let y = Math.max(0, end - lines + 1); y <= end; y++) {
      const line = buffer.getLine(y);
      if (!line) continue;
      const text = line.translateToString(true);
      if (line.isWrapped && out.length) out[out.length - 1] += text;
      else out.push(text);
    }
    const text = out.join("\n").replace(/\n+$/, "");
    return this.pod.redactScreen?.(text) ?? text;
  }

  /** Parses what is left, then hands back the final screen and frees the terminal. */
  finish(callback: (screen: Screen) => void) {
    if (this.disposed) return;
    this.flush();
    this.offPod.forEach((off) => off());
    this.term.write("", () => {
      const screen = this.serializeNow();
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
    this.cancelFlush();
    this.pending = [];
    this.term.dispose();
  }
}
