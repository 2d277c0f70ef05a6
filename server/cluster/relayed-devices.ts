// A worker's way to people's devices (docs/devices.md#with-several-machines):
// which are online comes from the web processes' announcements, and every
// request and terminal goes to the web process that holds the device's socket
// (server/cluster/devices.ts serves them there). When that process goes away
// (it says so, or its heartbeat stops), what waited on it fails with
// DEVICE_DISCONNECTED and its terminals end.
import crypto from "node:crypto";
import type { DeviceOp, DeviceOps } from "@/lib/device-protocol";
import {
  DeviceError,
  DeviceShell,
  deviceOffline,
  requestTimeoutMs,
  type DeviceAccess,
  type DeviceErrorCode,
  type DeviceEvent,
  type DeviceListener,
  type RequestOptions,
  type ShellHandlers,
  type ShellSize,
} from "@/server/devices";
import { HEARTBEAT_MS } from "./processes";
import {
  DEVICE_HOST_SILENT_MS,
  MAX_RELAY_MESSAGE,
  isId,
  readRelayed,
  type DeviceChannels,
  type DeviceHostEvent,
  type RelayAnswer,
  type RelayRequest,
} from "./devices";
import type { Redis } from "./redis";

export interface RelayLimits {
  /** Relayed requests waiting for answers at once, over all devices; more are refused with DEVICE_BUSY. */
  maxPending: number;
  /** Relayed terminals open at once. */
  maxShells: number;
  /** A web process silent this long is gone. */
  silentMs: number;
}

const DEFAULT_LIMITS: RelayLimits = { maxPending: 256, maxShells: 64, silentMs: DEVICE_HOST_SILENT_MS };
const MAX_NAMES = 10_000;
/** The web process answers a timed-out request itself; this is only for an answer lost on the way. */
const ANSWER_MARGIN_MS = 5_000;
const ERROR_CODES: readonly DeviceErrorCode[] = [
  "DEVICE_OFFLINE",
  "DEVICE_REFUSED",
  "TIMEOUT",
  "DEVICE_BUSY",
  "DEVICE_DISCONNECTED",
  "ABORTED",
  "DEVICE_REVOKED",
  "DEVICE_FAILED",
];

interface Pending {
  host: string;
  deviceId: string;
  resolve(value: unknown): void;
  reject(err: DeviceError): void;
  timer: NodeJS.Timeout;
  cleanup(): void;
}

interface RelayedShell {
  host: string;
  deviceId: string;
  handlers: ShellHandlers;
}

