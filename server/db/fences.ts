// Fencing for several machines (docs/several-machines.md#when-a-worker-dies): a
// worker holds a run at an epoch (its RunLease row). Every write the run loop
// makes for that run (events, checkpoints, state changes, replay-cache rows)
// checks the epoch in the same transaction and is refused when another worker
// has taken the run since, so a worker that was frozen or cut off can never
// write over its successor. A process that holds no epoch for a run (the
// one-process default, a web process recording an operator's click) writes
// unfenced.
import { anyCause, codesOf } from "./error-causes";
import type { Prisma } from "./generated/client";
import type { NativeSqlite } from "./native";

export class LeaseLostError extends Error {
  readonly code = "LEASE_LOST";
  constructor(
    readonly runId: string,
    readonly epoch: number,
  ) {
    super(`This worker no longer holds run ${runId} (its epoch ${epoch} was taken over by another worker); the write was refused`);
    this.name = "LeaseLostError";
  }
}

export function isLeaseLost(err: unknown): err is LeaseLostError {
  return err instanceof LeaseLostError || (err as { code?: unknown } | null)?.code === "LEASE_LOST";
}

/** The epochs this process holds, by run. */
export interface Fences {
  epochOf(runId: string): number | undefined;
}

export const NO_FENCES: Fences = { epochOf: () => undefined };

/** The runs a worker holds, with their epochs; the stores read it on every write. */
export class HeldRuns implements Fences {
  private readonly held = new Map<string, number>();
  /** Runs another worker took while this one's loop may still be executing them. */
  private readonly lost = new Set<string>();

  hold(runId: string, epoch: number) {
    this.held.set(runId, epoch);
    this.lost.delete(runId);
  }

  /**
   * Another worker took the run. Its epoch stays here, so every write the
   * loop still makes (a command that was running when the worker froze ends
   * and reports) is checked against it and refused; forgetting it would make
   * those writes unfenced. drop() forgets it once that loop has ended.
   */
  lose(runId: string) {
    if (this.held.has(runId)) this.lost.add(runId);
  }

  /** Forgets the run (only at `epoch` when given, so a late release cannot drop a newer hold). */
  drop(runId: string, epoch?: number) {
    if (epoch === undefined || this.held.get(runId) === epoch) {
      this.held.delete(runId);
      this.lost.delete(runId);
    }
  }

  epochOf(runId: string): number | undefined {
    return this.held.get(runId);
  }

  /** The runs still held (lost ones are not renewed). */
  entries(): Array<[string, number]> {
    return [...this.held.entries()].filter(([runId]) => !this.lost.has(runId));
  }

  get size() {
    return this.held.size - this.lost.size;
  }
}

/**
 * Inside a Prisma transaction: refuses unless the run's lease is still at
 * `epoch`. The UPDATE locks the lease row until commit, so a takeover either
 * waits for this write or this write sees the takeover, never both.
 */
export async function checkFence(tx: Prisma.TransactionClient, runId: string, epoch: number): Promise<void> {
  const { count } = await tx.runLease.updateMany({ where: { runId, epoch }, data: { epoch } });
  if (count !== 1) throw new LeaseLostError(runId, epoch);
}

/** checkFence for the direct SQLite connection; call it inside its transaction. */
export function sqliteFence(db: NativeSqlite): (runId: string, epoch: number) => void {
  const stmt = db.prepare(`UPDATE "RunLease" SET epoch = epoch WHERE runId = ? AND epoch = ?`);
  return (runId, epoch) => {
    if (stmt.run(runId, epoch).changes !== 1) throw new LeaseLostError(runId, epoch);
  };
}

/**
 * The database went away under a query (a restart, a failover, connections
 * ended by an administrator, the network), or kept a write's rows locked past
 * its retries (DbBusyError, a frozen session's): nothing is wrong with the work
 * itself, and it can be resumed from its last checkpoint once the database
 * answers again. PostgreSQL SQLSTATE class 08 and 57P01-57P03, and the
 * socket errors of a dropped connection.
 */
export function isTransientDbError(err: unknown): boolean {
  return anyCause(
    err,
    (e) =>
      codesOf(e).some(
        (c) =>
          /^08[0-9A-Z]{3}$/.test(c) ||
          /^57P0[123]$/.test(c) ||
          ["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "P1001", "P1017", "DB_BUSY"].includes(c),
      ) ||
      (typeof e.message === "string" &&
        /terminating connection|Connection terminated|connection (is )?closed|Can't reach database server|server closed the connection/i.test(
          e.message,
        )),
  );
}

/**
 * What a worker thawed after a freeze may hear from a promise nobody awaits: a
 * transaction Prisma ended on its own timer while the process was stopped
 * (P2028, "Transaction already closed"), or a write refused because another
 * worker took the run. The work itself stops where it was awaited; only the
 * echo is left, and it must not end the process's other runs.
 */
export function isEchoOfLostWork(err: unknown): boolean {
  return (
    isLeaseLost(err) ||
    isTransientDbError(err) ||
    anyCause(err, (e) => codesOf(e).includes("P2028") || (typeof e.message === "string" && /Transaction already closed/i.test(e.message)))
  );
}
