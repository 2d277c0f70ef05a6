// One headless terminal and what is done to it: parse output, answer
// programs' queries, serialize the screen, read its last lines. Synchronous
// and self-contained so it can run on a worker thread (terminal-worker.ts);
// an error from the emulator surfaces as a thrown error from write(), never
// from a timer of its own (docs/security.md#terminal-output-cannot-stall-the-server).
//
// Secrets: a value that cursor moves, overwrites or wrapping put together on
// the screen is found in the cells after each slice of output, overwritten
// there with its [secret:NAME] marker, and the watchers get a repaint of the
// covered screen instead of the raw output that assembled it
// (docs/security.md#a-secret-put-together-on-the-screen-is-never-sent-in-pieces).
import * as headlessModule from "@xterm/headless";
import * as serializeModule from "@xterm/addon-serialize";
import type { Terminal as HeadlessTerminal, IBufferCell } from "@xterm/headless";
import type { SerializeAddon as SerializeAddonType } from "@xterm/addon-serialize";

// Both packages are CommonJS bundles: Node's ES module loader exposes them as
// the default export, tsx and Vitest as named exports.
const pick = <T>(mod: unknown, name: string): T => {
  const m = mod as Record<string, unknown> & { default?: Record<string, unknown> };
  return (m[name] ?? m.default?.[name]) as T;
};
const Terminal = pick<typeof HeadlessTerminal>(headlessModule, "Terminal");
const SerializeAddon = pick<typeof SerializeAddonType>(serializeModule, "SerializeAddon");

export const SCROLLBACK_LINES = 2000;
/**
 * Output is parsed in slices this long when secrets are known: a slice cannot
 * scroll more lines than it has characters, so a value it puts together is
 * still in the buffer (scrollback > slice) when the slice's lines are checked.
 */
const SLICE = 1024;

export interface SecretForm {
  form: string;
  name: string;
}

/** The internals written to when covering a value: cells are not writable through xterm's public API. */
interface CoreLine {
  loadCell(x: number, cell: unknown): unknown;
  setCellFromCodepoint(x: number, codePoint: number, width: number, attrs: unknown): void;
}
interface Core {
  writeSync(data: string): void;
  buffer: { lines: { get(y: number): CoreLine | undefined }; getNullCell(): unknown; scrollTop: number; scrollBottom: number };
}

/**
 * Output that only prints characters and moves the cursor right, down or to
 * the start of its line (no escape sequence, no C1 control, no backspace):
 * it cannot change a line above the cursor's, so only the cursor's logical
 * line and those below it are read for a value it may have put together.
 */
const PLAIN = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]*$/;

export class TerminalScreen {
  private readonly term: HeadlessTerminal;
  private readonly serializer: SerializeAddonType;
  private readonly core: Core;
  /** Replies are passed on only while this is false (replayed output was answered when it was printed). */
  quiet = false;

  constructor(cols: number, rows: number, onReply: (reply: string) => void) {
    this.term = new Terminal({ cols, rows, scrollback: SCROLLBACK_LINES, allowProposedApi: true, logLevel: "off" });
    this.serializer = new SerializeAddon();
    this.term.loadAddon(this.serializer);
    this.core = (this.term as unknown as { _core: Core })._core;
    this.term.onData((reply) => this.quiet || onReply(reply));
  }

  get cols() {
    return this.term.cols;
  }

  get rows() {
    return this.term.rows;
  }

