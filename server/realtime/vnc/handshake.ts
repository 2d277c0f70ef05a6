// The two RFB 3.8 handshakes the proxy does (RFC 6143 section 7.1-7.3). To
// the desktop's VNC server it is a client that knows the password (VNC
// authentication, DES challenge-response) and always asks for a shared
// session, since several people watch at once. To the browser it is a server
// that needs no password (security type None): the browser has already been
// authenticated as a Rein user, and never learns the VNC password.
import net from "node:net";
import { vncAuthResponse } from "./des";

const VERSION = Buffer.from("RFB 003.008\n", "latin1");
const SECURITY_NONE = 1;
const SECURITY_VNC = 2;

export class VncHandshakeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "VncHandshakeError";
  }
}

/** Bytes as they arrive, read in exact amounts. */
export class ByteQueue {
  private chunks: Buffer[] = [];
  private length = 0;
  private waiter: { n: number; resolve(b: Buffer): void; reject(e: Error): void } | null = null;
  private failure: Error | null = null;

  push(chunk: Buffer) {
    this.chunks.push(chunk);
    this.length += chunk.length;
    this.wake();
  }

  /** No more bytes will come: a pending and every later read fails with `err`. */
  fail(err: Error) {
    this.failure ??= err;
    this.wake();
  }

  read(n: number): Promise<Buffer> {
    if (this.waiter) return Promise.reject(new Error("one read at a time"));
    return new Promise((resolve, reject) => {
      this.waiter = { n, resolve, reject };
      this.wake();
    });
  }

  /** Everything received and not read yet; the queue is empty after. */
  drain(): Buffer {
    const all = Buffer.concat(this.chunks);
    this.chunks = [];
    this.length = 0;
    return all;
  }

  private wake() {
    const w = this.waiter;
    if (!w) return;
    if (this.length >= w.n) {
      this.waiter = null;
      const all = Buffer.concat(this.chunks);
      this.chunks = all.length > w.n ? [all.subarray(w.n)] : [];
      this.length = all.length - w.n;
      w.resolve(all.subarray(0, w.n));
    } else if (this.failure) {
      this.waiter = null;
      w.reject(this.failure);
    }
  }
}

async function readReason(read: (n: number) => Promise<Buffer>): Promise<string> {
  const length = (await read(4)).readUInt32BE(0);
  return (await read(Math.min(length, 4096))).toString("utf8");
}

function checkVersion(version: Buffer, who: string): void {
  const match = /^RFB (\d{3})\.(\d{3})\n$/.exec(version.toString("latin1"));
  if (!match) throw new VncHandshakeError(`${who} did not start with an RFB version`);
  const [major, minor] = [Number(match[1]), Number(match[2])];
  if (major !== 3 || minor < 8) throw new VncHandshakeError(`${who} speaks RFB ${major}.${minor}; 3.8 is needed`);
}

export interface VncSession {
  socket: net.Socket;
  /** The server's ServerInit message, as the browser gets it. */
  serverInit: Buffer;
  width: number;
  height: number;
  /** Bytes the server sent after ServerInit (forwarded once the browser is ready). */
  rest: Buffer;
}

/**
 * Connects to a VNC server on 127.0.0.1 (only: the desktop's port is never
 * reachable from elsewhere) and logs in with the password, as a shared session.
 */
export function connectVnc(opts: { port: number; password: string; timeoutMs?: number }): Promise<VncSession> {
  const socket = net.connect({ host: "127.0.0.1", port: opts.port });
  const queue = new ByteQueue();
  socket.on("data", (chunk: Buffer) => queue.push(chunk));
  socket.on("error", (err) => queue.fail(new VncHandshakeError(`the desktop's VNC server is not reachable: ${err.message}`)));
  socket.on("close", () => queue.fail(new VncHandshakeError("the desktop's VNC server closed the connection during the handshake")));
  const timer = setTimeout(
    () => queue.fail(new VncHandshakeError("the desktop's VNC server did not finish the handshake in time")),
    opts.timeoutMs ?? 10_000,
  );
  const read = (n: number) => queue.read(n);

  const handshake = async (): Promise<VncSession> => {
    checkVersion(await read(12), "The desktop's VNC server");
    socket.write(VERSION);
    const count = (await read(1))[0];
    if (count === 0) throw new VncHandshakeError(`the desktop's VNC server refused the connection: ${await readReason(read)}`);
    const types = [...(await read(count))];
    if (types.includes(SECURITY_VNC)) {
      socket.write(Buffer.from([SECURITY_VNC]));
      socket.write(vncAuthResponse(opts.password, await read(16)));
    } else if (types.includes(SECURITY_NONE)) {
      socket.write(Buffer.from([SECURITY_NONE]));
    } else {
      throw new VncHandshakeError(`the desktop's VNC server offers no security type the proxy supports (${types.join(", ")})`);
    }
    if ((await read(4)).readUInt32BE(0) !== 0)
      throw new VncHandshakeError(`the desktop's VNC server refused the password: ${await readReason(read)}`);
    // ClientInit: shared, so one person's connection never disconnects another's.
    socket.write(Buffer.from([1]));
    const head = await read(24);
    const name = await read(head.readUInt32BE(20));
    return {
      socket,
      serverInit: Buffer.concat([head, name]),
      width: head.readUInt16BE(0),
      height: head.readUInt16BE(2),
      rest: queue.drain(),
    };
  };

  return handshake().then(
    (session) => {
      clearTimeout(timer);
      socket.removeAllListeners("data");
      socket.removeAllListeners("close");
      socket.removeAllListeners("error");
      // Until the relay takes over, data waits in the socket (the relay resumes it), and an error
      // only closes it (the relay checks for that).
      socket.pause();
      socket.on("error", () => {});
      return session;
    },
    (err: Error) => {
      clearTimeout(timer);
      socket.destroy();
      throw err instanceof VncHandshakeError ? err : new VncHandshakeError(err.message);
    },
  );
}

/**
 * The browser's handshake: version, security None, the browser's ClientInit
 * (its shared flag is ignored: the proxy always shares), then the desktop's
 * ServerInit. `send` writes one message; `read` reads from the browser.
 */
export async function greetBrowser(io: { send(bytes: Buffer): void; read(n: number): Promise<Buffer> }, serverInit: Buffer): Promise<void> {
  io.send(VERSION);
  checkVersion(await io.read(12), "The browser");
  io.send(Buffer.from([1, SECURITY_NONE]));
  const chosen = (await io.read(1))[0];
  if (chosen !== SECURITY_NONE) throw new VncHandshakeError(`the browser chose security type ${chosen}; only None (1) is offered`);
  io.send(Buffer.from([0, 0, 0, 0]));
  await io.read(1);
  io.send(serverInit);
}
