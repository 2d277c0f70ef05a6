// Redaction of a terminal's output on what a watcher would see
// (docs/security.md#a-secret-put-together-on-the-screen-is-never-sent-in-pieces):
// the text after control sequences are taken out. A value printed with colour
// codes, NULs, OSC titles or backspaces between its characters is still one
// value on the screen, so it is matched on the visible characters and its whole
// raw span becomes [secret:NAME] (the control sequences inside are kept, so the
// terminal's state is what the program set). A tail that may begin a value is
// held back until more output shows whether it does, for a bounded time; after
// it is let go, the matcher still remembers it, so the rest of a value printed
// in two halves is redacted all the same.
import { literalForms, redactor } from "./redact";
import type { NamedSecret } from "./types";

type Piece = { text: string } | { control: string; complete: boolean };

/** Longest control sequence kept whole; a longer one (an endless OSC) is passed on as it is. */
const MAX_CONTROL = 4096;

/** What ends a run of plain text: ESC and the invisible controls (not tab, line feed, carriage return). */
const SPECIAL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

type ParserState = "ground" | "escape" | "csi" | "string" | "string-esc" | "charset";

export class TerminalRedactor {
  private secrets: NamedSecret[] = [];
  private forms: Array<{ form: string; name: string }> = [];
  private longest = 0;
  private apply: (text: string) => string = (t) => t;
  private pending: Piece[] = [];
  private state: ParserState = "ground";
  /** Visible characters already let go (redacted ones as NUL), for values that straddle a release. */
  private sentTail = "";

  /**
   * @param releaseAt a control sequence after which nothing is held (the shell's end-of-command
   *   marker: a command that ended did not go on to print a value). Forging it lets go of a
   *   start of a value early, but the matcher remembers it, so the rest is still redacted.
   */
  constructor(
    secrets: NamedSecret[] = [],
    private readonly releaseAt?: (control: string) => boolean,
  ) {
    this.remember(secrets);
  }

  remember(secrets: NamedSecret[]): void {
    const fresh = secrets.filter((s) => s.value && !this.secrets.some((k) => k.name === s.name && k.value === s.value));
    if (fresh.length === 0) return;
    this.secrets = [...this.secrets, ...fresh];
    const forms = new Map<string, string>();
    for (const s of this.secrets) for (const f of literalForms(s.value)) if (f.length > 0 && !forms.has(f)) forms.set(f, s.name);
    // Longer forms first, so a value is not cut by a shorter form that is its prefix.
    this.forms = [...forms].map(([form, name]) => ({ form, name })).sort((a, b) => b.form.length - a.form.length);
    this.longest = Math.max(...this.forms.map((f) => f.form.length));
    this.apply = redactor(this.secrets);
  }

  /** The texts it hides (every form of every value) with their names, longest first. */
  knownForms(): ReadonlyArray<{ form: string; name: string }> {
    return this.forms;
  }

  get holding(): boolean {
    return this.pending.length > 0;
  }

  /** How many visible characters of a possible value are held (or were let go just before): a longer start is held longer. */
  get heldPrefix(): number {
    return this.prefixLength;
  }

  private prefixLength = 0;

  /** The chunk, redacted, minus a tail that may be the start of a value (or an unfinished control sequence). */
  push(chunk: string): string {
    if (this.forms.length === 0 && this.pending.length === 0 && this.state === "ground") return chunk;
    this.parse(chunk);
    return this.release(false);
  }

  /** Lets go of everything held: no more output came in time. */
  flush(): string {
    return this.release(true);
  }

  /** A whole text (a saved screen), redacted on what it shows. */
  redactAll(text: string): string {
    if (this.forms.length === 0) return text;
    const r = new TerminalRedactor(this.secrets, this.releaseAt);
    return r.push(text) + r.flush();
  }

