// The test database plumbing itself: the template from test/global-setup.ts
// reaches the forked workers, each SQLite copy is migrated and independent of
// the others, and REIN_TEST_DATABASE=postgres turns createTestDb() into a
// PostgreSQL schema of its own.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, inject, it, vi } from "vitest";
import { dbDialect } from "@/server/db";
import pg from "pg";
import { createSqliteTestDb, createTestDb, makeTempDir, type TestDb } from "./helpers/db";
import { TEST_PG_URL } from "./helpers/pg";

describe("test database helper", () => {
  it("sees the template database both through the environment and inject()", () => {
    const fromEnv = process.env.REIN_TEST_TEMPLATE_DB;
    expect(fromEnv).toBeTruthy();
    expect(inject("reinTemplateDb")).toBe(fromEnv);
    expect(fs.existsSync(fromEnv!)).toBe(true);
  });

  it("creates a migrated SQLite database in its own directory and removes it", async () => {
    const t = await createSqliteTestDb();
    try {
      expect(t.url).toBe(`file:${path.join(t.dir, "rein.db")}`);
      const migrations = await t.db.$queryRawUnsafe<{ migration_name: string }[]>(
        "SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL",
      );
      const expected = fs
        .readdirSync(path.resolve(__dirname, "..", "prisma", "migrations"), { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort();
      expect(migrations.map((m) => m.migration_name).sort()).toEqual(expected);
      const mode = await t.db.$queryRawUnsafe<{ journal_mode: string }[]>("PRAGMA journal_mode");
      expect(mode[0]?.journal_mode).toBe("wal");
    } finally {
      await t.cleanup();
    }
    expect(fs.existsSync(t.dir)).toBe(false);
  });

  it("gives every test a SQLite database of its own", async () => {
    const a = await createSqliteTestDb();
    const b = await createSqliteTestDb();
    try {
      await a.db.$executeRawUnsafe("CREATE TABLE only_in_a (x INTEGER)");
      const inB = await b.db.$queryRawUnsafe<{ name: string }[]>("SELECT name FROM sqlite_master WHERE name = 'only_in_a'");
      expect(inB).toEqual([]);
    } finally {
      await a.cleanup();
      await b.cleanup();
    }
  });

  it("with REIN_TEST_DATABASE=postgres gives every test a migrated PostgreSQL schema of its own, dropped on cleanup", async () => {
    vi.stubEnv("REIN_TEST_DATABASE", "postgres");
    let a: TestDb, b: TestDb;
    try {
      a = await createTestDb();
      b = await createTestDb();
    } finally {
      vi.unstubAllEnvs();
    }
    const schemaOf = (url: string) => new URL(url).searchParams.get("schema");
    try {
      expect(dbDialect(a.db)).toBe("postgres");
      expect(schemaOf(a.url)).toMatch(/^t_/);
      expect(schemaOf(a.url)).not.toBe(schemaOf(b.url));
      expect(fs.statSync(a.dir).isDirectory()).toBe(true);
      await a.db.user.create({ data: { email: "only-in-a@test.local", name: "a", passwordHash: "x" } });
      expect(await a.db.user.count()).toBe(1);
      expect(await b.db.user.count()).toBe(0);
    } finally {
      await a.cleanup();
      await b.cleanup();
    }
    const client = new pg.Client({ connectionString: TEST_PG_URL });
    await client.connect();
    try {
      const left = await client.query("SELECT schema_name FROM information_schema.schemata WHERE schema_name = ANY($1)", [
        [schemaOf(a.url), schemaOf(b.url)],
      ]);
      expect(left.rows).toEqual([]);
    } finally {
      await client.end();
    }
    expect(fs.existsSync(a.dir)).toBe(false);
  });

  it("refuses a REIN_TEST_DATABASE it does not know", async () => {
    vi.stubEnv("REIN_TEST_DATABASE", "mysql");
    try {
      await expect(createTestDb()).rejects.toThrow(/REIN_TEST_DATABASE must be sqlite or postgres/);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("makes temporary directories", () => {
    const dir = makeTempDir("rein-helper-test-");
    try {
      expect(path.basename(dir)).toMatch(/^rein-helper-test-/);
      expect(fs.statSync(dir).isDirectory()).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
