// A worker process's side of several machines
// (docs/several-machines.md#when-a-worker-dies): takes run jobs from the queue,
// wins each run's lease before executing it, renews the leases it holds, stops
// a run the moment another worker has it, and sweeps for runs nobody executes
// (a dead worker's, a handed-back one's, a queued run whose job Redis lost) to
// hand them out again.
import { Worker } from "bullmq";
import type { HeldRuns } from "@/server/db";
import type { DriveOutcome, RunStore, WorkerPool } from "@/server/kernel";
import type { RunLeases } from "./leases";
import type { ProcessRegistry } from "./processes";
import { RunQueue, type RunJob } from "./queue";
import { readMessage, type Redis } from "./redis";

export interface ControlMessage {
  runId: string;
  /** drive: `worker` should execute the run (it has the run's desktop or pod); the job reached another worker. */
  action: "pause" | "cancel" | "interrupt" | "drive";
  worker?: string;
  /** interrupt: who stopped the tool call (the name the agent reads). */
  by?: string;
}

/** How many times one worker hands a run to the worker with its desktop before executing it itself. */
const MAX_HANDOFFS = 3;
const HANDOFF_WINDOW_MS = 60_000;

export interface ClusterWorkerOptions {
  pool: WorkerPool;
  store: RunStore;
  /** The epochs this worker holds: the same object the kernel's stores fence with. */
  held: HeldRuns;
  leases: RunLeases;
  registry: ProcessRegistry;
  redis: Redis;
  names: { queue: string; control: string; leaving(workerId: string): string };
  concurrency: number;
  /** How often leases are renewed (default 2 s; the lease lasts RunLeases.ttlMs). */
  renewMs?: number;
  /** How often runs nobody executes are looked for (default 1 s). */
  sweepMs?: number;
  /**
   * The worker that has the run's desktop or terminal pod, if any. A run
   * resumes there (a desktop's browser with the page a person left, or the
   * shell they typed in, cannot move), unless that worker is gone.
   */
  homeOf?(runId: string): Promise<string | null>;
  log: { info(msg: string): void; error(msg: string, err?: unknown): void };
}

export interface WorkerFigures {
  runsOwned: number;
  leaseRenewals: number;
  runsTaken: number;
  runsLost: number;
  /** Enqueue to start of the latest job, in ms. */
  lagMs: number | null;
}

export class ClusterWorker {
  private worker: Worker<RunJob, DriveOutcome | string> | null = null;
  private queue: RunQueue | null = null;
  private sub: Redis | null = null;
  private timers: NodeJS.Timeout[] = [];
  private stopping = false;
  /** Runs this worker handed to the worker with their desktop, lately. */
  private readonly handoffs = new Map<string, { count: number; since: number }>();
  /** Renewals and hand-backs take turns, so a renewal never revives a lease just handed back. */
  private leaseTurn: Promise<unknown> = Promise.resolve();
  readonly figures: WorkerFigures = { runsOwned: 0, leaseRenewals: 0, runsTaken: 0, runsLost: 0, lagMs: null };

  constructor(private readonly opts: ClusterWorkerOptions) {}

  async start(): Promise<void> {
    const { redis, names, concurrency, log } = this.opts;
    this.queue = new RunQueue(names.queue, redis);
    this.worker = new Worker<RunJob, DriveOutcome | string>(names.queue, (job) => this.process(job.data), {
      connection: redis.duplicate(),
      concurrency,
      // BullMQ only hands out work: a stalled job handed out again meets the
      // lease, which decides; it must never fail a run on its own.
      lockDuration: 30_000,
      stalledInterval: 30_000,
      maxStalledCount: 1_000_000,
    });
    this.worker.on("error", (err) => log.error("the run queue's worker hit an error", err));
    this.sub = redis.duplicate();
    this.sub.on("message", (_channel, raw) => this.onControl(raw));
    await this.sub.subscribe(names.control);
    this.every(this.opts.renewMs ?? 2_000, () => this.renew());
    this.every(this.opts.sweepMs ?? 1_000, () => this.sweep());
  }

