// Terminals across processes (several machines). A run's pod lives on the
// worker executing it; the browser is connected to any web process. The
// worker writes what the pod prints (already redacted by the pod) to a Redis
// stream of bounded length, one per pod, and announces the pod; each web
// process reads the streams and gives its terminal namespace a RemotePod that
// looks like a local one. Keystrokes and resizes go back to the worker that
// has the pod. Only the pod's output crosses: never a secret, never the
// commands the agent runs (they stay on the worker).
import { PodError, RecentOutput, type PodPool, type TerminalPod, type SandboxKind } from "@/server/compute";
import { readMessage, type Redis } from "./redis";

/** Stream entries kept per pod (each a chunk of output); a screen and its scrollback need far fewer. */
const STREAM_MAX = 5_000;
/** A finished pod's stream stays this long for late readers, then Redis drops it. */
const STREAM_TTL_S = 3_600;
const READ_BLOCK_MS = 200;
/** How long a pod announced gone is still read, for the output before its end. */
const GONE_GRACE_MS = 2_000;

export interface TerminalChannels {
  /** Hash: runId -> the pod a worker exports for it. */
  pods: string;
  /** Pub/sub: pods attached and gone. */
  podEvents: string;
  /** Pub/sub: keystrokes and resizes for the worker that has the pod. */
  podInput: string;
  /** Stream key of one pod's output. */
  stream(runId: string, podId: string): string;
}

export function terminalChannels(prefix: string): TerminalChannels {
  return {
    pods: `${prefix}:pods`,
    podEvents: `${prefix}:pod-events`,
    podInput: `${prefix}:pod-input`,
    stream: (runId, podId) => `${prefix}:term:${runId}:${podId}`,
  };
}

interface PodInfo {
  runId: string;
  podId: string;
  sandbox: SandboxKind;
  workspaceDir: string;
  startedAt: number;
  worker: string;
}

type PodEvent = { kind: "attached"; pod: PodInfo } | { kind: "gone"; runId: string; podId: string; reason: string; exitCode: number };

type PodInput = { runId: string; podId: string; write?: string; resize?: { cols: number; rows: number } };

/** The worker that announced the run's pod, if any. */
export async function podWorkerOf(redis: Redis, channels: TerminalChannels, runId: string): Promise<string | null> {
  const raw = await redis.hget(channels.pods, runId);
  const info = raw ? readMessage<PodInfo>(raw) : null;
  return typeof info?.worker === "string" ? info.worker : null;
}

/** A worker's side: exports the output of its pods and takes their input. */
export class PodExporter {
  private readonly offs = new Map<string, () => void>();
  private sub: Redis | null = null;

  constructor(
    private readonly opts: {
      pods: PodPool;
      redis: Redis;
      channels: TerminalChannels;
      worker: string;
      log: { error(msg: string, err?: unknown): void };
    },
  ) {}

  async start(): Promise<void> {
    const { pods, redis, channels } = this.opts;
    pods.onChange((runId, pod) => {
      if (pod) this.export(runId, pod);
      else this.unexport(runId);
    });
    this.sub = redis.duplicate();
    this.sub.on("message", (channel, raw) => (channel === channels.podInput ? this.onInput(raw) : this.onPodEvent(raw)));
    await this.sub.subscribe(channels.podInput, channels.podEvents);
  }

  /**
   * Another worker started a pod for a run this one still keeps a pod for
   * (it paused the run here, and another worker resumed it): this one goes.
   */
  private onPodEvent(raw: string) {
    const e = readMessage<PodEvent>(raw) as PodEvent | null;
    if (e?.kind !== "attached" || typeof e.pod?.runId !== "string" || e.pod.worker === this.opts.worker || !this.offs.has(e.pod.runId))
      return;
    void this.opts.pods
      .release(e.pod.runId)
      .catch((err) => this.opts.log.error(`run ${e.pod.runId}: releasing the pod another worker replaced failed`, err));
  }

