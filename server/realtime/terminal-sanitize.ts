// Caps the count parameters of control sequences before any terminal sees
// them. `printf 'x\e[100000000b'` (REP: repeat the last character 10^8
// times) is 17 bytes that make an emulator print for seconds; erase, insert,
// delete, scroll and cursor counts grow the same way. Every CSI sequence whose
// cost grows with a parameter is rewritten with that parameter clamped to the
// screen (REP to one screenful): the server's own headless terminal and every
// watcher's browser get the same rewritten bytes. REP also repeats the whole
// grapheme before it (1,001 joined code points made one capped REP print for
// five seconds), so a character keeps at most MAX_JOINED zero-width code
// points and one read's repeats share a budget of a few screenfuls. One
// pass, constant work per character, bounded state carried across chunks
// (docs/security.md#terminal-output-cannot-stall-the-server).

const ESC = 0x1b;
const CSI_C1 = 0x9b;
/** More parameters than any real sequence has (xterm keeps 32): the sequence is dropped. */
const MAX_PARAMS = 32;
/** Digits past this value add nothing (every cap is far smaller). */
const SATURATE = 1_000_000_000;
/** Zero-width code points (combining marks, joiners, selectors) one character may carry; more are dropped. */
export const MAX_JOINED = 16;
/** Cells REP may fill in one read, in screenfuls; past that a REP is dropped. */
const REPEAT_SCREENS = 4;
/** Code points a terminal draws with no width of their own, joined to the character before. */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}\u1160-\u11ff\ud7b0-\ud7ff]$/u;
/** The answer for each BMP code unit, looked up once: 1 zero-width, 2 not. */
const bmp = new Uint8Array(0x10000);
function zeroWidth(chunk: string, i: number, c: number): boolean {
  if (c >= 0xd800 && c <= 0xdbff) return ZERO_WIDTH.test(String.fromCodePoint(chunk.codePointAt(i) ?? c));
  bmp[c] ||= ZERO_WIDTH.test(chunk[i]) ? 1 : 2;
  return bmp[c] === 1;
}

type Bound = "cols" | "rows" | "screen";
/** Private prefix + intermediates + final -> the bound of each parameter (the last repeats). */
const BOUNDS: Record<string, Bound[]> = {
  b: ["screen"], // REP
  "@": ["cols"], // ICH
  P: ["cols"], // DCH
  X: ["cols"], // ECH
  C: ["cols"], // CUF
  D: ["cols"], // CUB
  G: ["cols"], // CHA
  "`": ["cols"], // HPA
  a: ["cols"], // HPR
  I: ["cols"], // CHT
  Z: ["cols"], // CBT
  A: ["rows"], // CUU
  B: ["rows"], // CUD
  E: ["rows"], // CNL
  F: ["rows"], // CPL
  d: ["rows"], // VPA
  e: ["rows"], // VPR
  L: ["rows"], // IL
  M: ["rows"], // DL
  S: ["rows"], // SU
  T: ["rows"], // SD
  H: ["rows", "cols"], // CUP
  f: ["rows", "cols"], // HVP
  r: ["rows"], // DECSTBM
  s: ["cols"], // DECSLRM
  " @": ["cols"], // SL
  " A": ["cols"], // SR
  "'}": ["cols"], // DECIC
  "'~": ["cols"], // DECDC
};

const enum State {
  Ground,
  Escape,
  Csi,
  /** A sequence too long to be real: dropped up to its final byte. */
  Ignore,
}

export class ControlSequenceCap {
  private state = State.Ground;
  private prefix = "";
  private inter = "";
  /** Parameters so far: numbers (null = empty) and the separators between them. */
  private params: Array<number | null> = [];
  private seps: string[] = [];
  private current: number | null = null;
  /** Zero-width code points joined to the last character so far. */
  private joined = 0;
  /** A high surrogate that ended the last chunk. */
  private carry = "";
  private repeated = 0;

  constructor(private readonly size: () => { cols: number; rows: number }) {}

