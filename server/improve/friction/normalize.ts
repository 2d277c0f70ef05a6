// Turning hostile, unbounded agent text into short stable keys and excerpts.
// Every function here reads at most a fixed prefix (or suffix) of its input
// and walks it once, character by character: no regular expressions run on
// agent-controlled text, so there is no backtracking to provoke.

/** Only this much of a message is normalised: the start of an error names it. */
export const NORMALIZE_CHARS = 2048;
/** A normalised message is cut here, so signatures stay short. */
export const CLASS_CHARS = 160;
export const EXCERPT_CHARS = 200;
/** A word this long is a blob (base64, a digest), not part of the message. */
const LONG_WORD = 40;

const isDigit = (c: number) => c >= 48 && c <= 57;
const isAlpha = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isHex = (c: number) => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);
/** Characters a path, number or identifier is made of: `_ . - / \ ~ @ % +` and ASCII letters and digits. */
const isWordChar = (c: number) =>
  isAlpha(c) || isDigit(c) || c === 95 || c === 46 || c === 45 || c === 47 || c === 92 || c === 126 || c === 64 || c === 37 || c === 43;
const isQuote = (c: number) => c === 34 || c === 39 || c === 96;

/**
 * The class of a message: numbers become N, quoted strings "*", paths <path>,
 * hex ids <hex>, blobs <blob>, terminal colour codes and other control
 * characters go, whitespace collapses. So `line 3: not a number: "Smith, J"`
 * and `line 7: not a number: "Lee, K"` both read `line N: not a number: "*"`.
 */
export function normalizeMessage(text: string): string {
  const s = text.length > NORMALIZE_CHARS ? text.slice(0, NORMALIZE_CHARS) : text;
  let out = "";
  let pendingSpace = false;
  const put = (piece: string) => {
    if (pendingSpace && out.length > 0) out += " ";
    pendingSpace = false;
    out += piece;
  };
  let i = 0;
  while (i < s.length && out.length < CLASS_CHARS) {
    const c = s.charCodeAt(i);
    if (isSpace(c)) {
      pendingSpace = true;
      i++;
    } else if (c === 27) {
      i = skipEscape(s, i);
    } else if (c < 32 || c === 127) {
      i++;
    } else if (isQuote(c) && opensQuote(s, i)) {
      const close = closingQuote(s, i);
      if (close < 0) {
        put(s[i]);
        i++;
      } else {
        put('"*"');
        i = close + 1;
      }
    } else if (isWordChar(c)) {
      let j = i + 1;
      while (j < s.length && isWordChar(s.charCodeAt(j))) j++;
      put(normalizeWord(s.slice(i, j)));
      i = j;
    } else {
      put(s[i]);
      i++;
    }
  }
  return out.length > CLASS_CHARS ? out.slice(0, CLASS_CHARS).trimEnd() : out;
}

/** A quote opens a quoted string unless a letter or digit comes just before it (the apostrophe in "can't"). */
function opensQuote(s: string, i: number): boolean {
  if (i === 0) return true;
  const before = s.charCodeAt(i - 1);
  return !(isAlpha(before) || isDigit(before));
}

/**
 * The same quote later on the same line, or -1. A quote that finds no partner
 * leaves none of its kind after it on that line, so each line is rescanned at
 * most once per quote kind: linear overall.
 */
function closingQuote(s: string, open: number): number {
  const q = s.charCodeAt(open);
  for (let j = open + 1; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === q) return j;
    if (c === 10) return -1;
  }
  return -1;
}

/** Past an ANSI escape: ESC [ parameters, then one final byte (0x40..0x7e); a lone ESC is dropped. */
function skipEscape(s: string, i: number): number {
  if (s.charCodeAt(i + 1) !== 91) return i + 1;
  let j = i + 2;
  while (j < s.length) {
    const c = s.charCodeAt(j);
    j++;
    if (c >= 64 && c <= 126) break;
  }
  return j;
}

