// A direct better-sqlite3 connection for the run loop's hot path (events,
// checkpoints, replay cache): Prisma's per-query cost (~0.3-0.8 ms here) is
// most of a step's cost, a prepared statement's is ~0.02 ms.
//
// Its transactions are synchronous, so they never interleave with other work
// in this process. It waits for no lock: when Prisma's connection holds the
// write lock, SQLITE_BUSY comes back at once and the work is retried after the
// event loop has let Prisma finish.
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
