// A small Markdown reader for previewing agent instructions: headings,
// paragraphs, lists, block quotes, fenced code, code spans, bold, italics and
// links. It returns plain data that React renders as text, so HTML in the
// source is shown as typed, never interpreted; links keep only http(s) and
// mailto addresses.

export type Inline =
  | { kind: "text"; text: string }
  | { kind: "code"; text: string }
  | { kind: "strong"; children: Inline[] }
  | { kind: "em"; children: Inline[] }
  | { kind: "link"; href: string; children: Inline[] };

export type Block =
  | { kind: "heading"; level: 1 | 2 | 3 | 4 | 5 | 6; children: Inline[] }
  | { kind: "paragraph"; children: Inline[] }
  | { kind: "list"; ordered: boolean; start: number; items: Inline[][] }
  | { kind: "quote"; children: Inline[] }
  | { kind: "code"; lang: string; text: string }
  | { kind: "rule" };

const HEADING = /^(#{1,6})\s+(.*)$/;
const FENCE = /^\s{0,3}(```|~~~)\s*([\w+-]*)/;
const BULLET = /^\s{0,3}[-*+]\s+(.*)$/;
const ORDERED = /^\s{0,3}(\d{1,9})[.)]\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const CONTINUATION = /^\s{2,}\S/;

/** A heading's text without its closing #s ("## Plan ##" reads "Plan"; "C#" stays). */
function headingText(raw: string): string {
  const text = raw.trimEnd();
  let j = text.length;
  while (j > 0 && text[j - 1] === "#") j--;
  return j < text.length && (j === 0 || /\s/.test(text[j - 1])) ? text.slice(0, j).trimEnd() : text;
}

export function parseMarkdown(source: string, options: InlineOptions = {}): Block[] {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const blocks: Block[] = [];
  let i = 0;
  const startsBlock = (line: string) =>
    HEADING.test(line) || FENCE.test(line) || BULLET.test(line) || ORDERED.test(line) || QUOTE.test(line) || RULE.test(line);

  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i].trimStart().startsWith(fence[1])) body.push(lines[i++]);
      i++; // the closing fence (or the end of the text)
      blocks.push({ kind: "code", lang: fence[2], text: body.join("\n") });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ kind: "heading", level: heading[1].length as 1, children: parseInline(headingText(heading[2]), options) });
      i++;
      continue;
    }
    if (RULE.test(line)) {
      blocks.push({ kind: "rule" });
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i])) body.push(QUOTE.exec(lines[i++])![1]);
      blocks.push({ kind: "quote", children: parseInline(body.join(" "), options) });
      continue;
    }
    const bullet = BULLET.exec(line);
    const ordered = ORDERED.exec(line);
    if (bullet || ordered) {
      const pattern = bullet ? BULLET : ORDERED;
      const items: string[] = [];
      while (i < lines.length) {
        const m = pattern.exec(lines[i]);
        if (m) items.push(bullet ? m[1] : m[2]);
        else if (CONTINUATION.test(lines[i]) && items.length) items[items.length - 1] += ` ${lines[i].trim()}`;
        else break;
        i++;
      }
      blocks.push({
        kind: "list",
        ordered: !bullet,
        start: ordered ? Number(ordered[1]) : 1,
        items: items.map((item) => parseInline(item, options)),
      });
      continue;
    }
    const body: string[] = [];
    while (i < lines.length && lines[i].trim() && (body.length === 0 || !startsBlock(lines[i]))) body.push(lines[i++].trim());
    blocks.push({ kind: "paragraph", children: parseInline(body.join(" "), options) });
  }
  return blocks;
}

/** Only addresses that cannot run script: http(s), mailto, and links within the page or site. */
export function safeHref(href: string): string | null {
  const h = href.trim();
  if (/^(https?:|mailto:)/i.test(h)) return h;
  if (/^(\/(?!\/)|#)/.test(h)) return h;
  return null;
}

/** For text from outside (an agent, a model): only http(s) and mailto addresses. */
export function safeExternalHref(href: string): string | null {
  const h = href.trim();
  return /^(https?:\/\/|mailto:)/i.test(h) ? h : null;
}

export interface InlineOptions {
  /** Links may only leave the site (http, https, mailto): for agent and model text. */
  external?: boolean;
}

const MAX_TITLE = 200;
const MAX_TITLE_GAP = 8;

/**
 * Where a string next occurs at or after a position. Positions asked for only
 * grow while a line is read, so each search picks up where the last one ended
 * and a long line is read in linear time, whatever it holds.
 */
function forwardFinder(source: string) {
  const found = new Map<string, number>();
  return (needle: string, from: number): number => {
    const last = found.get(needle);
    if (last !== undefined && (last === -1 || last >= from)) return last;
    const at = source.indexOf(needle, from);
    found.set(needle, at);
    return at;
  };
}

/** The first ")" or white space at or after a position (or the end), found the same way. */
function stopFinder(source: string) {
  let last = -2;
  return (from: number): number => {
    if (last >= from) return last;
    const re = /[)\s]/g;
    re.lastIndex = from;
    const m = re.exec(source);
    last = m ? m.index : source.length;
    return last;
  };
}

/** `[text](href "title")` starting at `i` (its "["): where it ends, its text and address; null when it is not one. */
function readLink(source: string, i: number, find: ReturnType<typeof forwardFinder>, stop: ReturnType<typeof stopFinder>) {
  const close = find("]", i + 1);
  if (close <= i + 1 || source[close + 1] !== "(") return null;
  const urlStart = close + 2;
  const urlEnd = stop(urlStart);
  if (urlEnd === urlStart || urlEnd >= source.length) return null;
  let end = urlEnd;
  if (source[end] !== ")") {
    let j = end;
    while (j < source.length && j - end < MAX_TITLE_GAP && /\s/.test(source[j])) j++;
    if (source[j] !== '"') return null;
    const quote = find('"', j + 1);
    if (quote < 0 || quote - j > MAX_TITLE || source[quote + 1] !== ")") return null;
    end = quote + 1;
  }
  return { end: end + 1, text: source.slice(i + 1, close), href: source.slice(urlStart, urlEnd) };
}

/**
 * Code spans, bold, italics and links of one line. Image syntax becomes a link
 * to the image (never an image: nothing is loaded from where the text points).
 * Linear in the line's length: no pattern here can backtrack over it.
 */
export function parseInline(source: string, options: InlineOptions = {}): Inline[] {
  const out: Inline[] = [];
  const find = forwardFinder(source);
  const stop = stopFinder(source);
  const checkHref = options.external ? safeExternalHref : safeHref;
  let textStart = 0;
  let i = 0;
  const pushText = (text: string) => {
    const last = out[out.length - 1];
    if (last?.kind === "text") last.text += text;
    else out.push({ kind: "text", text });
  };
  const flush = (end: number) => {
    if (end > textStart) pushText(source.slice(textStart, end));
  };
  while (i < source.length) {
    const ch = source[i];
    if (ch === "\\" && i + 1 < source.length && /[\\`*_[\]()#>!-]/.test(source[i + 1])) {
      flush(i);
      pushText(source[i + 1]);
      i += 2;
      textStart = i;
      continue;
    }
    if (ch === "`") {
      let runEnd = i;
      while (source[runEnd] === "`") runEnd++;
      const run = source.slice(i, runEnd);
      const end = find(run, runEnd);
      if (end > 0) {
        flush(i);
        out.push({ kind: "code", text: source.slice(runEnd, end).trim() });
        i = end + run.length;
        textStart = i;
      } else {
        i = runEnd; // backticks without a closing run are text
      }
      continue;
    }
    if (ch === "[" || (ch === "!" && source[i + 1] === "[")) {
      const image = ch === "!";
      const link = readLink(source, image ? i + 1 : i, find, stop);
      const href = link ? checkHref(link.href) : null;
      if (link && href) {
        flush(i);
        out.push({ kind: "link", href, children: image ? [{ kind: "text", text: link.text }] : parseInline(link.text, options) });
        i = link.end;
        textStart = i;
        continue;
      }
      i += image ? 2 : 1;
      continue;
    }
    if (ch === "*" || ch === "_") {
      const strong = source.startsWith(ch + ch, i);
      const mark = strong ? ch + ch : ch;
      const end = find(mark, i + mark.length);
      // Emphasis needs text right inside its marks ("2 * 3 * 4" stays as it is); _ only at word edges.
      const inner = end > 0 ? source.slice(i + mark.length, end) : "";
      const atEdge =
        ch === "*" ||
        ((i === 0 || /\W/.test(source[i - 1])) && (end + mark.length >= source.length || /\W/.test(source[end + mark.length])));
      if (inner && !/^\s|\s$/.test(inner) && atEdge) {
        flush(i);
        out.push({ kind: strong ? "strong" : "em", children: parseInline(inner, options) });
        i = end + mark.length;
        textStart = i;
        continue;
      }
    }
    i++;
  }
  flush(source.length);
  return out;
}

/** Text with `code` spans marked (request titles, goals): what is not code stays text, backticks and all when unpaired. */
export function codeSpans(source: string): Array<{ code: boolean; text: string }> {
  const out: Array<{ code: boolean; text: string }> = [];
  const find = forwardFinder(source);
  let textStart = 0;
  let i = 0;
  while (i < source.length) {
    if (source[i] !== "`") {
      i++;
      continue;
    }
    let runEnd = i;
    while (source[runEnd] === "`") runEnd++;
    const run = source.slice(i, runEnd);
    const end = find(run, runEnd);
    if (end < 0) {
      i = runEnd;
      continue;
    }
    if (i > textStart) out.push({ code: false, text: source.slice(textStart, i) });
    out.push({ code: true, text: source.slice(runEnd, end).trim() });
    i = end + run.length;
    textStart = i;
  }
  if (textStart < source.length) out.push({ code: false, text: source.slice(textStart) });
  return out;
}
