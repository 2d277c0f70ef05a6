// How a web or worker process joins a deployment of several machines: its
// registry entry and liveness lock, its Redis connections, the fenced epochs
// its stores check, the bus that relays events, and the queue runs go to.
import { HeldRuns, type Db } from "@/server/db";
import { RequestBus, type RequestChange } from "@/server/hitl";
import type { Kernel, RemoteRuns } from "@/server/kernel";
import type { PodPool } from "@/server/compute";
import type { DeviceAccess, DeviceHub, DevicePresence } from "@/server/devices";
import { DeviceHost, deviceChannels } from "./devices";
import { DesktopExporter, RemoteDesktops, desktopChannels, desktopWorkerOf, type ExportedDesktops } from "./desktops";
import { PodExporter, RemotePods, podWorkerOf, terminalChannels } from "./terminals";
import { DEFAULT_LEASE_TTL_MS, RunLeases } from "./leases";
import { ProcessRegistry, type ProcessRole } from "./processes";
import { RunQueue } from "./queue";
import { channelsFor, connectRedis, readMessage, type Redis } from "./redis";
import { EventTail, RelayBus } from "./relay";
import { RelayedDevices } from "./relayed-devices";
import { ClusterWorker, type ControlMessage } from "./worker";

export interface ClusterOptions {
  db: Db;
  databaseUrl: string;
  redisUrl: string;
  role: Exclude<ProcessRole, "all">;
  version: string;
  /** Keeps deployments (and tests) sharing one Redis apart; default "rein". */
  prefix?: string;
  leaseTtlMs?: number;
  log: { info(msg: string): void; error(msg: string, err?: unknown): void };
}