  private export(runId: string, pod: TerminalPod) {
    const { redis, channels, worker, log } = this.opts;
    this.offs.get(runId)?.();
    const key = channels.stream(runId, pod.id);
    const info: PodInfo = { runId, podId: pod.id, sandbox: pod.sandbox, workspaceDir: pod.workspaceDir, startedAt: pod.startedAt, worker };
    const failed = (err: unknown) => log.error(`run ${runId}: the terminal could not be shared with the web processes`, err);
    // Chunks go out in order: one XADD at a time per pod.
    let chain: Promise<unknown> = redis.del(key).catch(failed);
    const add = (fields: string[]) => {
      chain = chain.then(() => redis.xadd(key, "MAXLEN", "~", String(STREAM_MAX), "*", ...fields)).catch(failed);
    };
    const offData = pod.onData((chunk) => add(["d", chunk]), { replay: true });
    const offExit = pod.onExit(({ exitCode, reason }) => {
      add(["exit", JSON.stringify({ exitCode, reason })]);
      chain = chain.then(() => redis.expire(key, STREAM_TTL_S)).catch(failed);
    });
    chain = chain
      .then(() => redis.hset(channels.pods, runId, JSON.stringify(info)))
      .then(() => redis.publish(channels.podEvents, JSON.stringify({ kind: "attached", pod: info } satisfies PodEvent)))
      .catch(failed);
    this.offs.set(runId, () => {
      offData();
      offExit();
      this.offs.delete(runId);
      // The end goes in the stream after the last output, so readers see all of it first.
      add(["exit", JSON.stringify({ exitCode: 0, reason: "The pod was released" })]);
      chain = chain
        .then(async () => {
          // Only this pod's entry: a newer pod of the run (on another worker) keeps its own.
          const now = await redis.hget(channels.pods, runId);
          if (now && (JSON.parse(now) as PodInfo).podId === pod.id) await redis.hdel(channels.pods, runId);
          await redis.expire(key, STREAM_TTL_S);
          await redis.publish(
            channels.podEvents,
            JSON.stringify({ kind: "gone", runId, podId: pod.id, reason: "The pod was released", exitCode: 0 } satisfies PodEvent),
          );
        })
        .catch(failed);
    });
  }

  private unexport(runId: string) {
    this.offs.get(runId)?.();
  }

  private onInput(raw: string) {
    const m = readMessage<PodInput>(raw);
    if (typeof m?.runId !== "string") return;
    const pod = this.opts.pods.get(m.runId);
    if (!pod || pod.id !== m.podId) return;
    if (typeof m.write === "string") pod.write(m.write);
    if (m.resize && Number.isFinite(m.resize.cols) && Number.isFinite(m.resize.rows)) pod.resize(m.resize.cols, m.resize.rows);
  }

  async stop(): Promise<void> {
    [...this.offs.values()].forEach((off) => off());
    await this.sub?.quit().catch(() => {});
  }
}

/** A pod on a worker, as a web process sees it: its output from the stream, its input through Redis. */
class RemotePod implements TerminalPod {
  readonly id: string;
  readonly sandbox: SandboxKind;
  readonly workspaceDir: string;
  readonly startedAt: number;
  private readonly recent = new RecentOutput();
  private readonly dataListeners = new Set<(chunk: string) => void>();
  private readonly exitListeners = new Set<(info: { exitCode: number; reason: string }) => void>();
  private exited: { exitCode: number; reason: string } | null = null;
  /** The last stream entry read. */
  cursor = "0";

  constructor(
    readonly info: PodInfo,
    private readonly send: (input: PodInput) => void,
  ) {
    this.id = info.podId;
    this.sandbox = info.sandbox;
    this.workspaceDir = info.workspaceDir;
    this.startedAt = info.startedAt;
  }

  deliver(chunk: string) {
    if (this.exited) return;
    this.recent.push(chunk);
    this.dataListeners.forEach((l) => l(chunk));
  }

  end(info: { exitCode: number; reason: string }) {
    if (this.exited) return;
    this.exited = info;
    this.exitListeners.forEach((l) => l(info));
  }

  onData(listener: (chunk: string) => void, options?: { replay?: boolean }) {
    if (options?.replay) {
      const before = this.recent.text();
      if (before) listener(before);
    }
    this.dataListeners.add(listener);
    return () => this.dataListeners.delete(listener);
  }

  onExit(listener: (info: { exitCode: number; reason: string }) => void) {
    if (this.exited) queueMicrotask(() => listener(this.exited!));
    else this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  write(data: string) {
    if (!this.exited) this.send({ runId: this.info.runId, podId: this.id, write: data });
  }

  resize(cols: number, rows: number) {
    if (!this.exited && cols > 0 && rows > 0) this.send({ runId: this.info.runId, podId: this.id, resize: { cols, rows } });
  }

  exec(): Promise<never> {
    return Promise.reject(new PodError("BUSY", "This pod runs on a worker; only the worker executing the run runs its commands"));
  }

  alive() {
    return !this.exited;
  }

  async dispose() {
    /* the worker that has the pod disposes of it */
  }
}

/**
 * A web process's terminals: the pods every worker exports, as the terminal
 * namespace expects them from a PodPool (it never starts one here).
 */
export class RemotePods {
  private readonly pods = new Map<string, RemotePod>();
  private readonly listeners = new Set<(runId: string, pod: TerminalPod | null) => void>();
  private sub: Redis | null = null;
  private reader: Redis | null = null;
  private stopped = false;