  /**
   * Parses `data` now and returns what watchers are to be sent: `data` itself,
   * or, when it put a secret value on the screen, a repaint of the covered
   * screen. Throws if the emulator fails; the caller replaces this screen.
   */
  write(data: string, secrets: readonly SecretForm[]): string {
    // An empty form would match everywhere, forever.
    const forms = secrets.filter((f) => f.form.length > 0);
    if (forms.length === 0) {
      this.core.writeSync(data);
      return data;
    }
    let covered = false;
    for (let at = 0; at < data.length; at += SLICE) {
      const buffer = this.term.buffer.active;
      const slice = data.slice(at, at + SLICE);
      // Where the lines the slice can change begin: the cursor's line for plain output on a screen
      // that scrolls whole (a scroll region would bring a wrapped row next to another line), else
      // the top of the screen.
      const plain = this.core.buffer.scrollTop === 0 && this.core.buffer.scrollBottom === this.term.rows - 1 && PLAIN.test(slice);
      const top = this.term.registerMarker(plain ? 0 : -buffer.cursorY);
      this.core.writeSync(slice);
      // A slice that cleared the scrollback (or the whole terminal) is repainted, whatever it drew.
      const from = top && !top.isDisposed && top.line >= 0 ? top.line : -1;
      top?.dispose();
      if (this.cover(Math.max(0, from), forms) || from < 0) covered = true;
    }
    return covered ? `\u001bc${this.serialize()}` : data;
  }

  /** Overwrites every secret value in the lines from `from` on with its marker; true if there was one. */
  private cover(from: number, forms: readonly SecretForm[]): boolean {
    const buffer = this.term.buffer.active;
    let found = false;
    let y = from;
    // Back over wrapped rows as far as the longest value reaches: it may run across the wrap.
    const reach = Math.ceil(Math.max(...forms.map((f) => f.form.length)) / this.term.cols) + 1;
    for (let back = 0; back < reach && y > 0 && buffer.getLine(y)?.isWrapped; back++) y--;
    while (y < buffer.length) {
      // One logical line: a row and the rows wrapped from it.
      const first = y;
      let text = buffer.getLine(y++)?.translateToString(false) ?? "";
      while (y < buffer.length && buffer.getLine(y)?.isWrapped) text += buffer.getLine(y++)?.translateToString(false) ?? "";
      if (!forms.some(({ form }) => text.includes(form))) continue;
      const cells = this.cellsOf(first, y);
      text = cells.text;
      for (const { form, name } of forms) {
        for (let i = text.indexOf(form); i >= 0; i = text.indexOf(form, i + form.length)) {
          found = true;
          this.overwrite(cells.at.slice(i, i + form.length), `[secret:${name}]`);
        }
      }
    }
    return found;
  }

  /** The text of rows [from, to) and the cell of each of its characters. */
  private cellsOf(from: number, to: number): { text: string; at: Array<[number, number]> } {
    const buffer = this.term.buffer.active;
    let text = "";
    const at: Array<[number, number]> = [];
    let cell: IBufferCell | undefined;
    for (let y = from; y < to; y++) {
      const line = buffer.getLine(y);
      for (let x = 0; line && x < line.length; x++) {
        cell = line.getCell(x, cell);
        if (!cell || cell.getWidth() === 0) continue;
        const chars = cell.getChars() || " ";
        text += chars;
        for (let k = 0; k < chars.length; k++) at.push([y, x]);
      }
    }
    return { text, at };
  }

  private overwrite(positions: Array<[number, number]>, marker: string) {
    const unique = positions.filter(([y, x], k) => k === 0 || positions[k - 1][0] !== y || positions[k - 1][1] !== x);
    const text = marker.length <= unique.length ? marker.padEnd(unique.length, " ") : "*".repeat(unique.length);
    const attrs = this.core.buffer.getNullCell();
    unique.forEach(([y, x], k) => {
      const line = this.core.buffer.lines.get(y);
      if (!line) return;
      line.loadCell(x, attrs);
      line.setCellFromCodepoint(x, text.charCodeAt(k), 1, attrs);
    });
  }

  serialize(): string {
    return this.serializer.serialize({ scrollback: SCROLLBACK_LINES });
  }

  resize(cols: number, rows: number) {
    this.term.resize(cols, rows);
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
    return out.join("\n").replace(/\n+$/, "");
  }

  dispose() {
    this.term.dispose();
  }
}