  /** The chunk with every count clamped; an unfinished sequence at its end is held for the next chunk. */
  push(input: string): string {
    let chunk = this.carry + input;
    this.carry = "";
    this.repeated = 0;
    const last = chunk.charCodeAt(chunk.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.carry = chunk.slice(-1);
      chunk = chunk.slice(0, -1);
    }
    let out = "";
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      switch (this.state) {
        case State.Ground:
          if (c >= 0x300) {
            const wide = c >= 0xd800 && c <= 0xdbff;
            if (!zeroWidth(chunk, i, c)) this.joined = 0;
            else if (++this.joined > MAX_JOINED) {
              out += chunk.slice(from, i);
              from = i + (wide ? 2 : 1);
            }
            if (wide) i++;
          } else if (c >= 0x20) this.joined = 0;
          if (c === ESC) {
            out += chunk.slice(from, i);
            from = i + 1;
            this.state = State.Escape;
          } else if (c === CSI_C1) {
            out += chunk.slice(from, i);
            from = i + 1;
            this.begin();
          }
          break;
        case State.Escape:
          if (c === 0x5b) {
            this.begin();
            from = i + 1;
          } else if (c !== ESC) {
            // Any other escape sequence passes through as it came.
            out += "\u001b";
            this.state = State.Ground;
            from = i;
          } else {
            out += "\u001b";
            from = i + 1;
          }
          break;
        case State.Csi:
        case State.Ignore:
          out += this.inCsi(c, chunk[i]);
          from = i + 1;
          break;
      }
    }
    if (this.state === State.Ground) out += chunk.slice(from);
    return out;
  }

  private begin() {
    this.state = State.Csi;
    this.prefix = "";
    this.inter = "";
    this.params = [];
    this.seps = [];
    this.current = null;
  }

  /** One character inside a CSI sequence; returns what to emit now. */
  private inCsi(c: number, ch: string): string {
    // Parameter bytes after an intermediate make the sequence malformed.
    if (c >= 0x30 && c <= 0x3f && this.inter) this.state = State.Ignore;
    if (c >= 0x30 && c <= 0x39) {
      if (this.state === State.Csi) this.current = Math.min(SATURATE, (this.current ?? 0) * 10 + (c - 0x30));
      return "";
    }
    if (c === 0x3b || c === 0x3a) {
      if (this.state === State.Csi) {
        this.params.push(this.current);
        this.seps.push(ch);
        this.current = null;
        if (this.params.length > MAX_PARAMS) this.state = State.Ignore;
      }
      return "";
    }
    if (c >= 0x3c && c <= 0x3f) {
      // A private prefix only counts first; anywhere else the sequence is malformed.
      if (this.state === State.Csi && !this.prefix && this.params.length === 0 && this.current === null) this.prefix = ch;
      else this.state = State.Ignore;
      return "";
    }
    if (c >= 0x20 && c <= 0x2f) {
      if (this.inter.length < 2) this.inter += ch;
      else this.state = State.Ignore;
      return "";
    }
    if (c >= 0x40 && c <= 0x7e) {
      const ignored = this.state === State.Ignore;
      this.state = State.Ground;
      return ignored ? "" : this.emit(ch);
    }
    if (c === ESC) {
      // ESC abandons the sequence and starts another.
      this.state = State.Escape;
      return "";
    }
    if (c === CSI_C1) {
      this.begin();
      return "";
    }
    if (c === 0x18 || c === 0x1a) {
      // CAN and SUB cancel the sequence.
      this.state = State.Ground;
      return ch;
    }
    // Other controls act at once, as in any terminal's parser; DEL and anything else is dropped.
    return c < 0x20 ? ch : "";
  }

  private emit(final: string): string {
    const params = [...this.params, this.current];
    const bounds = this.prefix ? undefined : BOUNDS[this.inter + final];
    if (bounds && final === "b" && !this.inter) {
      const count = Math.max(1, Math.min(params[0] ?? 1, this.limit("screen")));
      if (this.repeated + count > this.limit("screen") * REPEAT_SCREENS) return "";
      this.repeated += count;
    }
    let text = "\u001b[" + this.prefix;
    for (let i = 0; i < params.length; i++) {
      let v = params[i];
      if (v !== null && bounds) v = Math.min(v, this.limit(bounds[Math.min(i, bounds.length - 1)]));
      text += (i > 0 ? this.seps[i - 1] : "") + (v === null ? "" : String(v));
    }
    return text + this.inter + final;
  }

  private limit(bound: Bound): number {
    const { cols, rows } = this.size();
    return bound === "cols" ? cols : bound === "rows" ? rows : cols * rows;
  }
}
