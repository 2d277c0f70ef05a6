// The database: Prisma over a driver adapter. SQLite (WAL) is the embedded
// default; PostgreSQL is for several machines
// (docs/several-machines.md#how-it-fits-together).
import fs from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import type { Prisma as PrismaTypes, PrismaClient } from "./generated/client";
import { BACKFILLS, unfinishedBackfills, type Backfill } from "./backfill";
import { IDLE_IN_TRANSACTION_MS, retryingTransactionOn, type RetryOptions } from "./lock-waits";

export type Db = PrismaClient;
export {
  openNativeSqlite,
  withBusyRetry,
  sqliteNow,
  deferWrite,
  withDeferredWrites,
  closeNativeSqlite,
  timeOrderedId,
  type NativeSqlite,
} from "./native";
export { startWalCheckpointer, type WalCheckpointer } from "./checkpointer";
export type { Prisma } from "./generated/client";
export { migratePostgres, type MigrateResult } from "./migrate-postgres";
export { runBackfills, LARGE_TABLES, BACKFILLS, type Backfill, type BackfillResult } from "./backfill";
export { anyCause, codesOf } from "./error-causes";
export { DbBusyError, isDbBusy, isLockWait, type RetryOptions } from "./lock-waits";
export {
  LeaseLostError,
  isLeaseLost,
  isTransientDbError,
  isEchoOfLostWork,
  NO_FENCES,
  HeldRuns,
  checkFence,
  sqliteFence,
  type Fences,
} from "./fences";

export function sqlitePathFromUrl(url: string): string {
  if (!url.startsWith("file:")) throw new Error(`Not a SQLite URL: ${url}`);
  return path.resolve(url.slice("file:".length));
}

export type Dialect = "sqlite" | "postgres";

export function dialectOf(databaseUrl: string): Dialect {
  if (databaseUrl.startsWith("file:")) return "sqlite";
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return "postgres";
  throw new Error(`DATABASE_URL must be file:<path> (SQLite) or postgresql://… (PostgreSQL); got ${databaseUrl.split(":")[0]}:`);
}

/**
 * A PostgreSQL URL split into what the driver takes: `?schema=` (Prisma's
 * convention) becomes the connection's search_path, so raw SQL finds the same
 * tables as the client does.
 */
export function postgresConfig(databaseUrl: string): { connectionString: string; schema: string } {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get("schema") ?? "public";
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) throw new Error(`DATABASE_URL: the schema "${schema}" is not a plain identifier`);
  url.searchParams.delete("schema");
  return { connectionString: url.toString(), schema };
}

/** What Rein's connections call themselves in pg_stat_activity. */
export function postgresAppName(schema: string): string {
  return `rein ${schema}`.slice(0, 63);
}

/**
 * Runs `work` while no other Rein process on the same database runs its own: what every process does
 * as it starts (the built-in agents and datasets, the first admin) is then done once, however many
 * processes start at the same moment (docs/operations.md#processes-that-start-together). `onWait` is
 * called when another process holds the turn. SQLite has one process per data directory: it just runs.
 */
export async function oneProcessAtATime<T>(databaseUrl: string, onWait: () => void, work: () => Promise<T>): Promise<T> {
  return (await inTurn(databaseUrl, "start-up", onWait, work)) as T;
}

/**
 * Runs `work` unless another Rein process on the same database is doing the same `task` (then
 * returns null): background work one process does for all, such as retention's pruning.
 */
export async function unlessElsewhere<T>(databaseUrl: string, task: string, work: () => Promise<T>): Promise<T | null> {
  return inTurn(databaseUrl, task, null, work);
}

/** `work` under a session advisory lock named for `task`: waited for (onWait given) or given up (null). */
async function inTurn<T>(databaseUrl: string, task: string, onWait: (() => void) | null, work: () => Promise<T>): Promise<T | null> {
  if (dialectOf(databaseUrl) !== "postgres") return work();
  const { connectionString, schema } = postgresConfig(databaseUrl);
  const client = new pg.Client({ connectionString, application_name: postgresAppName(schema), connectionTimeoutMillis: 10_000 });
  await client.connect();
  // One key per task and schema, among the one-number advisory locks: the two-number ones are the
  // processes' liveness locks (server/cluster/leases.ts) and the migrations'.
  const key = `rein ${task} ${schema}`;
  try {
    const { rows } = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok", [key]);
    if (!rows[0]?.ok) {
      if (!onWait) return null;
      onWait();
      await client.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [key]);
    }
    return await work();
  } finally {
    // Ending the session releases its lock.
    await client.end().catch(() => {});
  }
}

