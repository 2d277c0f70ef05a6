// A small RFB 3.8 client (RFC 6143) for tests and the desktop benchmark: the
// handshake, VNC authentication, ServerInit, and framebuffer updates counted
// and skipped over (not decoded). The DES is noVNC's, the client the Desktop
// tab runs; its package exports only the RFB class, so it is loaded by path.
import net from "node:net";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export const SECURITY_NONE = 1;
export const SECURITY_VNC_AUTH = 2;
const ENCODING_RAW = 0;
const ENCODING_COPYRECT = 1;
const ENCODING_ZRLE = 16;
const PSEUDO_DESKTOP_SIZE = -223;
const PSEUDO_LAST_RECT = -224;

type DesCipher = { encrypt(algorithm: unknown, data: Uint8Array): Uint8Array };
let des: Promise<{ DESECBCipher: { importKey(key: number[]): DesCipher } }> | null = null;

/** The 16-byte answer to a VNC authentication challenge. */
export async function vncAuthResponse(password: string, challenge: Buffer): Promise<Buffer> {
  des ??= import(pathToFileURL(path.join(root, "node_modules/@novnc/novnc/core/crypto/des.js")).href);
  const { DESECBCipher } = await des;
  const key = [...password.slice(0, 8).padEnd(8, "\0")].map((c) => c.charCodeAt(0));
  return Buffer.from(DESECBCipher.importKey(key).encrypt({ name: "DES-ECB" }, challenge));
}

/** Reads exact byte counts from a socket. */
class Reader {
  private buffer: Buffer = Buffer.alloc(0);
  private waiting: { n: number; resolve: (b: Buffer) => void; reject: (e: Error) => void } | null = null;
  private failed: Error | null = null;
  bytes = 0;

  constructor(private readonly socket: net.Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.bytes += chunk.length;
      this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
      this.pump();
    });
    const fail = (err: Error) => {
      this.failed = err;
      this.waiting?.reject(err);
      this.waiting = null;
    };
    socket.on("error", fail);
    socket.on("close", () => fail(new Error("the VNC server closed the connection")));
  }

  private pump() {
    if (this.waiting && this.buffer.length >= this.waiting.n) {
      const { n, resolve } = this.waiting;
      this.waiting = null;
      const out = this.buffer.subarray(0, n);
      this.buffer = this.buffer.subarray(n);
      resolve(out);
    }
  }

  read(n: number): Promise<Buffer> {
    if (n === 0) return Promise.resolve(Buffer.alloc(0));
    if (this.buffer.length >= n) {
      const out = this.buffer.subarray(0, n);
      this.buffer = this.buffer.subarray(n);
      return Promise.resolve(out);
    }
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.waiting = { n, resolve, reject };
    });
  }
}

export interface RfbConnection {
  socket: net.Socket;
  reader: Reader;
  version: string;
  /** The security types the server offers. */
  securityTypes: number[];
}

/** Connects and reads the version and the offered security types (RFB 3.8). */
export async function rfbConnect(port: number, host = "127.0.0.1"): Promise<RfbConnection> {
  const socket = net.connect({ host, port });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  const reader = new Reader(socket);
  const version = (await reader.read(12)).toString("latin1");
  socket.write("RFB 003.008\n");
  const count = (await reader.read(1))[0];
  if (count === 0) {
    const len = (await reader.read(4)).readUInt32BE(0);
    throw new Error(`the VNC server refused the connection: ${(await reader.read(len)).toString()}`);
  }
  const securityTypes = [...(await reader.read(count))];
  return { socket, reader, version: version.trim(), securityTypes };
}

export interface RfbSession extends RfbConnection {
  width: number;
  height: number;
  bitsPerPixel: number;
  /** Where red, green and blue sit in a pixel (the server's pixel format, little-endian here). */
  shifts: { red: number; green: number; blue: number };
  name: string;
}

/** VNC authentication; resolves with the session after ServerInit, or rejects with the server's reason. */
export async function rfbLogin(port: number, password: string): Promise<RfbSession> {
  const conn = await rfbConnect(port);
  const { socket, reader } = conn;
  try {
    if (!conn.securityTypes.includes(SECURITY_VNC_AUTH))
      throw new Error(`no VNC authentication offered (types ${conn.securityTypes.join(", ")})`);
    socket.write(Buffer.from([SECURITY_VNC_AUTH]));
    const challenge = await reader.read(16);
    socket.write(await vncAuthResponse(password, challenge));
    const result = (await reader.read(4)).readUInt32BE(0);
    if (result !== 0) {
      const len = (await reader.read(4)).readUInt32BE(0);
      throw new Error(`authentication failed: ${(await reader.read(len)).toString()}`);
    }
    socket.write(Buffer.from([1])); // ClientInit: shared
    const init = await reader.read(24);
    const nameLength = init.readUInt32BE(20);
    const name = (await reader.read(nameLength)).toString();
    return {
      ...conn,
      width: init.readUInt16BE(0),
      height: init.readUInt16BE(2),
      bitsPerPixel: init[4],
      shifts: { red: init[14], green: init[15], blue: init[16] },
      name,
    };
  } catch (err) {
    socket.destroy();
    throw err;
  }
}

