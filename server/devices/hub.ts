// The DeviceHub (docs/devices.md#the-hub): one per process, it holds the
// sockets of the devices connected to this process, says which are online,
// and carries requests to them. A device authenticates with its token in its
// first frame, never with a cookie: it is not a browser.
import crypto from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type RawData, type WebSocket } from "ws";
import type { Db } from "@/server/db";
import {
  DEVICE_CLOSE,
  DEVICE_HELLO_TIMEOUT_MS,
  DEVICE_MAX_FRAME_BYTES,
  DEVICE_PING_MS,
  DEVICE_PROTOCOL_VERSION,
  DEVICE_SILENT_MS,
  type DeviceCapabilities,
  type DeviceOp,
  type DeviceOps,
} from "@/lib/device-protocol";
import { requestTimeoutMs, type DeviceAccess, type DeviceEvent, type DeviceListener, type RequestOptions, type ShellSize } from "./access";
import { DeviceConnection, offline, type ConnectionLimits } from "./connection";
import { parseTeamIds, type DevicePresence } from "./devices";
import { DeviceError } from "./errors";
import { ConsentResultSchema, HelloFrame } from "./schemas";
import { DeviceShell, type ShellHandlers } from "./shell";
import { digest, looksLikeDeviceToken } from "./tokens";

export interface DeviceHubLimits extends ConnectionLimits {
  helloTimeoutMs: number;
  pingMs: number;
  silentMs: number;
  /** How often lastSeenAt is written for a connected device. */
  lastSeenEveryMs: number;
  /** Connections that have not said hello yet, at once; more are refused. */
  maxUnauthenticated: number;
}

export const DEFAULT_HUB_LIMITS: DeviceHubLimits = {
  helloTimeoutMs: DEVICE_HELLO_TIMEOUT_MS,
  pingMs: DEVICE_PING_MS,
  silentMs: DEVICE_SILENT_MS,
  lastSeenEveryMs: 60_000,
  maxUnauthenticated: 256,
  maxPending: 64,
  maxShells: 8,
  framesPerSecond: 200,
  frameBurst: 400,
};

export interface DeviceHubDeps {
  db: Db;
  log: { info(message: string): void; error(message: string, err?: unknown): void };
  limits?: Partial<DeviceHubLimits>;
}

export interface OnlineDevice {
  id: string;
  name: string;
  capabilities: DeviceCapabilities;
  since: Date;
}

