// Desktops across processes (several machines). A run's desktop (Xvfb,
// Chromium, x11vnc) lives on the worker executing it; the browser is connected
// to any web process. The worker announces its desktops in Redis (a hash and
// a channel: which run, which desktop, its size, the worker's internal
// address) and answers `GET /internal/vnc/<runId>/<desktopId>` upgrades,
// signed by a web process for the run's lease epoch, with a tunnel to the
// desktop's VNC server, as long as it still holds the run at that epoch. The
// VNC password and the CDP endpoint never leave the worker; the proxy on the
// web process still decides who sees and who controls the desktop.
import crypto from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { DesktopHandle } from "@/server/compute";
import { connectVnc, openVncTunnel, refuseTunnel, serveVncTunnel, type DesktopSource, type TunneledDesktop } from "@/server/realtime";
import { readMessage, type Redis } from "./redis";

export const TUNNEL_PATH = "/internal/vnc";
/** How long a web process's signed request is good for. */
export const TUNNEL_TOKEN_TTL_MS = 30_000;
const AUTH_SCHEME = "Rein-Tunnel";

export interface DesktopChannels {
  /** Hash: runId -> the desktop a worker has for it. */
  desktops: string;
  /** Pub/sub: desktops attached and gone. */
  desktopEvents: string;
}

export function desktopChannels(prefix: string): DesktopChannels {
  return { desktops: `${prefix}:desktops`, desktopEvents: `${prefix}:desktop-events` };
}

interface DesktopInfo {
  runId: string;
  desktopId: string;
  width: number;
  height: number;
  worker: string;
  /** The worker's internal address (REIN_INTERNAL_URL). */
  address: string;
}

type DesktopEvent = { kind: "attached"; desktop: DesktopInfo } | { kind: "gone"; runId: string; desktopId: string; reason: string };

/** What the exporter needs of a desktop (the desktop tier's handle has it). */
export type ExportedDesktop = Pick<DesktopHandle, "id" | "vncPort" | "vncPassword" | "width" | "height" | "onExit">;

/** What the exporter needs of the desktop tier's pool. */
export interface ExportedDesktops {
  get(runId: string): ExportedDesktop | undefined;
  onAttached(cb: (runId: string, desktop: ExportedDesktop) => void): () => void;
  release(runId: string, reason?: string): Promise<void>;
}

// ---- the signed request ----

function tunnelKey(secret: string): Buffer {
  return crypto.createHmac("sha256", secret).update("rein desktop tunnel v1").digest();
}

function tunnelSignature(key: Buffer, runId: string, desktopId: string, epoch: number, expires: number): string {
  return crypto.createHmac("sha256", key).update(`${runId}\n${desktopId}\n${epoch}\n${expires}`).digest("base64url");
}

/** The Authorization header a web process sends for one run's desktop at the run's lease epoch; good for TUNNEL_TOKEN_TTL_MS. */
export function signTunnel(secret: string, runId: string, desktopId: string, epoch: number, now = Date.now()): string {
  const expires = now + TUNNEL_TOKEN_TTL_MS;
  return `${AUTH_SCHEME} ${epoch}.${expires}.${tunnelSignature(tunnelKey(secret), runId, desktopId, epoch, expires)}`;
}

/** Whether the header is a web process's signature for this run's desktop, still good; the epoch it names. */
export function verifyTunnel(
  secret: string,
  header: string | undefined,
  runId: string,
  desktopId: string,
  now = Date.now(),
): { ok: true; epoch: number } | { ok: false; status: number; message: string } {
  const match = /^Rein-Tunnel (\d{1,12})\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(header ?? "");
  if (!match) return { ok: false, status: 401, message: "A signed request from a web process of this deployment is needed" };
  const [epoch, expires] = [Number(match[1]), Number(match[2])];
  const expected = Buffer.from(tunnelSignature(tunnelKey(secret), runId, desktopId, epoch, expires));
  const given = Buffer.from(match[3]!);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected))
    return { ok: false, status: 403, message: "The request's signature does not match this run's desktop" };
  if (expires < now || expires > now + TUNNEL_TOKEN_TTL_MS * 2)
    return { ok: false, status: 403, message: "The signed request has expired" };
  return { ok: true, epoch };
}

// ---- the worker's side ----

/** The worker that announced the run's desktop, if any (from Redis). */
export async function desktopWorkerOf(redis: Redis, channels: DesktopChannels, runId: string): Promise<string | null> {
  const raw = await redis.hget(channels.desktops, runId);
  const info = raw ? readMessage<DesktopInfo>(raw) : null;
  return typeof info?.worker === "string" ? info.worker : null;
}

/** A worker's side: announces its desktops and answers the tunnel requests for them. */
export class DesktopExporter {
  private readonly exported = new Map<string, { desktopId: string; off: () => void; withdraw(reason: string): Promise<unknown> }>();
  private readonly offs: Array<() => void> = [];
  private sub: Redis | null = null;

