// What a person typed into a run's terminal, as lines: keystrokes are split on
// Enter, Backspace / Ctrl-U / Ctrl-W / Ctrl-C edit the line, escape sequences
// (cursor keys, history) and Tab (completion) are not followed, and such a line
// is marked approximate. Enough to tell the agent and the event log what a
// person ran, without a second shell parser.

export const MAX_LINE_CHARS = 2000;

export interface TypedLine {
  text: string;
  /** The line was edited with keys the recorder cannot follow (arrows, history, Tab). */
  approximate: boolean;
}

export class LineRecorder {
  private line = "";
  private approximate = false;
  private truncated = false;
  /** An escape sequence split across two messages. */
  private carry = "";
  private lastWasCr = false;

  /** The line typed so far and not yet submitted. */
  get current() {
    return this.line;
  }

  /** Feeds keystrokes; returns the lines submitted with Enter (blank lines left out). */
  feed(data: string): TypedLine[] {
    const out: TypedLine[] = [];
    const input = this.carry + data;
    this.carry = "";
    let i = 0;
    while (i < input.length) {
      const c = input[i];
      if (c === "\u001b") {
        const end = escapeEnd(input, i);
        if (end < 0) {
          this.carry = input.slice(i);
          break;
        }
        const seq = input.slice(i, end);
        // Bracketed paste markers carry no keys; anything else moves the cursor or recalls history.
        if (seq !== "\u001b[200~" && seq !== "\u001b[201~") this.approximate = true;
        i = end;
        this.lastWasCr = false;
        continue;
      }
      i++;
      if (c === "\n" && this.lastWasCr) {
        this.lastWasCr = false;
        continue;
      }
      this.lastWasCr = c === "\r";
      if (c === "\r" || c === "\n") {
        if (this.line.trim()) out.push({ text: this.line, approximate: this.approximate || this.truncated });
        this.reset();
      } else if (c === "\u007f" || c === "\b") {
        this.line = Array.from(this.line).slice(0, -1).join("");
      } else if (c === "\u0015" || c === "\u0003") {
        // Ctrl-U discards the line; Ctrl-C abandons it.
        this.reset();
      } else if (c === "\u0017") {
        this.line = this.line.replace(/\S*\s*$/, "");
      } else if (c < " ") {
        // Tab (completion) and other editing keys: the line is no longer known exactly.
        this.approximate = true;
      } else if (this.line.length < MAX_LINE_CHARS) {
        this.line += c;
      } else {
        this.truncated = true;
      }
    }
    return out;
  }

  /** Forgets the line in progress (e.g. the shell's line was cleared). */
  reset() {
    this.line = "";
    this.approximate = false;
    this.truncated = false;
  }
}

/** Index just past the escape sequence starting at `i`, or -1 when it is incomplete. */
function escapeEnd(s: string, i: number): number {
  if (i + 1 >= s.length) return -1;
  const kind = s[i + 1];
  if (kind === "[") {
    for (let j = i + 2; j < s.length; j++) {
      const code = s.charCodeAt(j);
      if (code >= 0x40 && code <= 0x7e) return j + 1;
      if (j - i > 32) return j + 1; // not a sequence a keyboard sends; stop looking
    }
    return -1;
  }
  if (kind === "O") return i + 2 < s.length ? i + 3 : -1;
  return i + 2; // Alt+key
}
