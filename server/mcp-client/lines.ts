// Splits what a stdio MCP server writes into lines, with a bound
// (docs/security.md#what-external-servers-send): a line longer than the limit
// is never held whole. Its bytes are counted and dropped as they arrive (O(n),
// one indexOf per chunk); only its first and last KiB are kept, enough to tell
// which request it answers.

/** What the reader keeps of an oversized line, at each end. */
const KEEP = 1024;

export interface OversizedLine {
  /** The whole line's length, without its newline. */
  bytes: number;
  head: string;
  tail: string;
}

export class BoundedLineReader {
  private chunks: Buffer[] = [];
  private length = 0;
  /** Set while skipping a line that went over the limit. */
  private skipping: { bytes: number; head: Buffer; tail: Buffer } | null = null;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: Buffer) => void,
    private readonly onOversized: (line: OversizedLine) => void,
  ) {}

  /** Bytes held for the line under way: never much more than the limit. */
  get buffered(): number {
    return this.length + (this.skipping ? this.skipping.head.length + this.skipping.tail.length : 0);
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      this.take(chunk.subarray(start, end));
      if (nl === -1) return;
      this.finishLine();
      start = nl + 1;
    }
  }

  private take(part: Buffer) {
    if (part.length === 0) return;
    const skip = this.skipping;
    if (skip) {
      skip.bytes += part.length;
      skip.tail = lastBytes(skip.tail, part);
      return;
    }
    if (this.length + part.length <= this.maxBytes) {
      // A copy: the chunk's memory is not pinned by a slice of it.
      this.chunks.push(Buffer.from(part));
      this.length += part.length;
      return;
    }
    const held = [...this.chunks, part];
    const head = Buffer.concat(held.slice(0, firstCovering(held, KEEP))).subarray(0, KEEP);
    const tail = Buffer.concat(held.slice(held.length - firstCovering([...held].reverse(), KEEP))).subarray(-KEEP);
    this.skipping = { bytes: this.length + part.length, head: Buffer.from(head), tail: Buffer.from(tail) };
    this.chunks = [];
    this.length = 0;
  }

  private finishLine() {
    const skip = this.skipping;
    if (skip) {
      this.skipping = null;
      this.onOversized({ bytes: skip.bytes, head: skip.head.toString("utf8"), tail: skip.tail.toString("utf8") });
      return;
    }
    let line = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.length);
    this.chunks = [];
    this.length = 0;
    if (line.length && line[line.length - 1] === 13) line = line.subarray(0, -1);
    if (line.length) this.onLine(line);
  }
}

/** How many of the first buffers it takes to hold `bytes` bytes (all, if they hold fewer). */
function firstCovering(buffers: Buffer[], bytes: number): number {
  let count = 0;
  for (let have = 0; count < buffers.length && have < bytes; count++) have += buffers[count].length;
  return count;
}

function lastBytes(before: Buffer, part: Buffer): Buffer {
  if (part.length >= KEEP) return Buffer.from(part.subarray(-KEEP));
  return Buffer.concat([before, part]).subarray(-KEEP);
}

type JsonRpcId = string | number;

const HEAD_ID = /^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"[^"\\]{0,100}"\s*,)*\s*"id"\s*:\s*(-?\d{1,16}|"[^"\\]{0,200}")\s*[,}]/;
const TAIL_ID = /[{,]\s*"id"\s*:\s*(-?\d{1,16}|"[^"\\]{0,200}")\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$/;

/**
 * The id of the JSON-RPC message an oversized line holds, read from its first
 * or last KiB (servers put it first, or last as the SDK does); null when
 * neither end says. Both patterns are anchored and bounded: linear on a KiB.
 */
export function sniffId(line: OversizedLine): JsonRpcId | null {
  const found = HEAD_ID.exec(line.head)?.[1] ?? TAIL_ID.exec(line.tail)?.[1];
  if (found === undefined) return null;
  return found.startsWith('"') ? found.slice(1, -1) : Number(found);
}
