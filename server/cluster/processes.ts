// The processes of a Rein deployment (several machines): each web and worker
// process registers itself, beats every couple of seconds with what it is
// doing, and (workers) holds a session advisory lock for as long as it lives,
// so the others see its death the moment PostgreSQL closes its connection.
import crypto from "node:crypto";
import os from "node:os";
import pg from "pg";
import { postgresAppName, postgresConfig, type Db } from "@/server/db";
import { LOCK_NAMESPACE } from "./leases";

export type ProcessRole = "all" | "web" | "worker";

export interface ProcessStats {
  runsOwned?: number;
  leaseRenewals?: number;
  queueDepth?: number;
  /** Milliseconds from a job's enqueue to its start, the latest one. */
  lagMs?: number | null;
  lastError?: string | null;
  [key: string]: unknown;
}

export interface ProcessView {
  id: string;
  role: ProcessRole;
  host: string;
  pid: number;
  version: string;
  startedAt: Date;
  heartbeatAt: Date;
  stoppedAt: Date | null;
  runsOwned: number;
  leaseRenewals: number;
  stats: ProcessStats;
  /** Beat within the last three intervals (and, for a worker, still holds its lock). */
  alive: boolean;
}

export const HEARTBEAT_MS = 2_000;

export interface RegistryOptions {
  db: Db;
  databaseUrl: string;
  role: ProcessRole;
  version: string;
  heartbeatMs?: number;
  log: { info(msg: string): void; error(msg: string, err?: unknown): void };
}

export class ProcessRegistry {
  readonly id: string;
  /** 1..2^31-1: the second key of this process's advisory lock. */
  readonly lockKey: number;
  private lockClient: pg.Client | null = null;
  private lockHeld = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private stats: ProcessStats = {};

  private constructor(private readonly opts: RegistryOptions) {
    this.id = `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString("hex")}`;
    this.lockKey = crypto.randomInt(1, 2 ** 31 - 1);
  }

  static async start(opts: RegistryOptions): Promise<ProcessRegistry> {
    const r = new ProcessRegistry(opts);
    await opts.db.runnerProcess.create({
      data: { id: r.id, role: opts.role, host: os.hostname(), pid: process.pid, version: opts.version, lockKey: r.lockKey },
    });
    await r.holdLock();
    r.timer = setInterval(() => void r.beat(), opts.heartbeatMs ?? HEARTBEAT_MS);
    r.timer.unref();
    return r;
  }

  /** Whether this process still holds its lock (false for a moment after its connection dropped). */
  get alive() {
    return this.lockHeld;
  }

  /** What the next beat reports. */
  report(stats: ProcessStats) {
    this.stats = { ...this.stats, ...stats };
  }

  /** Takes the advisory lock on a connection of its own; retried after that connection is lost. */
  private async holdLock(): Promise<void> {
    if (this.stopped) return;
    const { connectionString, schema } = postgresConfig(this.opts.databaseUrl);
    const client = new pg.Client({
      connectionString,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
      application_name: postgresAppName(schema),
    });
    client.on("error", (err) => this.lockLost(client, err));
    client.on("end", () => this.lockLost(client, null));
    try {
      await client.connect();
      const { rows } = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock($1::int, $2::int) AS ok`, [
        LOCK_NAMESPACE,
        this.lockKey,
      ]);
      if (!rows[0]?.ok) throw new Error(`advisory lock ${this.lockKey} is held by another session`);
      this.lockClient = client;
      this.lockHeld = true;
    } catch (err) {
      await client.end().catch(() => {});
      this.opts.log.error("could not take this process's liveness lock in PostgreSQL; retrying", err);
      setTimeout(() => void this.holdLock(), 1_000).unref();
    }
  }

  private lockLost(client: pg.Client, err: unknown) {
    if (client !== this.lockClient) return;
    this.lockClient = null;
    this.lockHeld = false;
    if (this.stopped) return;
    this.opts.log.error("the liveness connection to PostgreSQL was lost; other workers may take this process's runs", err ?? undefined);
    client.end().catch(() => {});
    setTimeout(() => void this.holdLock(), 500).unref();
  }

  private async beat(): Promise<void> {
    if (this.stopped) return;
    const { runsOwned = 0, leaseRenewals = 0 } = this.stats;
    try {
      await this.opts.db.runnerProcess.update({
        where: { id: this.id },
        data: { heartbeatAt: new Date(), runsOwned, leaseRenewals, stats: JSON.stringify(this.stats) },
      });
    } catch (err) {
      this.opts.log.error("the process heartbeat could not be written", err);
    }
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    await this.beat();
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.opts.db.runnerProcess.update({ where: { id: this.id }, data: { stoppedAt: new Date() } }).catch(() => {});
    const client = this.lockClient;
    this.lockClient = null;
    this.lockHeld = false;
    await client?.end().catch(() => {});
  }
}

/** Every process seen in the last day, newest first, with whether it is alive. */
export async function listProcesses(db: Db, heartbeatMs = HEARTBEAT_MS): Promise<ProcessView[]> {
  const rows = await db.$queryRawUnsafe<
    Array<{
      id: string;
      role: string;
      host: string;
      pid: number;
      version: string;
      startedAt: Date;
      heartbeatAt: Date;
      stoppedAt: Date | null;
      runsOwned: number;
      leaseRenewals: number;
      stats: string;
      locked: boolean;
      fresh: boolean;
    }>
  >(
    `SELECT p.*, EXISTS (SELECT 1 FROM pg_locks k WHERE k.locktype = 'advisory' AND k.classid = ${LOCK_NAMESPACE} AND k.objid = p."lockKey" AND k.objsubid = 2 AND k.granted) AS locked,
       p."heartbeatAt" > (now() AT TIME ZONE 'UTC') - make_interval(secs => $1::float8 / 1000) AS fresh
     FROM "RunnerProcess" p
     WHERE p."stoppedAt" IS NULL OR p."stoppedAt" > (now() AT TIME ZONE 'UTC') - interval '1 day'
     ORDER BY p."startedAt" DESC`,
    heartbeatMs * 3,
  );
  return rows.map((r) => {
    let stats: ProcessStats = {};
    try {
      stats = JSON.parse(r.stats) as ProcessStats;
    } catch {
      /* a row written by a newer version */
    }
    return {
      id: r.id,
      role: r.role as ProcessRole,
      host: r.host,
      pid: Number(r.pid),
      version: r.version,
      startedAt: new Date(r.startedAt),
      heartbeatAt: new Date(r.heartbeatAt),
      stoppedAt: r.stoppedAt ? new Date(r.stoppedAt) : null,
      runsOwned: Number(r.runsOwned),
      leaseRenewals: Number(r.leaseRenewals),
      stats,
      alive: !r.stoppedAt && r.fresh && r.locked,
    };
  });
}
