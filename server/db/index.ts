// The database: Prisma over a driver adapter. SQLite (WAL) is the embedded
// default; PostgreSQL is for several machines (SPEC section 11).
import fs from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "./generated/client";

export type Db = PrismaClient;
export { openNativeSqlite, withBusyRetry, sqliteNow, type NativeSqlite } from "./native";
export type { Prisma } from "./generated/client";

export function sqlitePathFromUrl(url: string): string {
  if (!url.startsWith("file:")) throw new Error(`Not a SQLite URL: ${url}`);
  return path.resolve(url.slice("file:".length));
}

/** Opens the database; for SQLite switches on WAL so readers never block the run loop. */
export async function openDb(databaseUrl: string): Promise<Db> {
  if (!databaseUrl.startsWith("file:")) {
    throw new Error(
      `DATABASE_URL ${databaseUrl.split(":")[0]}: only the embedded SQLite database is supported by this build`,
    );
  }
  const file = sqlitePathFromUrl(databaseUrl);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new PrismaClient({ adapter: new PrismaBetterSQLite3({ url: file, timeout: 10_000 }) });
  await db.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  await db.$executeRawUnsafe("PRAGMA synchronous = NORMAL");
  await db.$executeRawUnsafe("PRAGMA foreign_keys = ON");
  return db;
}

/** Names of migrations in prisma/migrations that the database has not applied yet. */
export async function pendingMigrations(db: Db, migrationsDir: string): Promise<string[]> {
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
  return wanted.filter((m) => !applied.includes(m));
}
