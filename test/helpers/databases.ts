// The databases a contract suite runs its cases on: describe.each(TEST_DATABASES)
// gives each case on SQLite and on PostgreSQL (a schema of its own).
import type { Dialect } from "@/server/db";
import { createTestDb, makeTempDir, type TestDb } from "./db";
import { createPgTestDb } from "./pg";

export interface TestDatabase {
  name: string;
  dialect: Dialect;
  /** A migrated, empty database of its own; cleanup() removes it. */
  open(): Promise<TestDb>;
}

export const TEST_DATABASES: TestDatabase[] = [
  { name: "SQLite", dialect: "sqlite", open: () => createTestDb() },
  { name: "PostgreSQL", dialect: "postgres", open: () => createPgTestDb(makeTempDir("rein-test-pg-")) },
];
