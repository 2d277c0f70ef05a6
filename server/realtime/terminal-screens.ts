// The screens of every pod stream, behind one message interface: requests
// are handled strictly in order and answered in order, so a stream's chunks,
// snapshots and resizes keep the order they were asked in. The same host
// runs on the terminal worker thread (terminal-worker.ts).
//
// A screen whose emulator throws is replaced by a fresh one (same size) and
// the watchers are told, instead of the terminal going blind for the rest of
// the run (docs/terminal-and-files.md#when-the-terminal-is-reset).
import { ControlSequenceCap } from "./terminal-sanitize";
import { TerminalScreen, type SecretForm } from "./terminal-screen";

export type ScreenRequest =
  | { op: "open"; id: string; cols: number; rows: number }
  | { op: "write"; id: string; data: string; forms: SecretForm[]; quiet: boolean }
  | { op: "resize"; id: string; cols: number; rows: number }
  | { op: "snapshot"; id: string }
  | { op: "tail"; id: string; lines: number }
  | { op: "close"; id: string };

export interface WriteResult {
  /**
   * What watchers are sent: the capped output, a repaint that covers a secret, or a reset and its note;
   * absent when it is the output as it was sent (most of the time: it is not copied back).
   */
  data?: string;
  /** Why the screen was reset, if it was. */
  reset?: string;
}

export interface ScreenReply {
  id: string;
  reply: string;
}

/** What a watcher's terminal is sent when the screen was reset: it resets too, then reads the note. */
export const RESET_NOTE =
  "\u001bc\u001b[0m[Rein: this terminal's screen was reset because the output that came next could not be shown; what the program prints from now on is shown as usual]\r\n";

interface Entry {
  screen: TerminalScreen;
  cap: ControlSequenceCap;
}

export class ScreenHost {
  private readonly screens = new Map<string, Entry>();

  constructor(private readonly onReply: (reply: ScreenReply) => void) {}

  handle(req: ScreenRequest): unknown {
    if (req.op === "open") {
      this.screens.get(req.id)?.screen.dispose();
      this.screens.set(req.id, this.open(req.id, req.cols, req.rows));
      return null;
    }
    const entry = this.screens.get(req.id);
    if (!entry) return req.op === "write" ? { data: "" } : req.op === "snapshot" || req.op === "tail" ? "" : null;
    try {
      switch (req.op) {
        case "write": {
          const data = entry.cap.push(req.data);
          entry.screen.quiet = req.quiet;
          try {
            const out = data && entry.screen.write(data, req.forms);
            return (out === req.data ? {} : { data: out }) satisfies WriteResult;
          } finally {
            entry.screen.quiet = false;
          }
        }
        case "resize":
          entry.screen.resize(req.cols, req.rows);
          return null;
        case "snapshot":
          return entry.screen.serialize();
        case "tail":
          return entry.screen.tail(req.lines);
        case "close":
          this.screens.delete(req.id);
          entry.screen.dispose();
          return null;
      }
    } catch (err) {
      const reset = this.reset(req.id, entry, err);
      if (req.op === "write") return { data: RESET_NOTE, reset } satisfies WriteResult;
      return req.op === "snapshot" ? (this.screens.get(req.id)?.screen.serialize() ?? "") : req.op === "tail" ? "" : null;
    }
  }

  private open(id: string, cols: number, rows: number): Entry {
    const entry: Entry = {
      screen: new TerminalScreen(cols, rows, (reply) => this.onReply({ id, reply })),
      cap: new ControlSequenceCap(() => entry.screen),
    };
    return entry;
  }

  private reset(id: string, entry: Entry, err: unknown): string {
    const { cols, rows } = entry.screen;
    try {
      entry.screen.dispose();
    } catch {
      // It is being replaced because it is broken.
    }
    const fresh = this.open(id, cols, rows);
    this.screens.set(id, fresh);
    fresh.screen.write(RESET_NOTE, []);
    return err instanceof Error ? `${err.name}: ${err.message}`.slice(0, 300) : "the terminal emulator failed";
  }
}

/** The host on this thread, answering on the next turn of the event loop (tests, and a server that could not start its worker). */
export class LocalScreens {
  private readonly host = new ScreenHost((r) => this.replies.get(r.id)?.(r.reply));
  private readonly replies = new Map<string, (reply: string) => void>();
  private readonly queue: Array<{ req: ScreenRequest; resolve(value: unknown): void }> = [];
  private scheduled = false;

  request<T>(req: ScreenRequest): Promise<T> {
    return new Promise((resolve) => {
      this.queue.push({ req, resolve: resolve as (value: unknown) => void });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.drain());
      }
    });
  }

  onReply(id: string, listener: (reply: string) => void) {
    this.replies.set(id, listener);
    return () => this.replies.delete(id);
  }

  private drain() {
    // A few milliseconds at a time, so that other work on this thread goes on between.
    const until = performance.now() + 8;
    for (let job = this.queue.shift(); job; job = this.queue.shift()) {
      job.resolve(this.host.handle(job.req));
      if (performance.now() > until) break;
    }
    this.scheduled = this.queue.length > 0;
    if (this.scheduled) setImmediate(() => this.drain());
  }
}

export type ScreenChannel = Pick<LocalScreens, "request" | "onReply">;