export interface Cluster {
  role: "web" | "worker";
  registry: ProcessRegistry;
  redis: Redis;
  /** The epochs this process holds (workers); pass to createKernel as `fences`. */
  held: HeldRuns;
  /** Pass to createKernel as `bus`. */
  bus: RelayBus;
  leases: RunLeases;
  queue: RunQueue;
  /** Pass to createKernel as `remote`: pause and cancel reach the worker executing the run. */
  remote: RemoteRuns;
  /** Hands a run to the queue (pass to createKernel as `enqueue` on web processes). */
  enqueue(runId: string): void;
  /** Web: reads announced events into the bus. Worker: takes jobs. */
  start(kernel: Kernel, opts: { concurrency: number }): Promise<void>;
  /**
   * Human-request changes for the sockets: this process's own (announced to
   * the others) and, on a web process, every other process's too. Listeners
   * that act on a change (channels, improvements) stay on `local`, so a
   * change is acted on once, where it happened.
   */
  relayRequests(local: RequestBus): RequestBus;
  /**
   * Terminals across processes. A worker shares its pods' output and takes
   * their input (returns its own pool); a web process returns the workers'
   * pods, for its terminal namespace.
   */
  terminals(pods: PodPool): Promise<RemotePods | PodPool>;
  /**
   * A worker's desktops for the web processes: it announces them and answers
   * their signed tunnel requests (its HTTP server passes upgrades to the
   * exporter). `address` is where web processes reach this worker; `secret`
   * is the deployment's NEXTAUTH_SECRET.
   */
  exportDesktops(opts: { desktops: ExportedDesktops; secret: string; address: string }): Promise<DesktopExporter>;
  /** A web process's view of the workers' desktops, for its VNC proxy. */
  remoteDesktops(opts: { secret: string }): Promise<RemoteDesktops>;
  /**
   * People's devices for T4 runs (docs/devices.md#with-several-machines). A
   * web process serves the devices connected to `hub` to the workers (and
   * returns `hub`); a worker returns its relay to the web processes holding
   * the devices' sockets. Both start with start().
   */
  devices(hub: DeviceHub): DeviceAccess;
  /**
   * What the Devices page says of a device on a web process: online when its
   * socket is here or another web process announces it (docs/devices.md#with-several-machines).
   */
  devicePresence(hub: DeviceHub): DevicePresence;
  /** What /api/health shows of this process. */
  health(): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

export async function joinCluster(opts: ClusterOptions): Promise<Cluster> {
  const { db, role, log } = opts;
  const names = channelsFor(opts.prefix ?? "rein");
  const redis = connectRedis(opts.redisUrl, { name: role, log });
  const registry = await ProcessRegistry.start({ db, databaseUrl: opts.databaseUrl, role, version: opts.version, log });
  const held = new HeldRuns();
  const leases = new RunLeases(db, opts.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS);
  const queue = new RunQueue(names.queue, redis);
  // A web process follows every run through the log; a worker its own runs, directly.
  const bus = new RelayBus(redis, names, role === "worker");
  let worker: ClusterWorker | null = null;
  let tail: EventTail | null = null;
  const subs: Redis[] = [];
  let exporter: PodExporter | null = null;
  let remotePods: RemotePods | null = null;
  let desktopExporter: DesktopExporter | null = null;
  let remoteDesktops: RemoteDesktops | null = null;
  let deviceHost: DeviceHost | null = null;
  let relayedDevices: RelayedDevices | null = null;

  const enqueue = (runId: string) => {
    void (async () => {
      const lease = await leases.get(runId);
      await queue.add(runId, lease?.epoch ?? 0);
    })().catch((err) => log.error(`run ${runId}: could not be handed to the queue; the sweep hands it out shortly`, err));
  };

  return {
    role,
    registry,
    redis,
    held,
    bus,
    leases,
    queue,
    enqueue,
    remote: {
      async signal(runId, action, by) {
        const message: ControlMessage = { runId, action, ...(by ? { by } : {}) };
        await redis.publish(names.control, JSON.stringify(message));
      },
    },
    relayRequests(local) {
      local.on((change) => void redis.publish(names.requests, JSON.stringify({ origin: registry.id, change })).catch(() => {}));
      if (role === "worker") return local;
      const merged = new RequestBus();
      local.on((change) => merged.publish(change));
      const sub = redis.duplicate();
      sub.on("message", (_channel, raw) => {
        const m = readMessage<{ origin: string; change: RequestChange }>(raw);
        if (m && m.origin !== registry.id && typeof m.change?.requestId === "string") merged.publish(m.change);
      });
      void sub.subscribe(names.requests).catch((err) => log.error("could not follow other processes' human requests", err));
      subs.push(sub);
      return merged;
    },
    async terminals(pods) {
      const channels = terminalChannels(opts.prefix ?? "rein");
      if (role === "worker") {
        exporter = new PodExporter({ pods, redis, channels, worker: registry.id, log });
        await exporter.start();
        return pods;
      }
      remotePods = new RemotePods({ redis, channels, log });
      await remotePods.start();
      return remotePods;
    },
    async exportDesktops({ desktops, secret, address }) {
      const holds = async (runId: string, epoch: number) => {
        const lease = await leases.get(runId);
        return lease?.owner === registry.id && lease.epoch === epoch;
      };
      desktopExporter = new DesktopExporter({
        desktops,
        redis,
        channels: desktopChannels(opts.prefix ?? "rein"),
        worker: registry.id,
        address,
        secret,
        holds,
        log,
      });
      await desktopExporter.start();
      return desktopExporter;
    },
    async remoteDesktops({ secret }) {
      remoteDesktops = new RemoteDesktops({
        redis,
        channels: desktopChannels(opts.prefix ?? "rein"),
        secret,
        lease: (runId) => leases.get(runId),
        log,
      });
      await remoteDesktops.start();
      return remoteDesktops;
    },
    devices(hub) {
      const channels = deviceChannels(opts.prefix ?? "rein");
      if (role === "worker") return (relayedDevices = new RelayedDevices({ redis, channels, worker: registry.id, log }));
      deviceHost = new DeviceHost({ hub, redis, channels, host: registry.id, log });
      // The devices of the other web processes, for what the Devices page says here.
      relayedDevices = new RelayedDevices({ redis, channels, worker: registry.id, log });
      return hub;
    },
    devicePresence(hub) {
      return {
        isOnline: (id) => hub.isOnline(id) || (relayedDevices?.isOnline(id) ?? false),
        disconnect: (id, why) => hub.disconnect(id, why),
        pushSettings: (id, teamIds) => hub.pushSettings(id, teamIds),
      };
    },
    async start(kernel, { concurrency }) {
      // Devices before runs: a run that resumes on T4 finds its device online.
      await relayedDevices?.start();
      await deviceHost?.start();
      if (role === "worker") {
        // A run resumes on the worker that has its desktop or its terminal pod, while that worker lives:
        // the page or the shell a person left is there.
        const homeOf = async (runId: string) =>
          (await desktopWorkerOf(redis, desktopChannels(opts.prefix ?? "rein"), runId)) ??
          (await podWorkerOf(redis, terminalChannels(opts.prefix ?? "rein"), runId));
        worker = new ClusterWorker({
          pool: kernel.pool,
          store: kernel.store,
          held,
          leases,
          registry,
          redis,
          names,
          concurrency,
          homeOf,
          log,
        });
        await worker.start();
      } else {
        tail = new EventTail({ sub: redis.duplicate(), channels: names, store: kernel.store, bus, log });
        await tail.start();
        const report = () => registry.report({ ...tail!.figures, queueDepth: undefined });
        setInterval(report, 2_000).unref();
      }
    },
    async health() {
      const queueDepth = await queue.depth().catch(() => null);
      return {
        id: registry.id,
        role,
        alive: registry.alive,
        redis: redis.status,
        queueDepth,
        ...(worker ? worker.figures : {}),
        ...(tail ? tail.figures : {}),
      };
    },
    async stop() {
      await worker?.stop();
      await tail?.stop();
      await exporter?.stop();
      await remotePods?.stop();
      await desktopExporter?.stop();
      await remoteDesktops?.stop();
      await relayedDevices?.stop();
      await deviceHost?.stop();
      await Promise.all(subs.map((s) => s.quit().catch(() => {})));
      await queue.close().catch(() => {});
      await registry.stop();
      redis.disconnect();
    },
  };
}