  private parse(chunk: string) {
    let text = "";
    const pushText = () => {
      if (text) this.pending.push({ text });
      text = "";
    };
    let control: { control: string; complete: boolean } | null = null;
    const last = this.pending[this.pending.length - 1];
    if (last && "control" in last && !last.complete) control = last;
    const startControl = (c: string) => {
      pushText();
      control = { control: c, complete: false };
      this.pending.push(control);
    };
    const endControl = () => {
      if (control) control.complete = true;
      control = null;
      this.state = "ground";
    };
    for (let i = 0; i < chunk.length; i++) {
      if (this.state === "ground") {
        // Plain text up to the next control character, in one slice.
        SPECIAL.lastIndex = i;
        const next = SPECIAL.exec(chunk);
        const to = next ? next.index : chunk.length;
        if (to > i) {
          text += chunk.slice(i, to);
          i = to - 1;
          continue;
        }
      }
      const c = chunk[i];
      const code = c.charCodeAt(0);
      switch (this.state) {
        case "ground":
          if (c === "\u001b") {
            startControl(c);
            this.state = "escape";
          } else if (
            code === 0x08 ||
            (code < 0x20 && c !== "\r" && c !== "\n" && c !== "\t") ||
            code === 0x7f ||
            (code >= 0x80 && code < 0xa0)
          ) {
            // Invisible controls (NUL, BEL, backspace…) and C1: a piece of their own.
            startControl(c);
            endControl();
          } else text += c;
          break;
        case "escape":
          control!.control += c;
          if (c === "[") this.state = "csi";
          else if (c === "]" || c === "P" || c === "X" || c === "^" || c === "_") this.state = "string";
          else if ("()*+-./#%".includes(c)) this.state = "charset";
          else endControl();
          break;
        case "csi":
          control!.control += c;
          if (code >= 0x40 && code <= 0x7e) endControl();
          break;
        case "charset":
          control!.control += c;
          endControl();
          break;
        case "string":
          control!.control += c;
          if (c === "\u0007") endControl();
          else if (c === "\u001b") this.state = "string-esc";
          break;
        case "string-esc":
          control!.control += c;
          if (c === "\\") endControl();
          else this.state = "string";
          break;
      }
      if (control && control.control.length > MAX_CONTROL) endControl();
    }
    pushText();
  }