/** Connections each process keeps to PostgreSQL. */
const PG_POOL_MAX = 10;

/**
 * Opens the database. SQLite: WAL, so readers never block the run loop.
 * PostgreSQL: the same client API from the derived schema (prisma/postgres).
 */
export async function openDb(databaseUrl: string, opts: { poolMax?: number } = {}): Promise<Db> {
  if (dialectOf(databaseUrl) === "postgres") {
    const { connectionString, schema } = postgresConfig(databaseUrl);
    const adapter = new PrismaPg(
      {
        connectionString,
        max: opts.poolMax ?? PG_POOL_MAX,
        // A process frozen inside a transaction (SIGSTOP, a stalled machine) would hold its row locks, a
        // run's lease among them, for as long as its connection lives: PostgreSQL ends such a session after
        // 10 s, so another worker can take the run over. A write waiting on such a session's locks meanwhile
        // retries instead of failing (retryingTransaction, docs/several-machines.md#frozen-workers).
        options: `-c search_path=${schema} -c TimeZone=UTC -c idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_MS}`,
        connectionTimeoutMillis: 10_000,
        // Which connections are Rein's (and which schema's), in pg_stat_activity.
        application_name: postgresAppName(schema),
        keepAlive: true,
      },
      { schema },
    );
    // The two generated clients share one data model; their types differ only
    // in provider-specific extras Rein does not use. Each is loaded when first
    // opened: code that only uses this folder's helpers never loads one.
    const { PrismaClient: PgPrismaClient } = await import("./generated-pg/client");
    const db = new PgPrismaClient({ adapter }) as unknown as Db;
    dialects.set(db, "postgres");
    return db;
  }
  const file = sqlitePathFromUrl(databaseUrl);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const { PrismaClient: SqlitePrismaClient } = await import("./generated/client");
  const db = new SqlitePrismaClient({ adapter: new PrismaBetterSQLite3({ url: file, timeout: 10_000 }) });
  await db.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  await db.$executeRawUnsafe("PRAGMA synchronous = NORMAL");
  await db.$executeRawUnsafe("PRAGMA foreign_keys = ON");
  dialects.set(db, "sqlite");
  return db;
}

const dialects = new WeakMap<Db, Dialect>();

/**
 * A transaction for a write that another session's row locks may hold up (a
 * run's events, checkpoints and state): on PostgreSQL a lock wait rolls it back
 * and runs `work` again, until DbBusyError (server/db/lock-waits.ts). Pass the
 * client openDb returned.
 */
export function retryingTransaction<T>(db: Db, work: (tx: PrismaTypes.TransactionClient) => Promise<T>, opts?: RetryOptions): Promise<T> {
  return retryingTransactionOn(db, dbDialect(db), work, opts);
}

/** Which database a client opened by openDb talks to (SQLite for any other client). */
export function dbDialect(db: Db): Dialect {
  return dialects.get(db) ?? "sqlite";
}

/**
 * A where-clause filter for text a person typed, matching regardless of case on
 * both databases: SQLite's LIKE ignores ASCII case by itself, PostgreSQL's LIKE
 * does not (Prisma turns mode "insensitive" into ILIKE, which only its
 * PostgreSQL client accepts). Pass the client openDb returned, not a
 * transaction's (dbDialect knows only the former).
 */
export function textSearch(db: object, text: string): { contains: string } {
  return dialects.get(db as Db) === "postgres" ? ({ contains: text, mode: "insensitive" } as { contains: string }) : { contains: text };
}

/**
 * The database's migrations against this build's: `pending`, what this build has and the database
 * lacks (npm start applies them); `newer`, what the database has and this build does not know, as
 * after a downgrade: a newer Rein migrated it, and an older one must not open it. A backfill of an
 * applied migration that has not finished (server/db/backfill.ts) is pending too, as "backfill NAME".
 */
export async function migrationState(
  db: Db,
  migrationsDir: string,
  backfills: readonly Backfill[] = BACKFILLS,
): Promise<{ pending: string[]; newer: string[] }> {
  const wanted = fs
    .readdirSync(migrationsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  let applied: string[] = [];
  try {
    const rows = await db.$queryRawUnsafe<{ migration_name: string }[]>(
      `SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    applied = rows.map((r) => r.migration_name);
  } catch {
    applied = [];
  }
  const known = new Set(wanted);
  const unfinished = await unfinishedBackfills((sql) => db.$queryRawUnsafe(sql), applied, backfills);
  return {
    pending: [...wanted.filter((m) => !applied.includes(m)), ...unfinished.map((b) => `backfill ${b}`)],
    newer: applied.filter((m) => !known.has(m)).sort(),
  };
}