function normalizeWord(w: string): string {
  let digits = 0;
  let letters = 0;
  let hexOnly = true;
  let slash = false;
  for (let k = 0; k < w.length; k++) {
    const c = w.charCodeAt(k);
    if (c === 47 || c === 92) slash = true;
    if (isDigit(c)) digits++;
    else if (isAlpha(c)) letters++;
    if (!isHex(c) && c !== 45) hexOnly = false;
  }
  if (slash && digits + letters > 0) return "<path>";
  if (w.length >= 2 && w.charCodeAt(0) === 48 && (w[1] === "x" || w[1] === "X") && w.length > 2) return "<hex>";
  if (hexOnly && w.length >= 8 && digits > 0 && letters > 0) return "<hex>";
  if (w.length > LONG_WORD) return "<blob>";
  if (digits === 0) return w;
  // Each run of digits, with inner dots (3.14, 1.2.3), is one N.
  let out = "";
  for (let k = 0; k < w.length; k++) {
    const c = w.charCodeAt(k);
    if (!isDigit(c)) {
      out += w[k];
      continue;
    }
    while (k + 1 < w.length && (isDigit(w.charCodeAt(k + 1)) || (w[k + 1] === "." && isDigit(w.charCodeAt(k + 2))))) k++;
    out += "N";
  }
  return out;
}

/** What a person reads: control characters and whitespace runs become one space; at most `max` characters. */
export function excerptOf(text: string, max = EXCERPT_CHARS): string {
  const s = text.length > max * 2 ? text.slice(0, max * 2) : text;
  let out = "";
  let pendingSpace = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 27) {
      i = skipEscape(s, i) - 1;
      continue;
    }
    if (isSpace(c) || c < 32 || c === 127) {
      pendingSpace = out.length > 0;
      continue;
    }
    if (pendingSpace) out += " ";
    pendingSpace = false;
    out += s[i];
  }
  return out.length > max ? out.slice(0, max - 1) + "…" : out;
}

const ERROR_WORDS = [
  "error",
  "fail",
  "fatal",
  "not found",
  "no such",
  "denied",
  "invalid",
  "cannot",
  "can't",
  "unable",
  "not a ",
  "exception",
  "panic",
  "refused",
  "timed out",
  "syntax",
];

/**
 * The line of a failed command's output that names the error: the first line
 * of its head that says so, else the last non-empty line of its tail (where a
 * failing command usually ends). Rein's own notes about cut output are skipped.
 */
export function errorLine(output: string): string {
  const head = output.length > NORMALIZE_CHARS ? output.slice(0, NORMALIZE_CHARS) : output;
  let start = 0;
  while (start < head.length) {
    let end = head.indexOf("\n", start);
    if (end < 0) end = head.length;
    const line = head.slice(start, end);
    if (!isRein(line)) {
      const lower = line.toLowerCase();
      for (const word of ERROR_WORDS) if (lower.includes(word)) return line;
    }
    start = end + 1;
  }
  const tail = output.length > NORMALIZE_CHARS ? output.slice(output.length - NORMALIZE_CHARS) : output;
  let end = tail.length;
  while (end > 0) {
    const from = tail.lastIndexOf("\n", end - 1);
    const line = tail.slice(from + 1, end);
    if (line.trim() && !isRein(line)) return line;
    end = from < 0 ? 0 : from;
  }
  return "";
}

/** Rein's notes in shell output: "[N earlier characters dropped]" and "[output continues: ...]". */
function isRein(line: string): boolean {
  return line.startsWith("[output continues:") || (line.startsWith("[") && line.endsWith(" earlier characters dropped]"));
}

/** A name from the log (a tool, an error code) made safe for a signature: no separators, bounded. */
export function signaturePart(name: string, max = 64): string {
  let out = "";
  for (let i = 0; i < name.length && out.length < max; i++) {
    const c = name.charCodeAt(i);
    out += isAlpha(c) || isDigit(c) || c === 95 || c === 46 || c === 45 || c === 58 ? name[i] : "_";
  }
  return out || "_";
}
