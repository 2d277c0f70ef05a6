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

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const FENCE = /^\s{0,3}(```|~~~)\s*([\w+-]*)/;
const BULLET = /^\s{0,3}[-*+]\s+(.*)$/;
const ORDERED = /^\s{0,3}(\d{1,9})[.)]\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const CONTINUATION = /^\s{2,}\S/;

export function parseMarkdown(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const blocks: Block[] = [];
  let i = 0;
  const startsBlock = (line: string) => HEADING.test(line) || FENCE.test(line) || BULLET.test(line) || ORDERED.test(line) || QUOTE.test(line) || RULE.test(line);

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
      blocks.push({ kind: "heading", level: heading[1].length as 1, children: parseInline(heading[2]) });
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
      blocks.push({ kind: "quote", children: parseInline(body.join(" ")) });
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
      blocks.push({ kind: "list", ordered: !bullet, start: ordered ? Number(ordered[1]) : 1, items: items.map(parseInline) });
      continue;
    }
    const body: string[] = [];
    while (i < lines.length && lines[i].trim() && (body.length === 0 || !startsBlock(lines[i]))) body.push(lines[i++].trim());
    blocks.push({ kind: "paragraph", children: parseInline(body.join(" ")) });
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

export function parseInline(source: string): Inline[] {
  const out: Inline[] = [];
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
      const run = /^`+/.exec(source.slice(i))![0];
      const end = source.indexOf(run, i + run.length);
      if (end > 0) {
        flush(i);
        out.push({ kind: "code", text: source.slice(i + run.length, end).trim() });
        i = end + run.length;
        textStart = i;
        continue;
      }
    }
    if (ch === "[") {
      const m = /^\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/.exec(source.slice(i));
      const href = m ? safeHref(m[2]) : null;
      if (m && href) {
        flush(i);
        out.push({ kind: "link", href, children: parseInline(m[1]) });
        i += m[0].length;
        textStart = i;
        continue;
      }
    }
    if (ch === "*" || ch === "_") {
      const strong = source.startsWith(ch + ch, i);
      const mark = strong ? ch + ch : ch;
      const end = source.indexOf(mark, i + mark.length);
      // Emphasis needs text right inside its marks ("2 * 3 * 4" stays as it is); _ only at word edges.
      const inner = end > 0 ? source.slice(i + mark.length, end) : "";
      const atEdge = ch === "*" || ((i === 0 || /\W/.test(source[i - 1])) && (end + mark.length >= source.length || /\W/.test(source[end + mark.length])));
      if (inner && !/^\s|\s$/.test(inner) && atEdge) {
        flush(i);
        out.push({ kind: strong ? "strong" : "em", children: parseInline(inner) });
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