export class DeviceHub implements DevicePresence, DeviceAccess {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: DEVICE_MAX_FRAME_BYTES, perMessageDeflate: false });
  private readonly connections = new Map<string, DeviceConnection>();
  private readonly listeners: Record<DeviceEvent, Set<DeviceListener>> = { online: new Set(), offline: new Set() };
  private readonly limits: DeviceHubLimits;
  private unauthenticated = 0;
  private stopping = false;

  constructor(private readonly deps: DeviceHubDeps) {
    this.limits = { ...DEFAULT_HUB_LIMITS, ...deps.limits };
  }

  /** Takes an HTTP upgrade on the device socket's path (the caller checked the path and the origin). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on("error", () => {});
    if (this.stopping || this.unauthenticated >= this.limits.maxUnauthenticated) {
      socket.end("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, req.socket.remoteAddress ?? "unknown"));
  }

  private accept(ws: WebSocket, address: string) {
    this.unauthenticated++;
    let state: "waiting" | "checking" | "ready" | "closed" = "waiting";
    let conn: DeviceConnection | null = null;
    const leaveWaiting = () => {
      if (state === "waiting" || state === "checking") this.unauthenticated--;
    };
    const refuse = (code: number, reason: string) => {
      leaveWaiting();
      state = "closed";
      ws.close(code, reason.slice(0, 120));
      setTimeout(() => ws.terminate(), 2_000).unref();
    };
    const helloTimer = setTimeout(() => {
      if (state === "waiting") refuse(DEVICE_CLOSE.unauthorized, "No hello within 5 s");
    }, this.limits.helloTimeoutMs);
    ws.on("error", () => {});
    ws.on("message", (data: RawData, isBinary: boolean) => {
      const text = isBinary ? null : rawText(data);
      if (state === "ready" && conn) {
        if (text === null) return this.violation(conn, "a binary frame");
        return conn.receive(text);
      }
      if (state !== "waiting") {
        // Anything before the welcome is an attempt to talk before being known.
        if (state === "checking") refuse(DEVICE_CLOSE.protocol, "Wait for the welcome before sending more");
        return;
      }
      clearTimeout(helloTimer);
      state = "checking";
      void this.hello(ws, text, address).then(
        (made) => {
          if (state !== "checking") {
            if (!("refuse" in made)) this.ended(made);
            return;
          }
          if ("refuse" in made) return refuse(made.refuse, made.reason);
          leaveWaiting();
          state = "ready";
          conn = made;
        },
        (err) => {
          this.deps.log.error(`device hello from ${address} failed`, err);
          refuse(1011, "Internal error");
        },
      );
    });
    ws.on("close", () => {
      clearTimeout(helloTimer);
      leaveWaiting();
      state = "closed";
      if (conn) this.ended(conn);
    });
  }

  /** The first frame: a token Rein knows and has not revoked, then the device is online here. */
  private async hello(ws: WebSocket, text: string | null, address: string): Promise<DeviceConnection | { refuse: number; reason: string }> {
    let json: unknown = null;
    try {
      json = text === null ? null : JSON.parse(text);
    } catch {
      /* refused below */
    }
    const hello = HelloFrame.safeParse(json);
    const version = (json as { version?: unknown } | null)?.version;
    if (!hello.success && typeof version === "number" && version > DEVICE_PROTOCOL_VERSION)
      return {
        refuse: DEVICE_CLOSE.protocol,
        reason: `This agent is newer than this Rein (protocol ${DEVICE_PROTOCOL_VERSION}): use the agent it serves`,
      };
    if (!hello.success)
      return { refuse: DEVICE_CLOSE.protocol, reason: "The first frame must be a hello with a token, a version and capabilities" };
    const { token, capabilities } = hello.data;
    if (!looksLikeDeviceToken(token))
      return { refuse: DEVICE_CLOSE.unauthorized, reason: "That is not a device token: pair the device again" };
    const row = await this.deps.db.device.findUnique({
      where: { tokenHash: digest(token) },
      select: { id: true, name: true, revokedAt: true, autoConsentTeamIds: true },
    });
    if (!row) return { refuse: DEVICE_CLOSE.unauthorized, reason: "This device token is not known: pair the device again" };
    if (row.revokedAt) return { refuse: DEVICE_CLOSE.unauthorized, reason: "This device was revoked: pair it again to use it" };
    await this.deps.db.device.update({
      where: { id: row.id },
      data: { capabilities: JSON.stringify(capabilities), lastSeenAt: new Date() },
      select: { id: true },
    });
    if (ws.readyState !== ws.OPEN) return { refuse: DEVICE_CLOSE.protocol, reason: "gone" };
    const conn = new DeviceConnection(row.id, row.name, capabilities, ws, this.limits, (why) => this.violation(conn, why));
    // The same device again (a reconnect the server had not noticed yet): the newer socket wins.
    const older = this.connections.get(row.id);
    this.connections.set(row.id, conn);
    if (older) {
      older.close(DEVICE_CLOSE.replaced, "This device connected again");
      older.ended(new DeviceError("DEVICE_DISCONNECTED", `The device ${older.name} connected again before it answered`));
    }
    conn.send({
      t: "welcome",
      deviceId: row.id,
      name: row.name,
      autoConsentTeamIds: parseTeamIds(row.autoConsentTeamIds),
      pingMs: this.limits.pingMs,
    });
    this.heartbeat(conn);
    this.deps.log.info(`device ${row.name} (${row.id}) is online from ${address}`);
    this.emit("online", { id: row.id, name: row.name });
    return conn;
  }

  /** Pings, a silent device cut, lastSeenAt written now and then, and revocations made by other processes noticed. */
  private heartbeat(conn: DeviceConnection) {
    let lastWritten = Date.now();
    const timer = setInterval(() => {
      if (conn.closed) return clearInterval(timer);
      if (Date.now() - conn.lastFrameAt > this.limits.silentMs) return conn.close(1001, "Silent for too long");
      conn.send({ t: "ping" });
      const write = conn.lastFrameAt - lastWritten >= this.limits.lastSeenEveryMs;
      void this.deps.db.device
        .findUnique({ where: { id: conn.deviceId }, select: { revokedAt: true } })
        .then(async (row) => {
          if (!row || row.revokedAt) return conn.close(DEVICE_CLOSE.revoked, "This device was revoked");
          if (!write) return;
          lastWritten = conn.lastFrameAt;
          await this.deps.db.device.update({
            where: { id: conn.deviceId },
            data: { lastSeenAt: new Date(conn.lastFrameAt) },
            select: { id: true },
          });
        })
        .catch((err) => this.deps.log.error(`device ${conn.deviceId}: the heartbeat's check failed`, err));
    }, this.limits.pingMs);
    timer.unref();
  }

  private violation(conn: DeviceConnection, why: string) {
    this.deps.log.info(`device ${conn.name} (${conn.deviceId}) sent ${why}; closing its connection`);
    conn.close(why.startsWith("too many") ? DEVICE_CLOSE.flood : DEVICE_CLOSE.protocol, `Not the protocol: ${why}`);
    this.ended(conn);
  }

  private ended(conn: DeviceConnection) {
    if (conn.closed) return;
    conn.ended(new DeviceError("DEVICE_DISCONNECTED", `The device ${conn.name} disconnected before it answered`));
    if (this.connections.get(conn.deviceId) !== conn) return;
    this.connections.delete(conn.deviceId);
    void this.deps.db.device
      .update({ where: { id: conn.deviceId }, data: { lastSeenAt: new Date(conn.lastFrameAt) }, select: { id: true } })
      .catch(() => undefined);
    this.deps.log.info(`device ${conn.name} (${conn.deviceId}) is offline`);
    this.emit("offline", { id: conn.deviceId, name: conn.name });
  }

  isOnline(deviceId: string): boolean {
    return this.connections.has(deviceId);
  }

  online(): OnlineDevice[] {
    return [...this.connections.values()].map((c) => ({
      id: c.deviceId,
      name: c.name,
      capabilities: c.capabilities,
      since: c.connectedAt,
    }));
  }

  /** Calls `listener` when a device comes online or goes offline in this process; returns how to stop. */
  on(event: DeviceEvent, listener: DeviceListener): () => void {
    this.listeners[event].add(listener);
    return () => void this.listeners[event].delete(listener);
  }

  private emit(event: DeviceEvent, device: { id: string; name: string }) {
    for (const l of this.listeners[event]) {
      try {
        l(device);
      } catch (err) {
        this.deps.log.error(`a device ${event} listener failed`, err);
      }
    }
  }

  /** One operation on a device: its answer, or a DeviceError whose message a person can act on. */
  async request<O extends DeviceOp>(
    deviceId: string,
    op: O,
    params: DeviceOps[O]["params"],
    opts: RequestOptions = {},
  ): Promise<DeviceOps[O]["result"]> {
    const conn = this.connections.get(deviceId);
    if (!conn) throw offline(await this.nameOf(deviceId));
    const timeoutMs = opts.timeoutMs ?? requestTimeoutMs(op);
    const result = await conn.request(op, params, timeoutMs, opts.signal);
    if (op === "consent") {
      const consent = ConsentResultSchema.safeParse(result);
      if (!consent.success)
        throw new DeviceError("DEVICE_FAILED", `The device ${conn.name} answered the consent question with something else`);
      return consent.data as DeviceOps[O]["result"];
    }
    return result as DeviceOps[O]["result"];
  }

  /** Opens a terminal on the device (its owner allowed commands); output and exit arrive on the handlers. */
  async openShell(deviceId: string, size: ShellSize, handlers: ShellHandlers, opts: RequestOptions = {}): Promise<DeviceShell> {
    const conn = this.connections.get(deviceId);
    if (!conn) throw offline(await this.nameOf(deviceId));
    const session = crypto.randomBytes(12).toString("base64url");
    const shell = new DeviceShell(this, deviceId, session);
    conn.addShell(session, { onData: handlers.onData, onExit: (code) => (shell.exited(), handlers.onExit(code)) });
    try {
      await this.request(deviceId, "shell.open", { session, ...size }, opts);
    } catch (err) {
      conn.dropShell(session);
      throw err;
    }
    return shell;
  }

  private async nameOf(deviceId: string): Promise<string> {
    const row = await this.deps.db.device.findUnique({ where: { id: deviceId }, select: { name: true } }).catch(() => null);
    return row?.name ?? deviceId;
  }

  disconnect(deviceId: string, why: "revoked"): void {
    const conn = this.connections.get(deviceId);
    if (!conn) return;
    conn.close(DEVICE_CLOSE.revoked, why === "revoked" ? "This device was revoked" : why);
    this.ended(conn);
  }

  pushSettings(deviceId: string, autoConsentTeamIds: string[]): void {
    this.connections.get(deviceId)?.send({ t: "settings", autoConsentTeamIds });
  }

  /** Closes every device's socket (the server is stopping); the agents reconnect to the next process. */
  close(): void {
    this.stopping = true;
    for (const conn of [...this.connections.values()]) {
      conn.close(DEVICE_CLOSE.stopping, "Rein is stopping");
      this.ended(conn);
    }
    this.wss.close();
  }
}

/** A text frame as a string; ws hands it over as a Buffer already bounded by maxPayload. */
function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString("utf8");
  return data.toString("utf8");
}