export class RelayedDevices implements DeviceAccess {
  /** deviceId -> the web process holding its socket. */
  private readonly devices = new Map<string, { host: string; name: string }>();
  /** The names of devices seen online, for the words of an offline one's error. */
  private readonly names = new Map<string, string>();
  /** Web process -> when it was last heard from. */
  private readonly hosts = new Map<string, number>();
  private readonly pending = new Map<number, Pending>();
  private readonly shells = new Map<string, RelayedShell>();
  private readonly listeners: Record<DeviceEvent, Set<DeviceListener>> = { online: new Set(), offline: new Set() };
  private readonly limits: RelayLimits;
  private nextId = 1;
  private sub: Redis | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly opts: {
      redis: Redis;
      channels: DeviceChannels;
      /** This worker's id (the registry's). */
      worker: string;
      log: { error(msg: string, err?: unknown): void };
      limits?: Partial<RelayLimits>;
    },
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
  }

  async start(): Promise<void> {
    const { redis, channels, worker } = this.opts;
    this.sub = redis.duplicate();
    this.sub.on("message", (channel, raw) => (channel === channels.events ? this.onEvent(raw) : this.onAnswer(raw)));
    await this.sub.subscribe(channels.events, channels.answers(worker));
    // The devices online before this worker listened: from each web process's hash.
    const prefix = channels.hosted("");
    for await (const keys of redis.scanStream({ match: channels.hostedPattern, count: 100 }) as AsyncIterable<string[]>)
      for (const key of keys) await this.load(key.slice(prefix.length));
    this.timer = setInterval(() => this.sweep(), Math.min(HEARTBEAT_MS, this.limits.silentMs));
    this.timer.unref();
  }

  /** One web process's devices, read from its hash. */
  private async load(host: string) {
    if (!isId(host)) return;
    this.hosts.set(host, Date.now());
    const devices = await this.opts.redis.hgetall(this.opts.channels.hosted(host));
    for (const [id, name] of Object.entries(devices)) if (isId(id) && !this.devices.has(id)) this.online(host, id, name.slice(0, 200));
  }

  private onEvent(raw: string) {
    const e = readRelayed<DeviceHostEvent>(raw);
    if (!e || !isId(e.host)) return;
    const host = e.host;
    const known = this.hosts.has(host);
    this.hosts.set(host, Date.now());
    if (e.kind === "gone") return this.hostGone(host, "its web process stopped");
    // A web process heard again after it was taken for gone (or before this worker knew it): its hash says what it holds.
    if (e.kind === "beat" && !known) void this.load(host).catch((err) => this.opts.log.error(`reading the devices of ${host} failed`, err));
    if ((e.kind !== "online" && e.kind !== "offline") || !isId(e.id) || typeof e.name !== "string") return;
    if (e.kind === "online") return this.online(host, e.id, e.name.slice(0, 200));
    this.dropRoute(host, e.id, `The device ${e.name} disconnected before it answered`);
    if (this.devices.get(e.id)?.host !== host) return;
    this.devices.delete(e.id);
    this.emit("offline", { id: e.id, name: e.name });
  }

  private online(host: string, id: string, name: string) {
    const before = this.devices.get(id);
    this.devices.set(id, { host, name });
    this.names.delete(id);
    this.names.set(id, name);
    if (this.names.size > MAX_NAMES) this.names.delete(this.names.keys().next().value!);
    if (before?.host !== host) this.emit("online", { id, name });
  }

  /** Web processes silent for too long are gone. */
  private sweep() {
    const now = Date.now();
    for (const [host, heard] of this.hosts) if (now - heard > this.limits.silentMs) this.hostGone(host, "its web process is gone");
  }

  private hostGone(host: string, why: string) {
    this.hosts.delete(host);
    for (const [id, d] of [...this.devices]) {
      if (d.host !== host) continue;
      this.devices.delete(id);
      this.dropRoute(host, id, `The device ${d.name} disconnected before it answered: ${why}`);
      this.emit("offline", { id, name: d.name });
    }
  }

  /** What waited on a device through `host` fails, and its terminals there end. */
  private dropRoute(host: string, deviceId: string, message: string) {
    for (const [id, p] of [...this.pending])
      if (p.host === host && p.deviceId === deviceId) this.settle(id)?.reject(new DeviceError("DEVICE_DISCONNECTED", message));
    for (const [session, s] of [...this.shells])
      if (s.host === host && s.deviceId === deviceId) {
        this.shells.delete(session);
        s.handlers.onExit(null);
      }
  }

  private onAnswer(raw: string) {
    const a = readRelayed<RelayAnswer>(raw);
    if (a?.kind === "res" && Number.isSafeInteger(a.id)) {
      const p = this.settle(a.id!);
      if (!p) return;
      if (a.ok === true) return p.resolve(a.result);
      const error = (a as { error?: { code?: unknown; message?: unknown; reason?: unknown } }).error ?? {};
      const code = ERROR_CODES.includes(error.code as DeviceErrorCode) ? (error.code as DeviceErrorCode) : "DEVICE_FAILED";
      const message = typeof error.message === "string" ? error.message.slice(0, 2_000) : "The device failed without saying why";
      return p.reject(new DeviceError(code, message, typeof error.reason === "string" ? error.reason.slice(0, 100) : undefined));
    }
    if ((a?.kind !== "data" && a?.kind !== "exit") || !isId(a.shell)) return;
    const shell = this.shells.get(a.shell);
    if (!shell) return;
    if (a.kind === "data") {
      if (typeof a.data === "string") shell.handlers.onData(a.data);
      return;
    }
    const code = (a as { code?: unknown }).code;
    this.shells.delete(a.shell);
    shell.handlers.onExit(Number.isSafeInteger(code) ? (code as number) : null);
  }

  private settle(id: number): Pending | undefined {
    const p = this.pending.get(id);
    if (!p) return undefined;
    this.pending.delete(id);
    clearTimeout(p.timer);
    p.cleanup();
    return p;
  }

  private nameOf(deviceId: string): string {
    return this.names.get(deviceId) ?? deviceId;
  }

  isOnline(deviceId: string): boolean {
    return this.devices.has(deviceId);
  }

  on(event: DeviceEvent, listener: DeviceListener): () => void {
    this.listeners[event].add(listener);
    return () => void this.listeners[event].delete(listener);
  }

  private emit(event: DeviceEvent, device: { id: string; name: string }) {
    for (const l of this.listeners[event]) {
      try {
        l(device);
      } catch (err) {
        this.opts.log.error(`a device ${event} listener failed`, err);
      }
    }
  }

  async request<O extends DeviceOp>(
    deviceId: string,
    op: O,
    params: DeviceOps[O]["params"],
    opts: RequestOptions = {},
  ): Promise<DeviceOps[O]["result"]> {
    const route = this.devices.get(deviceId);
    if (!route) throw deviceOffline(this.nameOf(deviceId));
    if (this.pending.size >= this.limits.maxPending)
      throw new DeviceError("DEVICE_BUSY", `${this.pending.size} requests to devices are waiting for answers; try again shortly`);
    if (opts.signal?.aborted) throw new DeviceError("ABORTED", "The request was cancelled before it was sent");
    const { redis, channels, worker } = this.opts;
    const id = this.nextId++;
    const timeoutMs = opts.timeoutMs ?? requestTimeoutMs(op);
    const message = JSON.stringify({ kind: "req", from: worker, id, deviceId, op, params, timeoutMs } satisfies RelayRequest);
    if (message.length > MAX_RELAY_MESSAGE)
      throw new DeviceError("DEVICE_FAILED", `The request is larger than a device takes (${MAX_RELAY_MESSAGE} bytes)`);
    const answer = new Promise<unknown>((resolve, reject) => {
      const onAbort = () => {
        if (!this.settle(id)) return;
        void redis.publish(channels.requests(route.host), JSON.stringify({ kind: "cancel", from: worker, id } satisfies RelayRequest));
        reject(new DeviceError("ABORTED", `The request to the device ${route.name} was cancelled`));
      };
      const timer = setTimeout(() => {
        if (this.settle(id))
          reject(new DeviceError("TIMEOUT", `The device ${route.name} did not answer within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs + ANSWER_MARGIN_MS);
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      this.pending.set(id, {
        host: route.host,
        deviceId,
        resolve,
        reject,
        timer,
        cleanup: () => opts.signal?.removeEventListener("abort", onAbort),
      });
    });
    redis.publish(channels.requests(route.host), message).then(
      // Nobody listens on that channel: the web process is gone.
      (heard) => {
        if (heard === 0)
          this.settle(id)?.reject(new DeviceError("DEVICE_DISCONNECTED", `The web process holding ${route.name}'s connection is gone`));
      },
      (err: Error) =>
        this.settle(id)?.reject(new DeviceError("DEVICE_FAILED", `The request could not be relayed to the device: ${err.message}`)),
    );
    try {
      return (await answer) as DeviceOps[O]["result"];
    } finally {
      if (op === "shell.close") this.shells.delete((params as { session: string }).session);
    }
  }

  async openShell(deviceId: string, size: ShellSize, handlers: ShellHandlers, opts: RequestOptions = {}): Promise<DeviceShell> {
    if (!this.devices.has(deviceId)) throw deviceOffline(this.nameOf(deviceId));
    if (this.shells.size >= this.limits.maxShells)
      throw new DeviceError("DEVICE_BUSY", `${this.shells.size} terminals on devices are open from this worker; close one first`);
    const session = crypto.randomBytes(12).toString("base64url");
    const shell = new DeviceShell(this, deviceId, session);
    const host = this.devices.get(deviceId)!.host;
    this.shells.set(session, {
      host,
      deviceId,
      handlers: { onData: handlers.onData, onExit: (code) => (shell.exited(), handlers.onExit(code)) },
    });
    try {
      await this.request(deviceId, "shell.open", { session, ...size }, opts);
    } catch (err) {
      this.shells.delete(session);
      throw err;
    }
    return shell;
  }

  /** This worker stops: what waits fails and its terminals end. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(new DeviceError("DEVICE_DISCONNECTED", "This worker is stopping"));
    for (const [session, s] of [...this.shells]) {
      this.shells.delete(session);
      s.handlers.onExit(null);
    }
    await this.sub?.quit().catch(() => {});
  }
}
