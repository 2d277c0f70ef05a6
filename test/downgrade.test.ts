// An older Rein never opens a database a newer one migrated (docs/operations.md#upgrades): it refuses
// to start and says which version to start instead, and the database is left as it was.
import Database from "better-sqlite3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDb, type TestDb } from "./helpers/db";
import { freePort, spawnServer } from "./helpers/server-process";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
  await t.db.$disconnect();
});
afterAll(async () => {
  await t?.cleanup();
});

it("refuses to start on a database with a migration it does not know, naming it, and changes nothing", async () => {
  const file = t.url.slice("file:".length);
  const later = "29991231000000_from_a_later_rein";
  const sqlite = new Database(file);
  sqlite
    .prepare(`INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, applied_steps_count) VALUES (?, ?, ?, ?, 1)`)
    .run("later", "0".repeat(64), Date.now(), later);
  const before = sqlite.prepare(`SELECT count(*) AS n FROM _prisma_migrations`).get() as { n: number };
  sqlite.close();

  const server = spawnServer({ REIN_DATA_DIR: t.dir, DATABASE_URL: t.url, PORT: String(await freePort()) });
  await expect(server.ready).rejects.toThrow(/exited \(1\)/);
  expect(server.output()).toContain(`was migrated by a newer Rein (${later}), which this one does not know`);
  expect(server.output()).toContain("an older Rein never opens a newer database");

  const after = new Database(file, { readonly: true });
  expect((after.prepare(`SELECT count(*) AS n FROM _prisma_migrations`).get() as { n: number }).n).toBe(before.n);
  expect(after.prepare(`SELECT count(*) AS n FROM "User"`).get()).toEqual({ n: 0 });
  after.close();
});
