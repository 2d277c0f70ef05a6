// Test databases: each one is a copy of the template that test/global-setup.ts
// migrated once, in its own temporary directory.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { inject } from "vitest";
import { openDb, type Db } from "@/server/db";

/** A fresh directory under the system temp dir; the caller removes it. */
export function makeTempDir(prefix = "rein-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

function templatePath(): string {
  let template = process.env.REIN_TEST_TEMPLATE_DB;
  if (!template) {
    try {
      template = inject("reinTemplateDb");
    } catch {
      /* not inside a Vitest worker */
    }
  }
  if (!template || !fs.existsSync(template)) {
    throw new Error(
      "No migrated template database: run the tests with Vitest (vitest.config.ts sets globalSetup test/global-setup.ts)",
    );
  }
  return template;
}

export interface TestDb {
  db: Db;
  /** The DATABASE_URL of this copy (file:<absolute path>). */
  url: string;
  /** Its own temporary directory (usable as REIN_DATA_DIR). */
  dir: string;
  /** Disconnects and removes the directory. */
  cleanup(): Promise<void>;
}

/** A migrated, empty database of its own, opened with openDb (WAL on). */
export async function createTestDb(): Promise<TestDb> {
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