  private every(ms: number, work: () => Promise<void>) {
    let busy = false;
    const t = setInterval(() => {
      if (busy || this.stopping) return;
      busy = true;
      work()
        .catch((err) => this.opts.log.error("a worker housekeeping step failed; it runs again shortly", err))
        .finally(() => (busy = false));
    }, ms);
    t.unref();
    this.timers.push(t);
  }

  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const next = this.leaseTurn.then(work, work);
    this.leaseTurn = next.catch(() => {});
    return next;
  }

  /** One job: win the lease, execute the run until it stops, hand it back. */
  private async process(job: RunJob): Promise<DriveOutcome | string> {
    const { pool, store, held, leases, registry, log } = this.opts;
    const { runId } = job;
    if (this.stopping) return "worker stopping";
    // Still executing it here (it is stopping to wait for a person who has
    // already answered, or its lease lapsed untaken): taking it again now
    // would hand the running loop a newer epoch. It goes on once that ends.
    if (held.epochOf(runId) !== undefined || pool.isActive(runId)) await pool.whenDone(runId);
    if (this.stopping) return "worker stopping";
    this.figures.lagMs = Math.max(0, Date.now() - job.enqueuedAt);
    const before = await store.getRun(runId);
    if (!before || (before.status !== "queued" && before.status !== "running")) return `not runnable (${before?.status ?? "missing"})`;
    const home = await this.homeElsewhere(runId);
    if (home) {
      await this.opts.redis.publish(
        this.opts.names.control,
        JSON.stringify({ runId, action: "drive", worker: home } satisfies ControlMessage),
      );
      log.info(`run ${runId}: handed to ${home}, which has the run's desktop or terminal`);
      return `handed to ${home}`;
    }
    const taken = await leases.acquire(runId, registry);
    if (!taken) return "held by a live worker";
    held.hold(runId, taken.epoch);
    this.figures.runsTaken++;
    this.figures.runsOwned = held.size;
    let outcome: DriveOutcome | "lost" = "skipped";
    try {
      // Read again under the lease: it may have ended between the two reads.
      const run = await store.getRun(runId);
      if (!run || (run.status !== "queued" && run.status !== "running")) return `not runnable (${run?.status ?? "missing"})`;
      const takeover = run.status === "running" ? { fromWorker: taken.previousOwner, byWorker: registry.id } : undefined;
      if (takeover)
        log.info(`run ${runId}: taken over at epoch ${taken.epoch}${taken.previousOwner ? ` from ${taken.previousOwner}` : ""}`);
      outcome = await pool.drive(runId, { recovered: run.status === "running", takeover });
      // Cut off from the database mid-step (a frozen worker's session is ended by PostgreSQL), or held up
      // past its retries by another session's locks: say whether another worker has the run by now, which
      // is why this one stopped. Otherwise the run is handed back below and resumes from its checkpoint.
      if (outcome === "interrupted") {
        const now = await leases.get(runId).catch(() => null);
        if (now && now.epoch !== taken.epoch) {
          outcome = "lost";
          this.figures.runsLost++;
          log.error(
            `run ${runId}: another worker has taken this run over (this worker held epoch ${taken.epoch}, ${now.owner} holds ${now.epoch}); it stops executing it here`,
          );
        }
      }
      return outcome;
    } finally {
      held.drop(runId, taken.epoch);
      this.figures.runsOwned = held.size;
      // A run another worker took is theirs: nothing to hand back.
      if (outcome !== "lost")
        await this.inTurn(() => leases.release(runId, taken.epoch)).catch((err) =>
          log.error(`run ${runId}: handing its lease back failed; it expires by itself`, err),
        );
    }
  }

  private async renew(): Promise<void> {
    const { held, leases, registry, pool, log } = this.opts;
    const { kept, lost } = await this.inTurn(() => leases.renew(registry.id, held.entries()));
    this.figures.leaseRenewals += kept.length;
    for (const runId of lost) {
      const epoch = held.epochOf(runId);
      // Not dropped: the loop may still write (a command in flight ends), and those writes must be refused.
      held.lose(runId);
      this.figures.runsLost++;
      log.error(
        `run ${runId}: another worker has taken it over (this worker held epoch ${epoch}); stopping it here without writing anything more`,
      );
      void pool.abandon(runId);
    }
    this.figures.runsOwned = held.size;
    this.opts.registry.report({ ...this.figures, queueDepth: await this.queue?.depth().catch(() => undefined) });
  }

  private async sweep(): Promise<void> {
    if (!this.opts.registry.alive || !this.queue) return;
    for (const o of await this.opts.leases.orphans()) await this.queue.add(o.runId, o.epoch, { sweep: true });
  }

  /**
   * Another live worker that last executed the run and still has its desktop
   * or pod: the run should resume there. After a few hand-offs that did not
   * take, this worker executes the run itself (with a fresh desktop and pod).
   */
  private async homeElsewhere(runId: string): Promise<string | null> {
    const home = await this.opts.homeOf?.(runId).catch(() => null);
    if (!home || home === this.opts.registry.id) return null;
    const lease = await this.opts.leases.get(runId);
    if (lease?.owner !== home || !lease.alive) return null;
    // A worker that is stopping hands its runs back to the others.
    if (await this.opts.redis.exists(this.opts.names.leaving(home))) return null;
    const now = Date.now();
    const tried = this.handoffs.get(runId);
    const count = tried && now - tried.since < HANDOFF_WINDOW_MS ? tried.count : 0;
    if (count >= MAX_HANDOFFS) {
      this.handoffs.delete(runId);
      this.opts.log.info(`run ${runId}: ${home} has its desktop or terminal but did not take the run; executing it here with fresh ones`);
      return null;
    }
    this.handoffs.set(runId, { count: count + 1, since: tried && count > 0 ? tried.since : now });
    return home;
  }

  private onControl(raw: string) {
    const msg = readMessage<ControlMessage>(raw);
    if (typeof msg?.runId !== "string") return;
    if (msg.action === "drive") {
      // The job reached another worker; this one has the run's desktop or pod.
      if (msg.worker !== this.opts.registry.id || this.stopping) return;
      const runId = msg.runId;
      void this.process({ runId, epoch: 0, enqueuedAt: Date.now() }).catch((err) =>
        this.opts.log.error(`run ${runId}: executing it here, where its desktop is, failed; the sweep hands it out again`, err),
      );
      return;
    }
    if (!this.opts.pool.isActive(msg.runId)) return;
    if (msg.action === "pause") this.opts.pool.pauseHere(msg.runId);
    else if (msg.action === "cancel") this.opts.pool.cancelHere(msg.runId);
    else if (msg.action === "interrupt")
      this.opts.pool.interruptHere(msg.runId, typeof msg.by === "string" ? msg.by.slice(0, 200) : "a person");
  }

  /**
   * Stops taking jobs, lets executing runs end their current step and hands
   * their leases back, so other workers resume them within a sweep (~1 s).
   */
  async stop(timeoutMs = 10_000): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.timers.forEach(clearInterval);
    // Runs this worker hands back resume elsewhere, though their pods and desktops are still here.
    // (Not waiting long for a Redis that is away: its commands wait for it to come back.)
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.opts.redis.set(this.opts.names.leaving(this.opts.registry.id), "1", "EX", 600).catch(() => {}),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, 1_000))),
    ]);
    clearTimeout(timer);
    await this.worker?.pause(true).catch(() => {});
    await this.opts.pool.stop(timeoutMs);
    await this.worker?.close().catch(() => {});
    await this.sub?.quit().catch(() => {});
    await this.queue?.close().catch(() => {});
  }
}
