// One device's socket after its hello (docs/devices.md#the-socket): requests
// out with their ids, answers matched back, the terminal's stream, the
// heartbeat. Everything the device sends is a bounded frame checked against
// the schemas; a frame that is not the protocol closes the connection.
import type { WebSocket } from "ws";
import { type DeviceCapabilities, type DeviceOp, type ServerFrame } from "@/lib/device-protocol";
import { DeviceError } from "./errors";
import { DeviceFrameSchema } from "./schemas";

export interface ConnectionLimits {
  /** Requests waiting for an answer at once; more are refused with DEVICE_BUSY. */
  maxPending: number;
  /** Terminal sessions open at once. */
  maxShells: number;
  /** Frames per second a device may send on average, and in a burst. */
  framesPerSecond: number;
  frameBurst: number;
}

export interface ShellListener {
  onData(data: string): void;
  onExit(code: number | null): void;
}

interface Pending {
  op: DeviceOp;
  resolve(value: unknown): void;
  reject(err: DeviceError): void;
  timer: NodeJS.Timeout;
  cleanup(): void;
}

/** Ids a late answer may still carry (the request timed out or was aborted); anything else is an answer to nothing. */
const RECENT_IDS = 256;

export class DeviceConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly abandoned = new Set<number>();
  private readonly shells = new Map<string, ShellListener>();
  private tokens: number;
  private tokensAt = Date.now();
  lastFrameAt = Date.now();
  readonly connectedAt = new Date();
  closed = false;

  constructor(
    readonly deviceId: string,
    readonly name: string,
    readonly capabilities: DeviceCapabilities,
    private readonly ws: WebSocket,
    private readonly limits: ConnectionLimits,
    private readonly onViolation: (message: string) => void,
  ) {
    this.tokens = limits.frameBurst;
  }

  send(frame: ServerFrame): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(JSON.stringify(frame));
  }

  close(code: number, reason: string): void {
    if (this.ws.readyState === this.ws.OPEN || this.ws.readyState === this.ws.CONNECTING) this.ws.close(code, reason.slice(0, 120));
    // A device that never answers the close handshake is cut after a moment.
    setTimeout(() => this.ws.terminate(), 2_000).unref();
  }

  /** A frame from the device, already a string of at most the frame limit. */
  receive(text: string): void {
    this.lastFrameAt = Date.now();
    if (!this.takeToken()) return this.onViolation("too many frames too fast");
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return this.onViolation("a frame that is not JSON");
    }
    const parsed = DeviceFrameSchema.safeParse(json);
    if (!parsed.success) return this.onViolation("a frame that is not the protocol");
    const frame = parsed.data;
    switch (frame.t) {
      case "pong":
        return;
      case "res": {
        const p = this.pending.get(frame.id);
        if (!p) {
          if (this.abandoned.has(frame.id)) return void this.abandoned.delete(frame.id);
          return this.onViolation(`an answer to request ${frame.id}, which was never asked`);
        }
        this.settle(frame.id);
        if (frame.ok) return p.resolve(frame.result);
        const error = frame.error ?? { code: "FAILED", message: "no reason given" };
        return p.reject(deviceRefusal(this.name, error.code, error.message));
      }
      case "shell.data":
        return this.shells.get(frame.session)?.onData(frame.data);
      case "shell.exit": {
        const shell = this.shells.get(frame.session);
        this.shells.delete(frame.session);
        return shell?.onExit(frame.code);
      }
    }
  }

  private takeToken(): boolean {
    const now = Date.now();
    this.tokens = Math.min(this.limits.frameBurst, this.tokens + ((now - this.tokensAt) / 1000) * this.limits.framesPerSecond);
    this.tokensAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  request(op: DeviceOp, params: unknown, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
    if (this.closed) return Promise.reject(offline(this.name));
    if (this.pending.size >= this.limits.maxPending)
      return Promise.reject(
        new DeviceError("DEVICE_BUSY", `The device ${this.name} has ${this.pending.size} requests waiting for answers; try again shortly`),
      );
    if (signal?.aborted) return Promise.reject(new DeviceError("ABORTED", "The request was cancelled before it was sent"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.abandon(id);
        reject(new DeviceError("ABORTED", `The request to the device ${this.name} was cancelled`));
      };
      const timer = setTimeout(() => {
        this.abandon(id);
        reject(
          new DeviceError(
            "TIMEOUT",
            `The device ${this.name} did not answer within ${Math.round(timeoutMs / 1000)} s` +
              (op === "consent" ? ": its owner did not say yes in time" : ": it may be busy or its network slow"),
          ),
        );
      }, timeoutMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.pending.set(id, { op, resolve, reject, timer, cleanup: () => signal?.removeEventListener("abort", onAbort) });
      this.send({ t: "req", id, op, params });
    });
  }

  private settle(id: number): Pending | undefined {
    const p = this.pending.get(id);
    if (!p) return undefined;
    this.pending.delete(id);
    clearTimeout(p.timer);
    p.cleanup();
    return p;
  }

  private abandon(id: number) {
    if (!this.settle(id)) return;
    this.abandoned.add(id);
    if (this.abandoned.size > RECENT_IDS) this.abandoned.delete(this.abandoned.values().next().value!);
  }

  addShell(session: string, listener: ShellListener): void {
    if (this.shells.size >= this.limits.maxShells)
      throw new DeviceError("DEVICE_BUSY", `The device ${this.name} has ${this.shells.size} terminals open; close one first`);
    this.shells.set(session, listener);
  }

  dropShell(session: string): void {
    this.shells.delete(session);
  }

  /** The socket ended: what waited fails, open terminals end. */
  ended(why: DeviceError): void {
    this.closed = true;
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(why);
    for (const [, shell] of this.shells) shell.onExit(null);
    this.shells.clear();
  }

  get pendingCount(): number {
    return this.pending.size;
  }
}

export const offline = (name: string) =>
  new DeviceError("DEVICE_OFFLINE", `The device ${name} is not connected: its owner starts it with \`rein-device run\``);

/** The file service's refusals and the agent's own, as the hub's callers see them. */
function deviceRefusal(name: string, code: string, message: string): DeviceError {
  const failed = code === "IO_ERROR" || code === "FAILED" || code === "NO_SPACE" || code === "FILE_SERVICE_EXITED";
  return new DeviceError(failed ? "DEVICE_FAILED" : "DEVICE_REFUSED", `The device ${name}: ${message}`, code);
}
