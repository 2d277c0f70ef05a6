// Processes that start together on one PostgreSQL database: each seeds what it needs as it starts
// (the first admin, the built-in agents, the demo datasets and repository), one at a time, so
// however many start at the same moment none fails on a row another one made first, and nothing is
// made twice (docs/operations.md#processes-that-start-together). The same for the migrations.
import { afterEach, expect, it } from "vitest";
import { seedDatabase } from "@/server/app";
import { migratePostgres, oneProcessAtATime, openDb, type Db } from "@/server/db";
import { BUILTIN_SPECS } from "@/server/kernel";
import { makeTempDir } from "./helpers/db";
import { createPgSchema, type PgSchema } from "./helpers/pg";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function freshSchema(): Promise<PgSchema> {
  const schema = await createPgSchema("together");
  cleanups.push(() => schema.drop());
  return schema;
}

/** A database client of its own, as each process has. */
async function processClient(url: string): Promise<Db> {
  const db = await openDb(url, { poolMax: 2 });
  cleanups.push(() => db.$disconnect());
  return db;
}

const quiet = { info: () => {}, error: (m: string, e?: unknown) => console.error(m, e) };

it("three processes seeding a fresh database at the same moment all start, and each built-in row exists once", async () => {
  // Ten fresh databases in a row: the race it guards against does not show every time.
  for (let round = 0; round < 10; round++) {
    const schema = await freshSchema();
    const dataDir = makeTempDir("rein-together-");
    const clients = await Promise.all([0, 1, 2].map(() => processClient(schema.url)));
    const waited: number[] = [];
    const admins = await Promise.all(
      clients.map((db, i) =>
        seedDatabase(
          db,
          { databaseUrl: schema.url, dataDir },
          { ...quiet, info: (m) => (m.includes("waiting") ? waited.push(i) : undefined) },
        ),
      ),
    );
    // One of them made the first admin and printed its password; the others found it.
    expect(admins.filter((a) => a?.created)).toHaveLength(1);
    const db = clients[0];
    expect(await db.user.count({ where: { role: "admin" } })).toBe(1);
    const specs = await db.agentSpec.groupBy({ by: ["name", "version"], _count: true });
    expect(specs.every((s) => s._count === 1)).toBe(true);
    expect(new Set(specs.map((s) => s.name))).toEqual(new Set([...BUILTIN_SPECS.map((s) => s.name), "demo-coder-lean"]));
    const items = await db.datasetItem.groupBy({ by: ["datasetId", "key", "version"], _count: true });
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((i) => i._count === 1)).toBe(true);
    expect(await db.repository.count()).toBe(1);
    // The two that came second said why they waited.
    expect(waited.length).toBeGreaterThanOrEqual(1);
  }
});

it("one process at a time: a second caller waits for the first to finish, and is told", async () => {
  const schema = await freshSchema();
  const order: string[] = [];
  let releaseFirst!: () => void;
  const firstHolds = new Promise<void>((r) => (releaseFirst = r));
  let firstIn!: () => void;
  const firstEntered = new Promise<void>((r) => (firstIn = r));
  const first = oneProcessAtATime(
    schema.url,
    () => order.push("first waited"),
    async () => {
      order.push("first in");
      firstIn();
      await firstHolds;
      order.push("first out");
    },
  );
  await firstEntered;
  const second = oneProcessAtATime(
    schema.url,
    () => order.push("second waits"),
    async () => {
      order.push("second in");
    },
  );
  // The second is waiting, not running.
  await new Promise((r) => setTimeout(r, 200));
  expect(order).toEqual(["first in", "second waits"]);
  releaseFirst();
  await Promise.all([first, second]);
  expect(order).toEqual(["first in", "second waits", "first out", "second in"]);
  // A turn ends when its work fails, too.
  await expect(
    oneProcessAtATime(
      schema.url,
      () => order.push("third waited"),
      () => Promise.reject(new Error("boom")),
    ),
  ).rejects.toThrow("boom");
  await oneProcessAtATime(
    schema.url,
    () => order.push("fourth waited"),
    async () => {},
  );
  expect(order).not.toContain("fourth waited");
});

it("migrations started together are applied once; the process that waited says so", async () => {
  const schema = await freshSchema();
  const url = `${schema.url.split("?")[0]}?schema=${schema.schema}_m`;
  cleanups.push(async () => {
    await schema.sql(`DROP SCHEMA IF EXISTS ${schema.schema}_m CASCADE`);
  });
  const waits: number[] = [];
  const results = await Promise.all([0, 1, 2].map((i) => migratePostgres(url, undefined, () => waits.push(i))));
  const applied = results.map((r) => r.applied.length).sort((a, b) => b - a);
  expect(applied[0]).toBeGreaterThan(0);
  expect(applied.slice(1)).toEqual([0, 0]);
  expect(waits.length).toBeGreaterThanOrEqual(1);
});
