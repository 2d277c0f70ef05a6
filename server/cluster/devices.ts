// People's devices across processes (docs/devices.md#with-several-machines).
// A device's socket reaches any web process; a T4 run executes on a worker.
// The web process announces the devices connected to it (a Redis hash of its
// own, kept alive by its heartbeat, and a channel of online and offline
// events) and serves the workers' requests to them: each worker publishes to
// the web process's request channel and hears answers, and the output of the
// terminals it opened, on a channel of its own. Only requests and answers
// cross Redis: never a device's token. Every message is bounded by the device
// protocol's own limits and checked field by field before use.
import { DEVICE_MAX_FRAME_BYTES, DEVICE_OPS, type DeviceOp } from "@/lib/device-protocol";
import { CONSENT_TIMEOUT_MS, DeviceError, type DeviceAccess, type DeviceHub, type DeviceShell } from "@/server/devices";
import { HEARTBEAT_MS } from "./processes";
import { readMessage, type Redis } from "./redis";

/** A relayed message: a device's largest frame and room for the envelope around it. */
export const MAX_RELAY_MESSAGE = DEVICE_MAX_FRAME_BYTES + 64 * 1024;
/** A web process's hash of devices lives this long unless its heartbeat refreshes it. */
export const DEVICE_HOST_TTL_MS = 5 * HEARTBEAT_MS;
/** A web process not heard from for this long is gone: its devices are offline for the workers. */
export const DEVICE_HOST_SILENT_MS = 3 * HEARTBEAT_MS + 1_000;
/** Requests a web process serves for the workers at once; more are refused with DEVICE_BUSY. */
const MAX_SERVING = 512;
/** The longest id (a process's, a relayed terminal's) a message may carry. */
const MAX_ID = 128;

export interface DeviceChannels {
  /** Hash of one web process: deviceId -> name, the devices whose socket it holds. */
  hosted(host: string): string;
  /** What SCAN matches to find every web process's hash. */
  hostedPattern: string;
  /** Pub/sub: devices online and offline, web processes' heartbeats and their stop. */
  events: string;
  /** Pub/sub: the workers' requests to one web process's devices. */
  requests(host: string): string;
  /** Pub/sub: answers, and output of the terminals it opened, for one worker. */
  answers(worker: string): string;
}

export function deviceChannels(prefix: string): DeviceChannels {
  return {
    hosted: (host) => `${prefix}:device-hosts:${host}`,
    hostedPattern: `${prefix}:device-hosts:*`,
    events: `${prefix}:device-events`,
    requests: (host) => `${prefix}:device-requests:${host}`,
    answers: (worker) => `${prefix}:device-answers:${worker}`,
  };
}

export type DeviceHostEvent =
  { kind: "online" | "offline"; host: string; id: string; name: string } | { kind: "beat" | "gone"; host: string };

/** A worker's request; for the shell operations `params.session` is the worker's id of the relayed terminal. */
export type RelayRequest =
  | { kind: "req"; from: string; id: number; deviceId: string; op: DeviceOp; params: unknown; timeoutMs: number }
  | { kind: "cancel"; from: string; id: number };

export type RelayAnswer =
  | { kind: "res"; id: number; ok: true; result: unknown }
  | { kind: "res"; id: number; ok: false; error: { code: string; message: string; reason?: string } }
  | { kind: "data"; shell: string; data: string }
  | { kind: "exit"; shell: string; code: number | null };

/** A message from Redis: null when too large or not a JSON object (its fields are still the caller's to check). */
export function readRelayed<T>(raw: string): Partial<T> | null {
  return raw.length > MAX_RELAY_MESSAGE ? null : readMessage<T>(raw);
}

export const isId = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= MAX_ID;

/** What the serving side needs of the process's hub. */
export type HostedHub = DeviceAccess & Pick<DeviceHub, "online">;

