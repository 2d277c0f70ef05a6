// The browser's half of an RFB session after the handshake (RFC 6143 section
// 7.5, and the extensions noVNC sends), cut into whole messages however the
// websocket frames split them, so the proxy can drop a person's input without
// the VNC server ever seeing a byte of it. Every message that is passed on is
// framed by the same length rule the VNC server uses, so what the server reads
// is exactly the messages passed: a dropped or malformed message cannot shift
// its framing. A message type this file does not know closes the connection.

export type ClientMessageType =
  | "SetPixelFormat"
  | "SetEncodings"
  | "FramebufferUpdateRequest"
  | "KeyEvent"
  | "PointerEvent"
  | "ClientCutText"
  | "EnableContinuousUpdates"
  | "Fence"
  | "Xvp"
  | "SetDesktopSize"
  | "QemuKeyEvent"
  | "QemuAudio";

/** Messages that act on the desktop: only the person who controls it may send them. */
export const INPUT_MESSAGES: ReadonlySet<ClientMessageType> = new Set([
  "KeyEvent",
  "PointerEvent",
  "ClientCutText",
  "SetDesktopSize",
  "QemuKeyEvent",
]);

/** Power operations (shut down, reboot) on the machine behind the VNC server: never passed on. */
export const NEVER_PASSED: ReadonlySet<ClientMessageType> = new Set(["Xvp"]);

/** Clipboard text larger than this closes the connection (it is streamed, never held, below it). */
export const MAX_CUT_TEXT = 32 * 1024 * 1024;
const MAX_FENCE_PAYLOAD = 64;

export class RfbProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RfbProtocolError";
  }
}

interface Framing {
  type: ClientMessageType;
  /** The whole message, header included. */
  length: number;
  /** The fixed part before a variable payload. */
  headerLength: number;
}

/** How long the message at the start of `buf` is, or null when more bytes are needed to tell. */
export function frameClientMessage(buf: Buffer): Framing | null {
  const need = (n: number) => buf.length >= n;
  const fixed = (type: ClientMessageType, length: number): Framing => ({ type, length, headerLength: length });
  switch (buf[0]) {
    case 0:
      return fixed("SetPixelFormat", 20);
    case 2:
      return need(4) ? { type: "SetEncodings", length: 4 + 4 * buf.readUInt16BE(2), headerLength: 4 } : null;
    case 3:
      return fixed("FramebufferUpdateRequest", 10);
    case 4:
      return fixed("KeyEvent", 8);
    case 5:
      // noVNC's ExtendedMouseButtons form sets the top bit of the mask and adds a byte.
      return need(2) ? fixed("PointerEvent", buf[1] & 0x80 ? 7 : 6) : null;
    case 6: {
      if (!need(8)) return null;
      // A negative length is the extended clipboard format; its size is the absolute value.
      const size = Math.abs(buf.readInt32BE(4));
      if (size > MAX_CUT_TEXT) throw new RfbProtocolError(`clipboard text of ${size} bytes is over the limit of ${MAX_CUT_TEXT}`);
      return { type: "ClientCutText", length: 8 + size, headerLength: 8 };
    }
    case 150:
      return fixed("EnableContinuousUpdates", 10);
    case 248: {
      if (!need(9)) return null;
      if (buf[8] > MAX_FENCE_PAYLOAD)
        throw new RfbProtocolError(`a fence payload of ${buf[8]} bytes is over the limit of ${MAX_FENCE_PAYLOAD}`);
      return { type: "Fence", length: 9 + buf[8], headerLength: 9 };
    }
    case 250:
      return fixed("Xvp", 4);
    case 251:
      return need(8) ? { type: "SetDesktopSize", length: 8 + 16 * buf[6], headerLength: 8 } : null;
    case 255:
      if (!need(2)) return null;
      if (buf[1] === 0) return fixed("QemuKeyEvent", 12);
      if (buf[1] === 1) return need(4) ? fixed("QemuAudio", buf.readUInt16BE(2) === 2 ? 10 : 4) : null;
      throw new RfbProtocolError(`unknown QEMU client message ${buf[1]}`);
    default:
      throw new RfbProtocolError(`unknown client message type ${buf[0]}`);
  }
}

/** Asked once per message: pass it on (true) or drop it. `bytes` is the whole message, or its header when it is streamed. */
export type ClientMessageGate = (type: ClientMessageType, bytes: Buffer) => boolean;

/**
 * Feeds the browser's bytes in, gets the bytes for the VNC server out. Whole
 * messages are held until complete (the largest, SetEncodings, is 256 KiB);
 * clipboard text is streamed so a large paste is never held in memory.
 */
export class ClientMessageFilter {
  private rest: Buffer = Buffer.alloc(0);
  private streaming: { remaining: number; forward: boolean } | null = null;

  constructor(private readonly gate: ClientMessageGate) {}

  /** Throws RfbProtocolError for a message it cannot frame; the connection must close then. */
  push(chunk: Buffer): Buffer[] {
    const out: Buffer[] = [];
    let buf = this.rest.length ? Buffer.concat([this.rest, chunk]) : chunk;
    this.rest = Buffer.alloc(0);
    while (buf.length) {
      if (this.streaming) {
        const n = Math.min(this.streaming.remaining, buf.length);
        if (this.streaming.forward) out.push(buf.subarray(0, n));
        this.streaming.remaining -= n;
        if (this.streaming.remaining === 0) this.streaming = null;
        buf = buf.subarray(n);
        continue;
      }
      const framing = frameClientMessage(buf);
      if (framing && framing.length <= buf.length) {
        const message = buf.subarray(0, framing.length);
        if (this.gate(framing.type, message)) out.push(message);
        buf = buf.subarray(framing.length);
      } else if (framing?.type === "ClientCutText" && buf.length >= framing.headerLength) {
        const forward = this.gate(framing.type, buf.subarray(0, framing.headerLength));
        if (forward) out.push(buf);
        this.streaming = { remaining: framing.length - buf.length, forward };
        buf = buf.subarray(buf.length);
      } else {
        // A copy: the rest of a large websocket message is not kept alive by a few bytes.
        this.rest = Buffer.from(buf);
        break;
      }
    }
    return out;
  }

  /** True between messages; false while one has begun but not ended. */
  get atBoundary(): boolean {
    return this.rest.length === 0 && !this.streaming;
  }
}

/**
 * The proxy's rule: input passes only from the person who controls the
 * desktop (asked per message, so control can change mid-stream); power
 * operations never pass; everything else (what the viewer wants to see and
 * how) always does. `onPassed` sees each message that goes on.
 */
export function viewOnlyGate(controlling: () => boolean, onPassed?: ClientMessageGate): ClientMessageGate {
  return (type, bytes) => {
    if (NEVER_PASSED.has(type)) return false;
    if (INPUT_MESSAGES.has(type) && !controlling()) return false;
    onPassed?.(type, bytes);
    return true;
  };
}