  constructor(private readonly opts: { redis: Redis; channels: TerminalChannels; log: { error(msg: string, err?: unknown): void } }) {}

  readonly stopping = false;

  async start(): Promise<void> {
    const { redis, channels } = this.opts;
    this.sub = redis.duplicate();
    this.sub.on("message", (_channel, raw) => this.onPodEvent(raw));
    await this.sub.subscribe(channels.podEvents);
    for (const raw of Object.values(await redis.hgetall(channels.pods))) this.add(JSON.parse(raw) as PodInfo);
    this.reader = redis.duplicate();
    void this.readLoop();
  }

  private onPodEvent(raw: string) {
    const e = readMessage<PodEvent>(raw) as PodEvent | null;
    if (!e) return;
    if (e.kind === "attached" && typeof e.pod?.runId === "string") this.add(e.pod);
    else if (e.kind === "gone" && typeof e.runId === "string") {
      // The stream's own end entry normally comes first, after the last output;
      // this only covers a stream Redis lost.
      setTimeout(() => {
        const pod = this.pods.get(e.runId);
        if (pod && pod.id === e.podId) this.remove(e.runId, { exitCode: e.exitCode, reason: e.reason });
      }, GONE_GRACE_MS).unref();
    }
  }

  private add(info: PodInfo) {
    const current = this.pods.get(info.runId);
    if (current?.id === info.podId) return;
    if (current) this.remove(info.runId, { exitCode: 0, reason: "it was replaced" });
    const pod = new RemotePod(
      info,
      (input) => void this.opts.redis.publish(this.opts.channels.podInput, JSON.stringify(input)).catch(() => {}),
    );
    this.pods.set(info.runId, pod);
    this.listeners.forEach((l) => l(info.runId, pod));
  }

  private remove(runId: string, info: { exitCode: number; reason: string }) {
    const pod = this.pods.get(runId);
    if (!pod) return;
    this.pods.delete(runId);
    pod.end(info);
    this.listeners.forEach((l) => l(runId, null));
  }

  /** Reads every known pod's stream, in order, from where it left off. */
  private async readLoop() {
    while (!this.stopped && this.reader) {
      const pods = [...this.pods.values()];
      if (pods.length === 0) {
        await new Promise((r) => setTimeout(r, READ_BLOCK_MS));
        continue;
      }
      try {
        const keys = pods.map((p) => this.opts.channels.stream(p.info.runId, p.id));
        const res = (await this.reader.xread("BLOCK", READ_BLOCK_MS, "STREAMS", ...keys, ...pods.map((p) => p.cursor))) as Array<
          [string, Array<[string, string[]]>]
        > | null;
        for (const [key, entries] of res ?? []) {
          const pod = pods[keys.indexOf(key)];
          if (!pod) continue;
          for (const [id, fields] of entries) {
            pod.cursor = id;
            for (let i = 0; i + 1 < fields.length; i += 2) {
              if (fields[i] === "d") pod.deliver(fields[i + 1]!);
              else if (fields[i] === "exit") {
                const info = JSON.parse(fields[i + 1]!) as { exitCode: number; reason: string };
                if (this.pods.get(pod.info.runId) === pod) this.remove(pod.info.runId, info);
              }
            }
          }
        }
      } catch (err) {
        if (this.stopped) return;
        this.opts.log.error("reading the workers' terminals from Redis failed; retrying", err);
        await new Promise((r) => setTimeout(r, 1_000));
      }
    }
  }

  get(runId: string): TerminalPod | undefined {
    return this.pods.get(runId);
  }

  onChange(listener: (runId: string, pod: TerminalPod | null) => void) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  unavailable(): string | null {
    return "This web process runs no pods: a run's terminal lives on the worker executing it";
  }

  attach(): Promise<never> {
    return Promise.reject(
      new PodError("SANDBOX_UNAVAILABLE", "This web process runs no pods: a run's terminal lives on the worker executing it"),
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.sub?.quit().catch(() => {});
    this.reader?.disconnect();
  }
}
