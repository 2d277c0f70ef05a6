// Run leases on PostgreSQL (several machines,
// docs/several-machines.md#when-a-worker-dies). The queue only hands out work;
// who executes a run is decided here. A worker takes a run by raising its
// epoch, renews it every couple of seconds, and every write it makes for the
// run carries that epoch (server/db/fences.ts).
//
// A holder is dead when its lease has expired, or at once when the session
// advisory lock it holds while alive (ProcessRegistry) is gone: a SIGKILLed
// process's connection closes and PostgreSQL drops its lock. A frozen process
// (SIGSTOP) keeps its connection, so it loses its runs only when the lease
// expires. Time is the database's, never a machine's clock.
import { dbDialect, type Db } from "@/server/db";

/** First key of every advisory lock Rein takes ("REIN"); the second is the process's own. */
export const LOCK_NAMESPACE = 0x5245494e;

const NOW = `(now() AT TIME ZONE 'UTC')`;
const ttl = (param: string) => `(${NOW} + make_interval(secs => ${param}::float8 / 1000))`;
/** True while the lease's holder holds its advisory lock, i.e. its process is alive. */
const HOLDER_ALIVE = (lease: string) =>
  `EXISTS (SELECT 1 FROM pg_locks k WHERE k.locktype = 'advisory' AND k.classid = ${LOCK_NAMESPACE} AND k.objid = ${lease}."ownerKey" AND k.objsubid = 2 AND k.granted)`;

export interface LeaseHolder {
  /** RunnerProcess.id */
  id: string;
  /** The key of the advisory lock the process holds while alive. */
  lockKey: number;
}

export interface TakenLease {
  runId: string;
  epoch: number;
  /** Who held it before (null: nobody ever did, or it was handed back). */
  previousOwner: string | null;
}

export type OrphanReason = "holder_dead" | "expired" | "never_taken";

export interface Orphan {
  runId: string;
  /** The lease's epoch now (0: never taken): the job id that hands it out names it, so sweepers agree. */
  epoch: number;
  owner: string | null;
  reason: OrphanReason;
}

export const DEFAULT_LEASE_TTL_MS = 10_000;

export class RunLeases {
  constructor(
    private readonly db: Db,
    readonly ttlMs = DEFAULT_LEASE_TTL_MS,
  ) {
    if (dbDialect(db) !== "postgres")
      throw new Error("Run leases need PostgreSQL (several machines); the one-process default has no use for them");
  }

  /**
   * Takes the run when nobody holds it: never taken, handed back (expired at
   * once), expired, or its holder's process is gone. Returns null while a live
   * holder has it.
   */
  async acquire(runId: string, holder: LeaseHolder): Promise<TakenLease | null> {
    const rows = await this.db.$queryRawUnsafe<Array<{ epoch: number; previous: string | null }>>(
      `WITH prev AS (SELECT owner FROM "RunLease" WHERE "runId" = $1)
       INSERT INTO "RunLease" ("runId", owner, "ownerKey", epoch, "expiresAt", "takenAt", renewals)
       VALUES ($1, $2, $3, 1, ${ttl("$4")}, ${NOW}, 0)
       ON CONFLICT ("runId") DO UPDATE SET owner = EXCLUDED.owner, "ownerKey" = EXCLUDED."ownerKey", epoch = "RunLease".epoch + 1,
         "expiresAt" = EXCLUDED."expiresAt", "takenAt" = EXCLUDED."takenAt", renewals = 0
       WHERE "RunLease"."expiresAt" < ${NOW} OR NOT ${HOLDER_ALIVE(`"RunLease"`)}
       RETURNING epoch, (SELECT owner FROM prev) AS previous`,
      runId,
      holder.id,
      holder.lockKey,
      this.ttlMs,
    );
    const row = rows[0];
    return row ? { runId, epoch: Number(row.epoch), previousOwner: row.previous } : null;
  }

