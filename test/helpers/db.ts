// Test databases: each one is a copy of the template that test/global-setup.ts
// migrated once, in its own temporary directory; with REIN_TEST_DATABASE=postgres,
// a migrated PostgreSQL schema of its own instead (test/helpers/pg.ts).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { inject } from "vitest";
import { openDb, type Db } from "@/server/db";

/** A fresh directory under the system temp dir; the caller removes it. */
export function makeTempDir(prefix = "rein-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function templatePath(): string {
  let template = process.env.REIN_TEST_TEMPLATE_DB;
  if (!template) {
    try {
      template = inject("reinTemplateDb");
    } catch {
      /* not inside a Vitest worker */
    }
  }
  if (!template || !fs.existsSync(template)) {
    throw new Error("No migrated template database: run the tests with Vitest (vitest.config.ts sets globalSetup test/global-setup.ts)");
  }
  return template;
}

export interface TestDb {
  db: Db;
  /** The DATABASE_URL of this copy (file:<absolute path>, or postgresql://…?schema=… on PostgreSQL). */
  url: string;
  /** Its own temporary directory (usable as REIN_DATA_DIR). */
  dir: string;
  /** Disconnects and removes the directory. */
  cleanup(): Promise<void>;
}

/** Whether this run's test databases are PostgreSQL schemas (REIN_TEST_DATABASE=postgres). */
export function testingOnPostgres(): boolean {
  const which = process.env.REIN_TEST_DATABASE ?? "sqlite";
  if (which !== "sqlite" && which !== "postgres") throw new Error(`REIN_TEST_DATABASE must be sqlite or postgres; got ${which}`);
  return which === "postgres";
}

/**
 * A migrated, empty database of its own, opened with openDb: SQLite (WAL on),
 * or a PostgreSQL schema when REIN_TEST_DATABASE=postgres.
 */
export async function createTestDb(): Promise<TestDb> {
  if (testingOnPostgres()) {
    const { createPgTestDb } = await import("./pg");
    return createPgTestDb(makeTempDir("rein-test-db-"));
  }
  return createSqliteTestDb();
}

/** Always SQLite, whatever REIN_TEST_DATABASE says: for tests of the SQLite-only backends (openNativeSqlite). */
export async function createSqliteTestDb(): Promise<TestDb> {
  const template = templatePath();
  const dir = makeTempDir("rein-test-db-");
  const file = path.join(dir, "rein.db");
  fs.copyFileSync(template, file);
  const url = `file:${file}`;
  let db: Db;
  try {
    db = await openDb(url);
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  let cleaned = false;
  return {
    db,
    url,
    dir,
    async cleanup() {
      if (cleaned) return;
      cleaned = true;
      await db.$disconnect();
      // A server the test killed may leave a program (a desktop's Chromium
      // helper, for one) writing here for a moment longer: retry ENOTEMPTY.
      await fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
    },
  };
}