  private release(all: boolean): string {
    // The raw text of what is pending, where each piece starts in it, and its visible characters with their raw offsets.
    const raw =
      this.pending.length === 1 && "text" in this.pending[0]
        ? this.pending[0].text
        : this.pending.map((p) => ("text" in p ? p.text : p.control)).join("");
    const starts: number[] = [];
    const parts: string[] = [];
    const segs: Array<{ vis: number; raw: number }> = []; // a text piece: its first visible index and raw offset
    let pos: number[] | null = null; // per-character offsets, only when a backspace rewrites the visible text
    let offset = 0;
    let visLength = 0;
    for (const p of this.pending) {
      starts.push(offset);
      if ("text" in p) {
        if (pos) for (let k = 0; k < p.text.length; k++) pos.push(offset + k);
        else segs.push({ vis: visLength, raw: offset });
        parts.push(p.text);
        visLength += p.text.length;
        offset += p.text.length;
      } else {
        if (p.control === "\b" && visLength > 0) {
          // The next character overwrites the one before: from here on, offsets per character.
          if (!pos) pos = expand(segs, visLength);
          pos.pop();
          parts[parts.length - 1] = parts[parts.length - 1].slice(0, -1);
          while (parts.length && parts[parts.length - 1] === "") parts.pop();
          visLength--;
        }
        offset += p.control.length;
      }
    }
    const visible = parts.join("");
    const rawAt = (k: number): number => {
      if (pos) return pos[k];
      let lo = 0;
      let hi = segs.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (segs[mid].vis <= k) lo = mid;
        else hi = mid - 1;
      }
      return segs[lo].raw + (k - segs[lo].vis);
    };
    const tail = this.sentTail;
    const seen = tail + visible;
    // Matches, in visible coordinates of what is pending.
    const matches: Array<{ from: number; end: number; name: string }> = [];
    for (const { form, name } of this.forms) {
      for (let i = seen.indexOf(form); i >= 0; i = seen.indexOf(form, i + 1)) {
        const end = i + form.length - tail.length;
        if (end <= 0) continue; // wholly let go before
        const from = Math.max(i - tail.length, 0);
        if (matches.some((m) => from < m.end && end > m.from)) continue;
        matches.push({ from, end, name });
      }
    }
    matches.sort((a, b) => a.from - b.from);
    const inMatch = (k: number) => matches.some((m) => k >= m.from && k < m.end);
    // The longest tail that could still begin a value is held (unless everything must go).
    let holdFrom = visible.length;
    this.prefixLength = 0;
    if (!all) {
      for (let h = Math.max(0, seen.length - this.longest + 1); h < seen.length; h++) {
        const rest = seen.slice(h);
        if (this.forms.some((f) => f.form.length > rest.length && f.form.startsWith(rest))) {
          holdFrom = Math.max(0, h - tail.length);
          this.prefixLength = rest.length;
          break;
        }
      }
      while (holdFrom > 0 && holdFrom < visible.length && inMatch(holdFrom - 1) && inMatch(holdFrom)) holdFrom--; // never split a redaction
    }
    // Raw text up to `stop` goes out.
    let stop = holdFrom < visible.length ? rawAt(holdFrom) : raw.length;
    if (!all && this.releaseAt) {
      for (let i = this.pending.length - 1; i >= 0; i--) {
        const p = this.pending[i];
        if ("control" in p && p.complete && this.releaseAt(p.control)) {
          stop = Math.max(stop, starts[i] + p.control.length);
          break;
        }
      }
    }
    if (!all) {
      const open = this.pending.findIndex((p) => "control" in p && !p.complete);
      if (open >= 0) stop = Math.min(stop, starts[open]);
    }
    // Each match's visible characters are cut out of the raw text, its marker put where it began.
    let out = "";
    let at = 0;
    for (const m of matches) {
      for (let k = m.from; k < m.end; k++) {
        const r = rawAt(k);
        if (r >= stop) break;
        out += raw.slice(at, r);
        if (k === m.from) out += `[secret:${m.name}]`;
        at = r + 1;
      }
    }
    out += raw.slice(at, stop);
    // The visible text let go stays known to the matcher (redacted characters as NUL).
    let released = visible.length;
    if (stop < raw.length) {
      released = 0;
      while (released < visible.length && rawAt(released) < stop) released++;
    }
    const keep = Math.max(0, this.longest - 1);
    let sent = "";
    for (let k = Math.max(0, released - keep); k < released; k++) sent += inMatch(k) ? "\u0000" : visible[k];
    this.sentTail = (tail + sent).slice(-keep);
    // What is held stays pending, cut at `stop`.
    const kept: Piece[] = [];
    this.pending.forEach((p, i) => {
      const from = starts[i];
      const text = "text" in p ? p.text : p.control;
      if (from + text.length <= stop) return;
      if (from >= stop) kept.push(p);
      else if ("text" in p) kept.push({ text: p.text.slice(stop - from) });
      else kept.push(p); // a control sequence is never cut (stop is at its start or past its end)
    });
    this.pending = kept;
    if (all) this.state = "ground";
    return this.apply(out);
  }
}

/** Per-character raw offsets of the text pieces seen so far. */
function expand(segs: Array<{ vis: number; raw: number }>, visLength: number): number[] {
  const pos: number[] = [];
  segs.forEach((s, i) => {
    const len = (i + 1 < segs.length ? segs[i + 1].vis : visLength) - s.vis;
    for (let k = 0; k < len; k++) pos.push(s.raw + k);
  });
  return pos;
}
