// PostgreSQL for tests: a schema of its own per call, in the `test` database
// on 127.0.0.1:5432 (REIN_PG_URL overrides), migrated by the same migrator as
// npm run db:migrate (server/db/migrate-postgres.ts).
import crypto from "node:crypto";
import fs from "node:fs";
import pg from "pg";
import { migratePostgres, openDb, postgresAppName, type Db } from "@/server/db";
import type { TestDb } from "./db";

export const TEST_PG_URL = process.env.REIN_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

/** Creates the test database when the server has none yet (a fresh machine). */
async function ensureDatabase(): Promise<void> {
  const url = new URL(TEST_PG_URL);
  const name = url.pathname.slice(1);
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  try {
    await client.connect();
    return;
  } catch (err) {
    if ((err as { code?: string }).code !== "3D000") throw err; // 3D000: no such database
  } finally {
    await client.end().catch(() => {});
  }
  url.pathname = "/postgres";
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name.replace(/"/g, "")}"`);
  } catch (err) {
    if ((err as { code?: string }).code !== "42P04") throw err; // created meanwhile by another file
  } finally {
    await admin.end();
  }
}

export interface PgSchema {
  /** DATABASE_URL naming the schema (?schema=…). */
  url: string;
  schema: string;
  /** A plain pg client on that schema, for assertions in SQL. */
  sql(text: string, values?: unknown[]): Promise<pg.QueryResult>;
  drop(): Promise<void>;
}

/** An empty, migrated schema of its own. */
export async function createPgSchema(prefix = "t"): Promise<PgSchema> {
  await ensureDatabase();
  const schema = `${prefix}_${crypto.randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  const url = new URL(TEST_PG_URL);
  url.searchParams.set("schema", schema);
  // The same migrator as npm run db:migrate, into a schema of its own.
  await migratePostgres(url.toString());
  await client.query(`SET search_path TO ${schema}`);
  let dropped = false;
  return {
    url: url.toString(),
    schema,
    sql: (text, values) => client.query(text, values as unknown[]),
    async drop() {
      if (dropped) return;
      dropped = true;
      // A session of the code under test still open on the schema (a query the test left running)
      // would hold the drop behind its locks: its sessions end first.
      await client
        .query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`, [
          postgresAppName(schema),
        ])
        .catch(() => {});
      await client.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => {});
      await client.end();
    },
  };
}

/** createTestDb's PostgreSQL twin: a migrated schema opened with openDb. */
export async function createPgTestDb(dir: string): Promise<TestDb & { pg: PgSchema }> {
  const schema = await createPgSchema();
  let db: Db;
  try {
    db = await openDb(schema.url, { poolMax: 4 });
  } catch (err) {
    await schema.drop();
    throw err;
  }
  return {
    db,
    url: schema.url,
    dir,
    pg: schema,
    async cleanup() {
      await db.$disconnect();
      await schema.drop();
      await fs.promises.rm(dir, { recursive: true, force: true });
    },
  };
}