  constructor(
    private readonly opts: {
      desktops: ExportedDesktops;
      redis: Redis;
      channels: DesktopChannels;
      worker: string;
      address: string;
      secret: string;
      /** Whether this worker still holds the run's lease at `epoch` (paused here counts: it released nothing to another). */
      holds(runId: string, epoch: number): Promise<boolean>;
      log: { error(msg: string, err?: unknown): void };
    },
  ) {}

  async start(): Promise<void> {
    const { desktops, redis, channels } = this.opts;
    this.offs.push(desktops.onAttached((runId, desktop) => this.export(runId, desktop)));
    this.sub = redis.duplicate();
    this.sub.on("message", (_channel, raw) => this.onDesktopEvent(raw));
    await this.sub.subscribe(channels.desktopEvents);
  }

  /** Another worker resumed a run this one still keeps a desktop for: this one goes. */
  private onDesktopEvent(raw: string) {
    const e = readMessage<DesktopEvent>(raw) as DesktopEvent | null;
    if (
      e?.kind !== "attached" ||
      typeof e.desktop?.runId !== "string" ||
      e.desktop.worker === this.opts.worker ||
      !this.exported.has(e.desktop.runId)
    )
      return;
    void this.opts.desktops
      .release(e.desktop.runId, "the run moved to another worker")
      .catch((err) => this.opts.log.error(`run ${e.desktop.runId}: releasing the desktop another worker replaced failed`, err));
  }

  private export(runId: string, desktop: ExportedDesktop) {
    const { redis, channels, worker, address, log } = this.opts;
    this.exported.get(runId)?.off();
    const info: DesktopInfo = { runId, desktopId: desktop.id, width: desktop.width, height: desktop.height, worker, address };
    const failed = (err: unknown) => log.error(`run ${runId}: the desktop could not be shared with the web processes`, err);
    let chain: Promise<unknown> = redis
      .hset(channels.desktops, runId, JSON.stringify(info))
      .then(() => redis.publish(channels.desktopEvents, JSON.stringify({ kind: "attached", desktop: info } satisfies DesktopEvent)))
      .catch(failed);
    // The desktop ends (or this worker stops): the web processes hear why, after the announcement.
    const withdraw = (reason: string) => {
      if (this.exported.get(runId)?.desktopId !== desktop.id) return chain;
      this.exported.get(runId)?.off();
      this.exported.delete(runId);
      chain = chain
        .then(async () => {
          // Only this desktop's entry: a newer one of the run (on another worker) keeps its own.
          const now = await redis.hget(channels.desktops, runId);
          if (now && (JSON.parse(now) as DesktopInfo).desktopId === desktop.id) await redis.hdel(channels.desktops, runId);
          await redis.publish(
            channels.desktopEvents,
            JSON.stringify({ kind: "gone", runId, desktopId: desktop.id, reason } satisfies DesktopEvent),
          );
        })
        .catch(failed);
      return chain;
    };
    const offExit = desktop.onExit((reason) => void withdraw(reason));
    this.exported.set(runId, { desktopId: desktop.id, off: offExit, withdraw });
  }

  /**
   * An upgrade request to the worker's port: a tunnel to one of its desktops
   * when signed by a web process. Returns false for other paths.
   */
  handleUpgrade(req: IncomingMessage, socket: Duplex): boolean {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (!url.pathname.startsWith(`${TUNNEL_PATH}/`)) return false;
    socket.on("error", () => {});
    const parts = url.pathname.slice(TUNNEL_PATH.length + 1).split("/");
    let runId: string;
    let desktopId: string;
    try {
      [runId, desktopId] = parts.map(decodeURIComponent) as [string, string];
    } catch {
      return (void refuseTunnel(socket, 400, "The path has malformed percent-encoding"), true);
    }
    if (parts.length !== 2 || !runId || !desktopId) return (void refuseTunnel(socket, 404, `Use ${TUNNEL_PATH}/<runId>/<desktopId>`), true);
    if ((req.headers.upgrade ?? "").toLowerCase() !== "rein-vnc")
      return (void refuseTunnel(socket, 400, "Upgrade: rein-vnc is needed"), true);
    const verdict = verifyTunnel(this.opts.secret, req.headers.authorization, runId, desktopId);
    if (!verdict.ok) return (void refuseTunnel(socket, verdict.status, verdict.message), true);
    const desktop = this.opts.desktops.get(runId);
    if (!desktop || desktop.id !== desktopId) return (void refuseTunnel(socket, 404, "This worker has no such desktop now"), true);
    const epoch = verdict.epoch;
    void this.opts.holds(runId, epoch).then(
      (holds) => {
        if (!holds) return refuseTunnel(socket, 409, "This worker no longer executes the run: another worker has taken it over");
        return serveVncTunnel(socket, () => connectVnc({ port: desktop.vncPort, password: desktop.vncPassword }));
      },
      () => refuseTunnel(socket, 503, "This worker cannot reach the database to check it still executes the run"),
    );
    return true;
  }

