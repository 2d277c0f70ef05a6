// Writes that wait on another session's row locks (docs/several-machines.md#frozen-workers).
// A run's rows are written by more than the worker executing it: every event
// bumps the Run row's sequence, and a web process recording a person's answer
// or any process writing spans locks that row too. A process frozen inside such
// a transaction (SIGSTOP, a stalled machine) keeps its locks until PostgreSQL
// ends its session (IDLE_IN_TRANSACTION_MS), which is longer than Prisma gives a
// transaction (5 s): the write behind it would then fail at commit, and the run
// with it. Such a wait is no fault of the work, so a run's write gives up on a
// lock early, rolls back and tries again for longer than PostgreSQL takes to end
// the frozen session; past that it throws DbBusyError, which the worker treats
// like a lost connection (the run resumes from its last checkpoint), never as
// the run's failure.
import { anyCause, codesOf } from "./error-causes";
import type { Prisma, PrismaClient } from "./generated/client";

/** How long PostgreSQL lets a session sit idle inside a transaction before it ends it (and frees its locks). */
export const IDLE_IN_TRANSACTION_MS = 10_000;

/**
 * How long one statement of a retried write waits for a lock: well under Prisma's 5 s transaction
 * timeout, and short because a fenced write holds the run's lease row meanwhile, which renewing it needs.
 */
export const LOCK_WAIT_MS = 1_000;

/** How long a write keeps trying: twice as long as a frozen session can hold its locks. */
export const BUSY_BUDGET_MS = 2 * IDLE_IN_TRANSACTION_MS;

/** A write that found its rows locked by another session for longer than BUSY_BUDGET_MS; nothing was written. */
export class DbBusyError extends Error {
  readonly code = "DB_BUSY";
  constructor(
    readonly waitedMs: number,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(
      `The database kept rows this write needs locked by another session for ${Math.round(waitedMs / 1000)} s (${attempts} attempts); nothing was written`,
      options,
    );
    this.name = "DbBusyError";
  }
}

export function isDbBusy(err: unknown): err is DbBusyError {
  return err instanceof DbBusyError || (err as { code?: unknown } | null)?.code === "DB_BUSY";
}

/**
 * A transaction that ended without committing because it waited: a lock wait
 * that timed out (55P03), a deadlock (40P01), a serialization failure (40001,
 * P2034), or Prisma's transaction timeout or connection wait (P2028; Prisma
 * only ever rolls such a transaction back, never commits it).
 */
export function isLockWait(err: unknown): boolean {
  return anyCause(err, (e) => codesOf(e).some((c) => RETRIED.has(c)));
}

const RETRIED = new Set(["55P03", "40P01", "40001", "P2034", "P2028"]);

export interface RetryOptions {
  /** Total time to keep trying (default BUSY_BUDGET_MS). */
  budgetMs?: number;
  /** How long each statement waits for a lock (default LOCK_WAIT_MS). */
  lockWaitMs?: number;
}

/**
 * retryingTransaction (server/db/index.ts) with the database's dialect. Runs `work` in a transaction; on PostgreSQL, each of its statements waits at
 * most `lockWaitMs` for a lock, and a transaction that ended on a wait
 * (isLockWait) runs again from the start, with a growing pause, until
 * `budgetMs` has passed: then DbBusyError. `work` may run more than once, so
 * it must only write through `tx`. SQLite writes one transaction at a time and
 * waits on its own busy timeout: there it runs once.
 */
export async function retryingTransactionOn<T>(
  db: PrismaClient,
  dialect: "sqlite" | "postgres",
  work: (tx: Prisma.TransactionClient) => Promise<T>,
  opts: RetryOptions = {},
): Promise<T> {
  if (dialect !== "postgres") return db.$transaction(work);
  const budgetMs = opts.budgetMs ?? BUSY_BUDGET_MS;
  const lockWaitMs = Math.max(1, Math.round(opts.lockWaitMs ?? LOCK_WAIT_MS));
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = ${lockWaitMs}`);
        return work(tx);
      });
    } catch (err) {
      if (!isLockWait(err)) throw err;
      const waited = Date.now() - started;
      if (waited >= budgetMs) throw new DbBusyError(waited, attempt, { cause: err });
      const pause = Math.min(1_000, 25 * 2 ** attempt) * (0.5 + Math.random() / 2);
      await new Promise((r) => setTimeout(r, Math.min(pause, Math.max(0, budgetMs - waited))));
    }
  }
}