/** A web process's side: announces the devices connected to its hub and serves the workers' requests to them. */
export class DeviceHost {
  private readonly serving = new Map<string, AbortController>();
  /** `${worker}/${shellId}` -> the terminal it opened through this process. */
  private readonly shells = new Map<string, { worker: string; shell: DeviceShell }>();
  private readonly offs: Array<() => void> = [];
  private sub: Redis | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Announcements go out in order, one at a time. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly opts: {
      hub: HostedHub;
      redis: Redis;
      channels: DeviceChannels;
      /** This process's id (the registry's). */
      host: string;
      log: { error(msg: string, err?: unknown): void };
      heartbeatMs?: number;
    },
  ) {}

  async start(): Promise<void> {
    const { hub, redis, channels, host } = this.opts;
    this.sub = redis.duplicate();
    this.sub.on("message", (_channel, raw) => this.onRequest(raw));
    await this.sub.subscribe(channels.requests(host));
    this.offs.push(
      hub.on("online", (d) => this.announce({ kind: "online", host, id: d.id, name: d.name })),
      hub.on("offline", (d) => this.announce({ kind: "offline", host, id: d.id, name: d.name })),
    );
    for (const d of hub.online()) this.announce({ kind: "online", host, id: d.id, name: d.name });
    this.timer = setInterval(() => void this.beat(), this.opts.heartbeatMs ?? HEARTBEAT_MS);
    this.timer.unref();
    await this.chain;
    await this.beat();
  }

  private announce(e: DeviceHostEvent & { kind: "online" | "offline" }) {
    const { redis, channels, host, log } = this.opts;
    const key = channels.hosted(host);
    this.chain = this.chain
      .then(async () => {
        if (e.kind === "online") await redis.multi().hset(key, e.id, e.name).pexpire(key, DEVICE_HOST_TTL_MS).exec();
        else await redis.hdel(key, e.id);
        await redis.publish(channels.events, JSON.stringify(e));
      })
      .catch((err) => log.error(`device ${e.id}: announcing it ${e.kind} to the workers failed`, err));
  }

  /** Keeps this process's hash alive, tells the workers it lives, and closes the terminals of workers gone. */
  private async beat() {
    const { redis, channels, host, log } = this.opts;
    try {
      await redis.pexpire(channels.hosted(host), DEVICE_HOST_TTL_MS);
      await redis.publish(channels.events, JSON.stringify({ kind: "beat", host } satisfies DeviceHostEvent));
      const workers = [...new Set([...this.shells.values()].map((s) => s.worker))];
      if (workers.length === 0) return;
      const counts = (await redis.pubsub("NUMSUB", ...workers.map((w) => channels.answers(w)))) as Array<string | number>;
      workers.forEach((worker, i) => {
        if (Number(counts[i * 2 + 1]) === 0) this.closeShellsOf(worker);
      });
    } catch (err) {
      log.error("the devices' heartbeat to the workers failed", err);
    }
  }

  private closeShellsOf(worker: string) {
    for (const [key, s] of this.shells)
      if (s.worker === worker) {
        this.shells.delete(key);
        void s.shell.close().catch(() => undefined);
      }
  }

  private onRequest(raw: string) {
    const m = readRelayed<RelayRequest>(raw);
    if (!m || !isId(m.from) || !Number.isSafeInteger(m.id)) return;
    const key = `${m.from}/${m.id}`;
    if (m.kind === "cancel") return void this.serving.get(key)?.abort();
    if (m.kind !== "req") return;
    const { from, id } = m as RelayRequest & { kind: "req" };
    if (this.serving.has(key)) return;
    if (this.serving.size >= MAX_SERVING)
      return this.answerError(from, id, new DeviceError("DEVICE_BUSY", "Too many requests to devices are waiting here; try again shortly"));
    if (!isId(m.deviceId) || !DEVICE_OPS.includes(m.op as DeviceOp))
      return this.answerError(from, id, new DeviceError("DEVICE_FAILED", "The relayed request names no device or no known operation"));
    const timeoutMs = Number.isSafeInteger(m.timeoutMs) ? Math.min(Math.max(m.timeoutMs!, 1), CONSENT_TIMEOUT_MS) : undefined;
    const abort = new AbortController();
    this.serving.set(key, abort);
    void this.serve(from, m.deviceId!, m.op as DeviceOp, m.params, { timeoutMs, signal: abort.signal })
      .then(
        (result) => this.answer(from, { kind: "res", id, ok: true, result }),
        (err: unknown) => this.answerError(from, id, err),
      )
      .finally(() => this.serving.delete(key));
  }

  private async serve(from: string, deviceId: string, op: DeviceOp, params: unknown, opts: { timeoutMs?: number; signal: AbortSignal }) {
    const { hub } = this.opts;
    const p = (params && typeof params === "object" ? params : {}) as Record<string, unknown>;
    if (!op.startsWith("shell.")) return hub.request(deviceId, op, params as never, opts);
    if (!isId(p.session)) throw new DeviceError("DEVICE_FAILED", "A relayed terminal request names no terminal");
    const key = `${from}/${p.session}`;
    if (op === "shell.open") {
      if (this.shells.has(key)) throw new DeviceError("DEVICE_FAILED", "That relayed terminal is open already");
      let ended = false;
      const shell = await hub.openShell(
        deviceId,
        { cols: Number(p.cols), rows: Number(p.rows), ...(p.env ? { env: p.env as Record<string, string> } : {}) },
        {
          onData: (data) => this.answer(from, { kind: "data", shell: p.session as string, data }),
          onExit: (code) => {
            ended = true;
            if (this.shells.get(key)?.shell === shell) this.shells.delete(key);
            this.answer(from, { kind: "exit", shell: p.session as string, code });
          },
        },
        opts,
      );
      if (!ended) this.shells.set(key, { worker: from, shell });
      return {};
    }
    const open = this.shells.get(key);
    if (!open || open.shell.deviceId !== deviceId) throw new DeviceError("DEVICE_DISCONNECTED", "That terminal on the device has ended");
    if (op === "shell.write") return (await open.shell.write(String(p.data ?? "")), {});
    if (op === "shell.resize") return open.shell.resize(Number(p.cols), Number(p.rows));
    this.shells.delete(key);
    return (await open.shell.close(), {});
  }

  private answerError(to: string, id: number, err: unknown) {
    const error =
      err instanceof DeviceError
        ? { code: err.code, message: err.message, ...(err.reason ? { reason: err.reason } : {}) }
        : { code: "DEVICE_FAILED", message: `The web process holding the device's connection failed: ${(err as Error)?.message ?? err}` };
    this.answer(to, { kind: "res", id, ok: false, error });
  }

  private answer(to: string, a: RelayAnswer) {
    let text = JSON.stringify(a);
    if (text.length > MAX_RELAY_MESSAGE) {
      if (a.kind !== "res") return;
      text = JSON.stringify({
        kind: "res",
        id: a.id,
        ok: false,
        error: { code: "DEVICE_FAILED", message: "The device's answer is too large to relay to the worker" },
      } satisfies RelayAnswer);
    }
    void this.opts.redis
      .publish(this.opts.channels.answers(to), text)
      .then((heard) => {
        // Nobody listens there any more: the worker is gone, and so is the need for its terminals.
        if (heard === 0) this.closeShellsOf(to);
      })
      .catch((err) => this.opts.log.error(`answering worker ${to} about a device failed`, err));
  }

  /** Stops serving: the workers hear this process's devices are gone for them, and its relayed terminals close. */
  async stop(): Promise<void> {
    const { redis, channels, host } = this.opts;
    if (this.timer) clearInterval(this.timer);
    this.offs.splice(0).forEach((off) => off());
    // The workers hear "gone" first, so what waits there fails with DEVICE_DISCONNECTED, not with the aborts below.
    // (A bounded wait: with Redis away, its commands wait for it to come back.)
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.chain
        .then(() => redis.del(channels.hosted(host)))
        .then(() => redis.publish(channels.events, JSON.stringify({ kind: "gone", host } satisfies DeviceHostEvent)))
        .catch(() => undefined),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, 1_000))),
    ]);
    clearTimeout(timer);
    await this.sub?.quit().catch(() => {});
    this.serving.forEach((abort) => abort.abort());
    for (const worker of new Set([...this.shells.values()].map((s) => s.worker))) this.closeShellsOf(worker);
  }
}
