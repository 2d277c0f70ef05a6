// The test database plumbing itself: the template from test/global-setup.ts
// reaches the forked workers, and each createTestDb() copy is migrated and
// independent of the others.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { createTestDb, makeTempDir } from "./helpers/db";

describe("test database helper", () => {
  it("sees the template database both through the environment and inject()", () => {
    const fromEnv = process.env.REIN_TEST_TEMPLATE_DB;
    expect(fromEnv).toBeTruthy();
    expect(inject("reinTemplateDb")).toBe(fromEnv);
    expect(fs.existsSync(fromEnv!)).toBe(true);
  });

  it("creates a migrated database in its own directory and removes it", async () => {
    const t = await createTestDb();
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

  it("gives every test a database of its own", async () => {
    const a = await createTestDb();
    const b = await createTestDb();
    try {
      await a.db.$executeRawUnsafe("CREATE TABLE only_in_a (x INTEGER)");
      const inB = await b.db.$queryRawUnsafe<{ name: string }[]>(
        "SELECT name FROM sqlite_master WHERE name = 'only_in_a'",
      );
      expect(inB).toEqual([]);
    } finally {
      await a.cleanup();
      await b.cleanup();
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