  /**
   * Extends the leases the holder still has at the epochs it thinks it has.
   * `lost`: the runs another worker has taken since (their loops must stop).
   */
  async renew(holderId: string, held: Array<[runId: string, epoch: number]>): Promise<{ kept: string[]; lost: string[] }> {
    if (held.length === 0) return { kept: [], lost: [] };
    const rows = await this.db.$queryRawUnsafe<Array<{ runId: string; epoch: number }>>(
      `UPDATE "RunLease" SET "expiresAt" = ${ttl("$2")}, renewals = renewals + 1
       WHERE owner = $1 AND "runId" = ANY($3::text[]) RETURNING "runId", epoch`,
      holderId,
      this.ttlMs,
      held.map(([runId]) => runId),
    );
    const now = new Map(rows.map((r) => [r.runId, Number(r.epoch)]));
    const kept: string[] = [];
    const lost: string[] = [];
    for (const [runId, epoch] of held) (now.get(runId) === epoch ? kept : lost).push(runId);
    return { kept, lost };
  }

  /**
   * Hands the run back (paused, waiting for a person, finished, or this
   * worker is stopping): the lease expires now, so anyone may take it at once
   * and the next holder still learns who had it.
   */
  async release(runId: string, epoch: number): Promise<boolean> {
    const n = await this.db.$executeRawUnsafe(
      `UPDATE "RunLease" SET "expiresAt" = ${NOW} - interval '1 millisecond' WHERE "runId" = $1 AND epoch = $2`,
      runId,
      epoch,
    );
    return n === 1;
  }

  /**
   * Running runs that nobody executes: their holder is dead, or its lease
   * expired or was handed back (a worker stopping), or they were never taken. Queued runs waiting longer than `queuedAfterMs` are listed too, in
   * case their job was lost with Redis.
   */
  async orphans(opts: { limit?: number; queuedAfterMs?: number } = {}): Promise<Orphan[]> {
    const rows = await this.db.$queryRawUnsafe<
      Array<{ runId: string; epoch: number | null; owner: string | null; expired: boolean | null; alive: boolean | null; status: string }>
    >(
      `SELECT r.id AS "runId", l.epoch, l.owner, l."expiresAt" < ${NOW} AS expired, ${HOLDER_ALIVE("l")} AS alive, r.status
       FROM "Run" r LEFT JOIN "RunLease" l ON l."runId" = r.id
       WHERE (r.status = 'running' OR (r.status = 'queued' AND r."updatedAt" < ${NOW} - make_interval(secs => $2::float8 / 1000)))
         AND (l."runId" IS NULL OR l."expiresAt" < ${NOW} OR NOT ${HOLDER_ALIVE("l")})
       ORDER BY r."updatedAt" LIMIT $1`,
      opts.limit ?? 200,
      opts.queuedAfterMs ?? 5_000,
    );
    return rows.map((r) => ({
      runId: r.runId,
      epoch: Number(r.epoch ?? 0),
      owner: r.owner,
      reason: r.epoch === null ? "never_taken" : r.expired ? "expired" : "holder_dead",
    }));
  }

  /** Leases a live holder still has: not expired, and its process holds its liveness lock. */
  async active(): Promise<number> {
    const rows = await this.db.$queryRawUnsafe<Array<{ n: number | bigint }>>(
      `SELECT count(*)::int AS n FROM "RunLease" l WHERE l."expiresAt" >= ${NOW} AND ${HOLDER_ALIVE("l")}`,
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** The current lease of a run (null: never taken). */
  async get(runId: string): Promise<{ owner: string | null; epoch: number; expiresAt: Date; alive: boolean } | null> {
    const rows = await this.db.$queryRawUnsafe<Array<{ owner: string; epoch: number; expiresAt: Date; alive: boolean }>>(
      `SELECT l.owner, l.epoch, l."expiresAt", ${HOLDER_ALIVE("l")} AS alive FROM "RunLease" l WHERE l."runId" = $1`,
      runId,
    );
    const r = rows[0];
    return r ? { owner: r.owner, epoch: Number(r.epoch), expiresAt: new Date(r.expiresAt), alive: r.alive } : null;
  }
}
