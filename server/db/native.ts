// A direct better-sqlite3 connection for the run loop's hot path (events,
// checkpoints, replay cache): Prisma's per-query cost (~0.3-0.8 ms here) is
// most of a step's cost, a prepared statement's is ~0.02 ms.
//
// Its transactions are synchronous, so they never interleave with other work
// in this process. It waits for no lock: when Prisma's connection holds the
// write lock, SQLITE_BUSY comes back at once and the work is retried after the
// event loop has let Prisma finish.
import crypto from "node:crypto";
import Database from "better-sqlite3";
import { sqlitePathFromUrl } from "./index";

export type NativeSqlite = Database.Database;

export function openNativeSqlite(databaseUrl: string): NativeSqlite {
  const db = new Database(sqlitePathFromUrl(databaseUrl), { fileMustExist: true, timeout: 0 });
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  return db;
}

const MAX_WAIT_MS = 15_000;

/** Runs `work` (synchronous, usually a db.transaction) and retries it while the database is busy. */
export async function withBusyRetry<T>(work: () => T): Promise<T> {
  const deadline = Date.now() + MAX_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return work();
    } catch (err) {
      const code = (err as { code?: string }).code;
      if ((code !== "SQLITE_BUSY" && code !== "SQLITE_BUSY_SNAPSHOT") || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, Math.min(1 + attempt, 20)));
    }
  }
}

/** DateTime as Prisma's SQLite adapter writes it (ISO 8601 text). */
export function sqliteNow(): string {
  return new Date().toISOString().replace("Z", "+00:00");
}

/**
 * Small writes waiting to ride along the next transaction this process opens
 * on a connection (withDeferredWrites), instead of paying for one of their
 * own; when none comes within a few milliseconds, they go alone. The order
 * of deferred writes is kept. A crash loses what is still queued, so only
 * rows that are rebuilt or no longer needed then may wait here.
 *
 * A write may return a function: it runs once the transaction that carried
 * the write has committed (to tell listeners about rows only once they are stored).
 */
export type DeferredWrite = () => unknown;

interface Deferred {
  writes: DeferredWrite[];
  timer: NodeJS.Timeout | null;
}

const deferredOf = new WeakMap<NativeSqlite, Deferred>();
const DEFERRED_MAX_MS = 20;

function deferredFor(db: NativeSqlite): Deferred {
  let d = deferredOf.get(db);
  if (!d) deferredOf.set(db, (d = { writes: [], timer: null }));
  return d;
}

export function deferWrite(db: NativeSqlite, write: DeferredWrite): void {
  const d = deferredFor(db);
  d.writes.push(write);
  if (!d.timer) {
    d.timer = setTimeout(() => {
      d.timer = null;
      flushDeferred(db).catch((err: unknown) =>
        console.error("writing deferred rows failed; they are written with the next transaction", err),
      );
    }, DEFERRED_MAX_MS);
    d.timer.unref();
  }
}

/** A transaction on `db` that first writes what is deferred on it; if it fails, those writes wait again. */
export function withDeferredWrites<A extends unknown[], R>(db: NativeSqlite, fn: (...args: A) => R): (...args: A) => R {
  // Each deferred write in a savepoint of its own: one that fails is dropped (it was allowed to be
  // lost) and never takes the transaction it rides down with it.
  const alone = db.transaction((write: DeferredWrite) => write());
  const tx = db.transaction((writes: DeferredWrite[], args: A, committed: Array<() => void>) => {
    for (const write of writes) {
      try {
        const then = alone(write);
        if (typeof then === "function") committed.push(then as () => void);
      } catch (err) {
        console.error("a deferred write failed and was dropped", err);
      }
    }
    return fn(...args);
  });
  return (...args: A) => {
    const d = deferredOf.get(db);
    const writes = d?.writes.length ? d.writes : [];
    if (d && writes.length) d.writes = [];
    const committed: Array<() => void> = [];
    let result: R;
    try {
      result = tx(writes, args, committed);
    } catch (err) {
      if (d && writes.length) d.writes = [...writes, ...d.writes];
      throw err;
    }
    for (const then of committed) then();
    return result;
  };
}

/** Writes what is deferred on `db` now, in a transaction of its own (the timer, a shutdown). */
function writeDeferredNow(db: NativeSqlite): void {
  const d = deferredOf.get(db);
  if (d?.timer) clearTimeout(d.timer);
  if (d) d.timer = null;
  if (!d?.writes.length || !db.open) return;
  withDeferredWrites(db, () => undefined)();
}

async function flushDeferred(db: NativeSqlite): Promise<void> {
  await withBusyRetry(() => writeDeferredNow(db));
}

/** Closes a direct connection after writing what is deferred on it (a clean shutdown loses no row). */
export function closeNativeSqlite(db: NativeSqlite): void {
  if (!db.open) return;
  try {
    writeDeferredNow(db);
  } catch (err) {
    console.error("writing deferred rows at shutdown failed", err);
  }
  db.close();
}

/** Random bytes for ids, drawn from the system in blocks: one draw per 256 ids instead of one per id. */
const POOL_IDS = 256;
const randomPool = Buffer.alloc(16 * POOL_IDS);
let poolNext = POOL_IDS;
const idBytes = Buffer.alloc(16);

/**
 * A UUID (version 7) that sorts by creation time: rows keyed by it are
 * appended to their primary-key index instead of landing on a random page
 * of it, which a random (version 4) id costs on every insert.
 */
export function timeOrderedId(now = Date.now()): string {
  if (poolNext === POOL_IDS) {
    crypto.randomFillSync(randomPool);
    poolNext = 0;
  }
  const bytes = idBytes;
  randomPool.copy(bytes, 0, 16 * poolNext, 16 * ++poolNext);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