function framebufferUpdateRequest(incremental: boolean, width: number, height: number): Buffer {
  const b = Buffer.alloc(10);
  b[0] = 3;
  b[1] = incremental ? 1 : 0;
  b.writeUInt16BE(width, 6);
  b.writeUInt16BE(height, 8);
  return b;
}

/**
 * Streams framebuffer updates as a viewer does: asks for ZRLE (as noVNC may),
 * CopyRect and raw, and asks for the next incremental update after each one.
 * Counts updates and bytes until `stop()`.
 */
export function streamUpdates(session: RfbSession) {
  const { socket, reader } = session;
  const encodings = [ENCODING_ZRLE, ENCODING_COPYRECT, ENCODING_RAW, PSEUDO_DESKTOP_SIZE, PSEUDO_LAST_RECT];
  const set = Buffer.alloc(4 + 4 * encodings.length);
  set[0] = 2;
  set.writeUInt16BE(encodings.length, 2);
  encodings.forEach((e, i) => set.writeInt32BE(e, 4 + 4 * i));
  socket.write(set);
  socket.write(framebufferUpdateRequest(false, session.width, session.height));
  const bytesPerPixel = session.bitsPerPixel / 8;
  const stats = { updates: 0, rects: 0, startBytes: reader.bytes, bytes: 0 };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const type = (await reader.read(1))[0];
      if (type === 0) {
        const rects = (await reader.read(3)).readUInt16BE(1);
        for (let i = 0; i < rects; i++) {
          const head = await reader.read(12);
          const w = head.readUInt16BE(4);
          const h = head.readUInt16BE(6);
          const encoding = head.readInt32BE(8);
          if (encoding === PSEUDO_LAST_RECT) break;
          if (encoding === ENCODING_RAW) await reader.read(w * h * bytesPerPixel);
          else if (encoding === ENCODING_COPYRECT) await reader.read(4);
          else if (encoding === ENCODING_ZRLE) await reader.read((await reader.read(4)).readUInt32BE(0));
          else if (encoding !== PSEUDO_DESKTOP_SIZE) throw new Error(`unexpected encoding ${encoding}`);
          stats.rects++;
        }
        stats.updates++;
        if (!stopped) socket.write(framebufferUpdateRequest(true, session.width, session.height));
      } else if (type === 1) {
        const head = await reader.read(5);
        await reader.read(head.readUInt16BE(3) * 6);
      } else if (type === 3) {
        await reader.read(3);
        await reader.read((await reader.read(4)).readUInt32BE(0));
      } else if (type !== 2) {
        throw new Error(`unexpected server message ${type}`);
      }
    }
  })().catch((err) => {
    if (!stopped) throw err;
  });
  return {
    stats,
    /** Stops counting and closes the connection. */
    async stop() {
      stopped = true;
      stats.bytes = reader.bytes - stats.startBytes;
      socket.destroy();
      await loop.catch(() => {});
      return stats;
    },
  };
}

/** The whole screen once, as RGB bytes (raw encoding only), for checks of what the desktop shows. */
export async function readScreen(session: RfbSession): Promise<Buffer> {
  const { socket, reader, width, height, shifts } = session;
  if (session.bitsPerPixel !== 32) throw new Error(`readScreen handles 32-bit pixels, not ${session.bitsPerPixel}`);
  const set = Buffer.alloc(8);
  set[0] = 2;
  set.writeUInt16BE(1, 2);
  set.writeInt32BE(ENCODING_RAW, 4);
  socket.write(set);
  socket.write(framebufferUpdateRequest(false, width, height));
  const rgb = Buffer.alloc(width * height * 3);
  for (;;) {
    const type = (await reader.read(1))[0];
    if (type !== 0) throw new Error(`unexpected server message ${type} before the screen`);
    const rects = (await reader.read(3)).readUInt16BE(1);
    let covered = 0;
    for (let i = 0; i < rects; i++) {
      const head = await reader.read(12);
      const [x, y, w, h] = [head.readUInt16BE(0), head.readUInt16BE(2), head.readUInt16BE(4), head.readUInt16BE(6)];
      if (head.readInt32BE(8) !== ENCODING_RAW) throw new Error(`unexpected encoding ${head.readInt32BE(8)}`);
      const pixels = await reader.read(w * h * 4);
      for (let row = 0; row < h; row++) {
        for (let col = 0; col < w; col++) {
          const v = pixels.readUInt32LE((row * w + col) * 4);
          const at = ((y + row) * width + x + col) * 3;
          rgb[at] = (v >>> shifts.red) & 255;
          rgb[at + 1] = (v >>> shifts.green) & 255;
          rgb[at + 2] = (v >>> shifts.blue) & 255;
        }
      }
      covered += w * h;
    }
    if (covered >= width * height) return rgb;
  }
}
