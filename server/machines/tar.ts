// The little of the tar format workspace sync needs
// (docs/desktops-and-tiers.md#workspace-sync): reading the pax archive GNU tar
// writes in the file sandbox (push), and writing one for tar to extract in the
// file sandbox (pull). Only files, folders and symlinks; every size bounded.
// The names in an archive are the agent's or the machine's: sync.ts checks
// each before it is used.

const BLOCK = 512;
/** A pax header record set larger than this is refused (a path is at most 4 KiB). */
const MAX_PAX_BYTES = 64 * 1024;

export type TarKind = "file" | "dir" | "symlink" | "other";

export interface TarEntry {
  path: string;
  kind: TarKind;
  mode: number;
  size: number;
  /** A symlink's target, as written. */
  target: string;
}

export class TarFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TarFormatError";
  }
}

/** Reads exact byte counts from a stream of chunks. */
class ByteReader {
  private chunks: Buffer[] = [];
  private length = 0;
  private ended = false;
  constructor(private readonly source: AsyncIterator<Buffer>) {}

  private async fill(n: number): Promise<boolean> {
    while (this.length < n && !this.ended) {
      const next = await this.source.next();
      if (next.done) this.ended = true;
      else if (next.value.length) {
        this.chunks.push(next.value);
        this.length += next.value.length;
      }
    }
    return this.length >= n;
  }

  /** Exactly n bytes (n small: a header), or null at the end of the stream. */
  async take(n: number): Promise<Buffer | null> {
    if (!(await this.fill(n))) return null;
    const head = this.chunks[0];
    if (head && head.length >= n) {
      // The usual case: no copy of the rest of a 64 KiB read for each 512-byte header.
      if (head.length === n) this.chunks.shift();
      else this.chunks[0] = head.subarray(n);
      this.length -= n;
      return head.subarray(0, n);
    }
    const all = Buffer.concat(this.chunks);
    this.chunks = all.length > n ? [all.subarray(n)] : [];
    this.length -= n;
    return all.subarray(0, n);
  }

  /**
   * What follows the archive's end blocks (the rest of tar's last record) read
   * and dropped, up to `max` bytes; then the source is let go. A stream left
   * half read never ends, and a process writing it never closes.
   */
  async drain(max: number): Promise<void> {
    let seen = this.length;
    this.chunks = [];
    this.length = 0;
    while (!this.ended && seen <= max) {
      const next = await this.source.next();
      if (next.done) this.ended = true;
      else seen += next.value.length;
    }
    if (!this.ended) await this.source.return?.();
  }

  /** The next n bytes as they arrive, without holding them. */
  async *stream(n: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (!(await this.fill(1))) throw new TarFormatError("The archive ended inside a file");
      const head = this.chunks[0];
      const part = head.length > left ? head.subarray(0, left) : head;
      if (part.length === head.length) this.chunks.shift();
      else this.chunks[0] = head.subarray(left);
      this.length -= part.length;
      left -= part.length;
      yield part;
    }
  }
}

const padOf = (size: number) => (BLOCK - (size % BLOCK)) % BLOCK;

function text(h: Buffer, from: number, len: number): string {
  const field = h.subarray(from, from + len);
  const nul = field.indexOf(0);
  return field.subarray(0, nul < 0 ? len : nul).toString("utf8");
}

function octal(h: Buffer, from: number, len: number): number {
  const s = text(h, from, len).trim();
  if (!/^[0-7]{0,12}$/.test(s)) throw new TarFormatError("A header's number is not octal");
  return s ? Number.parseInt(s, 8) : 0;
}

function kindOf(flag: string): TarKind {
  if (flag === "0" || flag === "\0" || flag === "7") return "file";
  if (flag === "5") return "dir";
  if (flag === "2") return "symlink";
  return "other";
}

/** "len key=value\n" records; only path, linkpath and size are used. */
function paxRecords(data: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space < 0 || space - at > 8) throw new TarFormatError("A pax record has no length");
    const len = Number(data.subarray(at, space).toString("ascii"));
    if (!Number.isInteger(len) || len <= space - at + 1 || at + len > data.length)
      throw new TarFormatError("A pax record's length is wrong");
    const record = data.subarray(space + 1, at + len - 1).toString("utf8");
    const eq = record.indexOf("=");
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    at += len;
  }
  return out;
}

/** After the end blocks: GNU tar pads its last record to 10 KiB; more is not read. */
const MAX_TRAILING_BYTES = 1024 * 1024;

