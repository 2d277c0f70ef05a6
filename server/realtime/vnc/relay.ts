// One browser's VNC connection: the browser's websocket on one side, the
// desktop's VNC server (127.0.0.1) on the other. The proxy logs in to the
// VNC server, greets the browser without a password, then relays: the
// server's bytes as they come (with backpressure), the browser's through the
// message filter, which drops input from anyone not in control.
import type { WebSocket } from "ws";
import { ClientMessageFilter, RfbProtocolError, type ClientMessageGate } from "./client-messages";
import { ByteQueue, VncHandshakeError, greetBrowser, type VncSession } from "./handshake";
import { VNC_CLOSE } from "./protocol";

/** Pause reading the VNC server while this much is waiting for a slow browser. */
const HIGH_WATER = 4 * 1024 * 1024;
const LOW_WATER = 1024 * 1024;

/** A websocket close reason is at most 123 bytes of UTF-8. */
export function closeReason(text: string): string {
  let out = text;
  while (Buffer.byteLength(out) > 123) out = `${out.slice(0, out.length - 2)}…`;
  return out;
}

export function closeSocket(ws: WebSocket, code: number, reason: string) {
  if (ws.readyState === ws.CLOSING || ws.readyState === ws.CLOSED) return;
  ws.close(code, closeReason(reason));
  // A browser that does not answer the close is cut off.
  setTimeout(() => ws.terminate(), 5000).unref();
}

export class VncRelay {
  private session: VncSession | null = null;
  private closed = false;
  private readonly endListeners: Array<(code: number, reason: string) => void> = [];

  constructor(
    private readonly ws: WebSocket,
    private readonly gate: ClientMessageGate,
  ) {
    ws.on("close", (code, reason) => this.finish(code, reason.toString()));
    ws.on("error", () => this.finish(1006, "the browser's connection failed"));
  }

  onEnd(listener: (code: number, reason: string) => void) {
    this.endListeners.push(listener);
  }

  /** Logs in to the VNC server (`open`), greets the browser, then relays until either side closes. */
  async start(open: () => Promise<VncSession>): Promise<void> {
    const fromBrowser = new ByteQueue();
    const onHandshakeMessage = (data: Buffer, isBinary: boolean) =>
      isBinary ? fromBrowser.push(data) : fromBrowser.fail(new RfbProtocolError("text frames are not RFB"));
    this.ws.on("message", onHandshakeMessage);
    this.ws.once("close", () => fromBrowser.fail(new Error("the browser left")));
    let session: VncSession;
    try {
      session = await open();
    } catch (err) {
      return this.close(VNC_CLOSE.vncFailed, `Could not connect to the desktop: ${(err as Error).message}`);
    }
    if (this.closed) return void session.socket.destroy();
    this.session = session;
    try {
      await greetBrowser({ send: (b) => this.ws.send(b), read: (n) => fromBrowser.read(n) }, session.serverInit);
    } catch (err) {
      if (err instanceof VncHandshakeError || err instanceof RfbProtocolError)
        return this.close(VNC_CLOSE.protocol, `Protocol error: ${err.message}`);
      return this.close(1000, "The browser left during the handshake");
    }
    if (this.closed) return;
    this.ws.off("message", onHandshakeMessage);
    this.relay(session, fromBrowser.drain());
  }

  private relay(session: VncSession, early: Buffer) {
    const { socket } = session;
    const filter = new ClientMessageFilter(this.gate);
    const toServer = (data: Buffer) => {
      let parts: Buffer[];
      try {
        parts = filter.push(data);
      } catch (err) {
        return this.close(VNC_CLOSE.protocol, `Protocol error: ${(err as Error).message}`);
      }
      let full = false;
      for (const part of parts) full = !socket.write(part) || full;
      // The VNC server reads slowly: stop reading the browser until it catches up.
      if (full && !this.ws.isPaused) {
        this.ws.pause();
        socket.once("drain", () => this.ws.resume());
      }
    };

    let paused = false;
    const toBrowser = (data: Buffer) => {
      this.ws.send(data, () => {
        if (paused && this.ws.bufferedAmount < LOW_WATER) {
          paused = false;
          socket.resume();
        }
      });
      if (!paused && this.ws.bufferedAmount > HIGH_WATER) {
        paused = true;
        socket.pause();
      }
    };

    socket.on("data", toBrowser);
    socket.on("close", () => this.close(VNC_CLOSE.desktopGone, "The desktop's VNC server closed the connection"));
    if (socket.destroyed) return this.close(VNC_CLOSE.desktopGone, "The desktop's VNC server closed the connection");
    this.ws.on("message", (data: Buffer, isBinary: boolean) => {
      if (!isBinary) return this.close(VNC_CLOSE.protocol, "Protocol error: text frames are not RFB");
      toServer(data);
    });
    if (session.rest.length) toBrowser(session.rest);
    if (early.length) toServer(early);
    socket.resume();
  }

  /** Closes both sides; the browser is told why. */
  close(code: number, reason: string) {
    closeSocket(this.ws, code, reason);
    this.finish(code, reason);
  }

  private finish(code: number, reason: string) {
    if (this.closed) return;
    this.closed = true;
    this.session?.socket.destroy();
    for (const l of this.endListeners) l(code, reason);
  }
}