  /** Stops announcing: the web processes forget this worker's desktops, which stop with it. */
  async stop(): Promise<void> {
    this.offs.splice(0).forEach((off) => off());
    // (A bounded wait: with Redis away, its commands wait for it to come back.)
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([...this.exported.values()].map((e) => e.withdraw("its worker stopped"))),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, 1_000))),
    ]);
    clearTimeout(timer);
    await this.sub?.quit().catch(() => {});
  }
}

// ---- the web process's side ----

/** Who holds the run's lease now, at which epoch (RunLeases.get). */
export type RunLeaseOf = (runId: string) => Promise<{ owner: string | null; epoch: number } | null>;

class RemoteDesktop implements TunneledDesktop {
  readonly id: string;
  readonly width: number;
  readonly height: number;
  private readonly exitListeners = new Set<(reason: string) => void>();
  private exited: string | null = null;

  constructor(
    readonly info: DesktopInfo,
    private readonly secret: string,
    private readonly lease: RunLeaseOf,
  ) {
    this.id = info.desktopId;
    this.width = info.width;
    this.height = info.height;
  }

  /** Through the worker's tunnel, signed for the run's current lease epoch, once the lease says the worker still has the run. */
  async openVnc() {
    const lease = await this.lease(this.info.runId);
    if (!lease || lease.owner !== this.info.worker)
      throw new Error("the run has moved to another worker since this desktop started; a new one starts with its next browser step");
    const path = `${TUNNEL_PATH}/${encodeURIComponent(this.info.runId)}/${encodeURIComponent(this.id)}`;
    return openVncTunnel({
      url: new URL(path, this.info.address).toString(),
      authorization: signTunnel(this.secret, this.info.runId, this.id, lease.epoch),
    });
  }

  end(reason: string) {
    if (this.exited !== null) return;
    this.exited = reason;
    this.exitListeners.forEach((l) => l(reason));
  }

  onExit(cb: (reason: string) => void) {
    if (this.exited !== null) {
      const reason = this.exited;
      queueMicrotask(() => cb(reason));
    } else this.exitListeners.add(cb);
    return () => void this.exitListeners.delete(cb);
  }
}

/** A web process's desktops: the ones every worker announces, as the VNC proxy expects them. */
export class RemoteDesktops implements DesktopSource {
  private readonly desktops = new Map<string, RemoteDesktop>();
  private readonly released = new Set<(runId: string) => void>();
  private readonly attached = new Set<(runId: string) => void>();
  private sub: Redis | null = null;

  constructor(
    private readonly opts: {
      redis: Redis;
      channels: DesktopChannels;
      secret: string;
      lease: RunLeaseOf;
      log: { error(msg: string, err?: unknown): void };
    },
  ) {}

  async start(): Promise<void> {
    const { redis, channels } = this.opts;
    this.sub = redis.duplicate();
    this.sub.on("message", (_channel, raw) => this.onEvent(raw));
    await this.sub.subscribe(channels.desktopEvents);
    for (const raw of Object.values(await redis.hgetall(channels.desktops))) {
      const info = readMessage<DesktopInfo>(raw);
      if (info) this.add(info as DesktopInfo);
    }
  }

  private onEvent(raw: string) {
    const e = readMessage<DesktopEvent>(raw) as DesktopEvent | null;
    if (e?.kind === "attached" && typeof e.desktop?.runId === "string") this.add(e.desktop);
    else if (e?.kind === "gone" && typeof e.runId === "string") {
      const current = this.desktops.get(e.runId);
      if (current?.id === e.desktopId) this.remove(e.runId, String(e.reason ?? "it stopped"));
    }
  }

  /** An announcement from Redis: checked field by field before use. */
  private add(info: DesktopInfo) {
    if (
      typeof info.runId !== "string" ||
      typeof info.desktopId !== "string" ||
      typeof info.address !== "string" ||
      !/^https?:\/\//.test(info.address)
    )
      return;
    if (!Number.isInteger(info.width) || !Number.isInteger(info.height)) return;
    const current = this.desktops.get(info.runId);
    if (current?.id === info.desktopId) return;
    if (current) this.remove(info.runId, "it was replaced");
    this.desktops.set(info.runId, new RemoteDesktop(info, this.opts.secret, this.opts.lease));
    this.attached.forEach((l) => l(info.runId));
  }

  private remove(runId: string, reason: string) {
    const desktop = this.desktops.get(runId);
    if (!desktop) return;
    this.desktops.delete(runId);
    desktop.end(reason);
    this.released.forEach((l) => l(runId));
  }

  get(runId: string) {
    return this.desktops.get(runId);
  }

  onReleased(cb: (runId: string) => void) {
    this.released.add(cb);
    return () => void this.released.delete(cb);
  }

  onAttached(cb: (runId: string) => void) {
    this.attached.add(cb);
    return () => void this.attached.delete(cb);
  }

  async stop(): Promise<void> {
    await this.sub?.quit().catch(() => {});
  }
}