/**
 * Calls `onEntry` for each entry of the archive, in order; `body` yields its
 * content (files only) and what is not read of it is skipped.
 */
export async function readTar(
  source: AsyncIterable<Buffer>,
  onEntry: (entry: TarEntry, body: AsyncIterable<Buffer>) => Promise<void>,
): Promise<void> {
  const reader = new ByteReader(source[Symbol.asyncIterator]());
  let pax: Record<string, string> = {};
  for (;;) {
    const h = await reader.take(BLOCK);
    if (!h) throw new TarFormatError("The archive ended without its end blocks");
    if (h.every((b) => b === 0)) return reader.drain(MAX_TRAILING_BYTES);
    if (h.subarray(257, 262).toString("ascii") !== "ustar") throw new TarFormatError("Not a ustar or pax header");
    const flag = String.fromCharCode(h[156]);
    const declared = octal(h, 124, 12);
    if (flag === "x" || flag === "g") {
      if (declared > MAX_PAX_BYTES) throw new TarFormatError("A pax header is too large");
      const data = await reader.take(declared + padOf(declared));
      if (!data) throw new TarFormatError("The archive ended inside a pax header");
      if (flag === "x") pax = paxRecords(data.subarray(0, declared));
      continue;
    }
    const prefix = text(h, 345, 155);
    const name = text(h, 0, 100);
    const size = pax.size !== undefined ? Number(pax.size) : declared;
    if (!Number.isSafeInteger(size) || size < 0) throw new TarFormatError("A size is not a number");
    const entry: TarEntry = {
      path: pax.path ?? (prefix ? `${prefix}/${name}` : name),
      kind: kindOf(flag),
      mode: octal(h, 100, 8) & 0o7777,
      size: kindOf(flag) === "file" ? size : 0,
      target: pax.linkpath ?? text(h, 157, 100),
    };
    pax = {};
    const body = reader.stream(entry.size);
    await onEntry(entry, body);
    // What onEntry left unread, then the padding.
    for await (const part of body) void part;
    const rest = entry.kind === "file" ? padOf(size) : size + padOf(size);
    for await (const part of reader.stream(rest)) void part;
  }
}

function paxRecord(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`;
  const bytes = Buffer.byteLength(body);
  let len = bytes + 1;
  while (String(len).length + bytes !== len) len = String(len).length + bytes;
  return Buffer.from(`${len}${body}`, "utf8");
}

function header(name: string, flag: string, mode: number, size: number, target: string): Buffer {
  const h = Buffer.alloc(BLOCK);
  const put = (value: string, from: number, len: number) => h.write(value, from, len, "utf8");
  const num = (value: number, from: number, len: number) => put(`${value.toString(8).padStart(len - 1, "0")}\0`, from, len);
  put(name, 0, 100);
  num(mode & 0o7777, 100, 8);
  num(0, 108, 8);
  num(0, 116, 8);
  num(size, 124, 12);
  num(0, 136, 12);
  put("        ", 148, 8);
  put(flag, 156, 1);
  put(target, 157, 100);
  put("ustar\0", 257, 6);
  put("00", 263, 2);
  let sum = 0;
  for (const b of h) sum += b;
  put(`${sum.toString(8).padStart(6, "0")}\0 `, 148, 8);
  return h;
}

const plain = (s: string) => /^[\x20-\x7e]{0,99}$/.test(s);

/** The header blocks of one entry (a pax header first when a name is long or not ASCII). */
export function tarHeader(entry: TarEntry): Buffer {
  const flag = entry.kind === "dir" ? "5" : entry.kind === "symlink" ? "2" : "0";
  const size = entry.kind === "file" ? entry.size : 0;
  const records: Buffer[] = [];
  if (!plain(entry.path)) records.push(paxRecord("path", entry.path));
  if (entry.kind === "symlink" && !plain(entry.target)) records.push(paxRecord("linkpath", entry.target));
  const main = header(plain(entry.path) ? entry.path : "pax-named", flag, entry.mode, size, plain(entry.target) ? entry.target : "");
  if (!records.length) return main;
  const data = Buffer.concat(records);
  return Buffer.concat([header("pax-header", "x", 0o644, data.length, ""), data, Buffer.alloc(padOf(data.length)), main]);
}

/** The padding after a file's content of this size. */
export const tarPadding = (size: number) => Buffer.alloc(padOf(size));

/** The archive's end. */
export const TAR_END = Buffer.alloc(BLOCK * 2);
