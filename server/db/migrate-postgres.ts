// Applies prisma/postgres/migrations to a PostgreSQL database (npm run
// db:migrate, npm start and the tests). Prisma's own `migrate deploy` cannot
// run offline against PostgreSQL through its driver adapter, so Rein applies
// the same SQL files itself and records them in Prisma's _prisma_migrations
// table, as Prisma would, so either tool sees the same history.
//
// Each migration runs in its own transaction (PostgreSQL's DDL is
// transactional): it is applied whole or not at all. An advisory lock keeps
// processes that start together from migrating twice.
//
// Self-contained (node:* and pg only) so that plain Node runs it directly.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";

const LOCK_NAMESPACE = 0x5245494e; // "REIN", as in server/cluster/leases.ts
const MIGRATION_LOCK = 0;

export interface MigrateResult {
  applied: string[];
  alreadyApplied: number;
}

/** Splits ?schema= off a PostgreSQL URL, as openDb does. */
function target(databaseUrl: string): { connectionString: string; schema: string } {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get("schema") ?? "public";
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) throw new Error(`DATABASE_URL: the schema "${schema}" is not a plain identifier`);
  url.searchParams.delete("schema");
  return { connectionString: url.toString(), schema };
}

/**
 * Applies the migrations DATABASE_URL lacks. `onWait` is called when another process is applying them:
 * this one waits for it, then finds them applied.
 */
export async function migratePostgres(
  databaseUrl: string,
  dir = path.join("prisma", "postgres", "migrations"),
  onWait: () => void = () => {},
): Promise<MigrateResult> {
  const { connectionString, schema } = target(databaseUrl);
  const names = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  const client = new pg.Client({ connectionString, options: `-c search_path=${schema}`, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const { rows: turn } = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock($1::int, $2::int) AS ok`, [
      LOCK_NAMESPACE,
      MIGRATION_LOCK,
    ]);
    if (!turn[0]?.ok) {
      onWait();
      await client.query(`SELECT pg_advisory_lock($1::int, $2::int)`, [LOCK_NAMESPACE, MIGRATION_LOCK]);
    }
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const rows = (
      await client.query<{ migration_name: string; finished_at: Date | null; rolled_back_at: Date | null }>(
        `SELECT migration_name, finished_at, rolled_back_at FROM "_prisma_migrations"`,
      )
    ).rows;
    const failed = rows.find((r) => !r.finished_at && !r.rolled_back_at);
    if (failed)
      throw new Error(
        `The migration ${failed.migration_name} failed earlier and was never rolled back; fix the database, then mark it rolled back in _prisma_migrations`,
      );
    const done = new Set(rows.filter((r) => r.finished_at && !r.rolled_back_at).map((r) => r.migration_name));
    const applied: string[] = [];
    for (const name of names) {
      if (done.has(name)) continue;
      const sql = fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      const checksum = crypto.createHash("sha256").update(sql).digest("hex");
      await client.query("BEGIN");
      try {
        await client.query(sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES ($1, $2, now(), $3, 1)`,
          [crypto.randomUUID(), checksum, name],
        );
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        throw new Error(`The migration ${name} could not be applied (nothing of it was kept): ${(err as Error).message}`);
      }
      applied.push(name);
    }
    return { applied, alreadyApplied: done.size };
  } finally {
    await client.query(`SELECT pg_advisory_unlock($1::int, $2::int)`, [LOCK_NAMESPACE, MIGRATION_LOCK]).catch(() => {});
    await client.end();
  }
}

// `node server/db/migrate-postgres.ts` (scripts/db-migrate.sh): migrates DATABASE_URL.
// The script's own name tells it apart from the server it is bundled into
// (dist/server.mjs) and from test runners that load it as a module.
if (/^migrate-postgres\.[cm]?[jt]s$/.test(path.basename(process.argv[1] ?? ""))) {
  const url = process.env.DATABASE_URL ?? "";
  migratePostgres(url, undefined, () => console.log("Another process is applying the migrations; waiting for it to finish")).then(
    (r) => {
      console.log(
        r.applied.length
          ? `Applied ${r.applied.length} migration(s): ${r.applied.join(", ")}`
          : `The database is up to date (${r.alreadyApplied} migrations)`,
      );
    },
    (err: Error) => {
      console.error(err.message);
      process.exit(1);
    },
  );
}
