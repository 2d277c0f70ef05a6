// Upgrades without loss (docs/operations.md#upgrades): the data of an earlier Rein (test/fixtures/upgrade/,
// made by scripts/make-upgrade-fixture.ts from an earlier commit, with a run waiting for a person and a
// paused run), on SQLite and on PostgreSQL, is restored, migrated by this build as npm run up does, and
// started: the waiting run's request is answered and the run finishes; the paused run resumes and finishes.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { restore } from "@/server/backup";
import { migratePostgres, openNativeSqlite, runBackfills } from "@/server/db";
import { restClient } from "@/lib/rest-client";
import { makeTempDir } from "./helpers/db";
import { createPgSchema } from "./helpers/pg";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";
import { waitFor } from "./helpers/wait";

const FIXTURE = path.resolve("test", "fixtures", "upgrade");
interface Recorded {
  lastMigration: string;
  token: string;
  waitingRunId: string;
  pausedRunId: string;
}
const about = JSON.parse(fs.readFileSync(path.join(FIXTURE, "fixture.json"), "utf8")) as {
  pgSchema: string;
  sqlite: Recorded;
  postgres: Recorded;
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The database the earlier Rein wrote, in place and migrated by this build, backfills included; its DATABASE_URL. */
async function upgradedDatabase(kind: "sqlite" | "postgres", dataDir: string): Promise<string> {
  const url = await migratedDatabase(kind, dataDir);
  // Then the rewrites of large tables, in batches, as npm run db:migrate does after the migrations.
  const said: string[] = [];
  const { finished } = await runBackfills(url, { say: (l) => said.push(l) });
  const audit = finished.find((b) => b.name === "audit-team");
  expect(audit, said.join("\n")).toBeDefined();
  expect(audit!.rows, "the earlier Rein's audit rows of its runs get their team").toBeGreaterThan(0);
  // Its spans, moved into the table keyed by (runId, spanId) (docs/performance.md#span-ingest-and-search).
  const spans = finished.find((b) => b.name === "span-key");
  expect(spans?.rows, said.join("\n")).toBeGreaterThan(0);
  return url;
}

/**
 * The earlier Rein's database, migrated by this build. Its open request's deadlines are moved to a
 * day and a week from now: the request was asked when the fixture was written, and a week after
 * that it would expire before this test could answer it (it escalates after a day, which the test
 * allows).
 */
async function migratedDatabase(kind: "sqlite" | "postgres", dataDir: string): Promise<string> {
  if (kind === "sqlite") {
    const url = `file:${path.join(dataDir, "rein.db")}`;
    execFileSync("bash", [path.resolve("scripts", "prisma.sh"), "migrate", "deploy"], {
      env: { ...process.env, DATABASE_URL: url },
      stdio: "pipe",
    });
    const db = openNativeSqlite(url);
    const iso = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().replace("Z", "+00:00");
    db.prepare(`UPDATE "HumanRequest" SET "expiresAt" = ?, "hardExpiresAt" = ? WHERE state = 'PENDING'`).run(iso(1), iso(7));
    db.close();
    return url;
  }
  // A schema of this test's own, loaded with the earlier Rein's tables and rows under its name.
  const schema = await createPgSchema("upgrade");
  cleanups.push(() => schema.drop());
  await schema.sql(`DROP SCHEMA ${schema.schema} CASCADE`);
  const dump = zlib.gunzipSync(fs.readFileSync(path.join(FIXTURE, "postgres.sql.gz"))).toString("utf8");
  await schema.sql(dump.replaceAll(about.pgSchema, schema.schema));
  const { applied } = await migratePostgres(schema.url);
  expect(applied.length).toBeGreaterThan(0);
  await schema.sql(
    `UPDATE ${schema.schema}."HumanRequest" SET "expiresAt" = now() + interval '1 day', "hardExpiresAt" = now() + interval '7 days' WHERE state = 'PENDING'`,
  );
  return schema.url;
}

describe.each(["sqlite", "postgres"] as const)("an earlier Rein's data on %s", (kind) => {
  it("migrated by this one: its waiting run is answered and finishes, its paused run resumes and finishes", async () => {
    const recorded = about[kind];
    const dataDir = makeTempDir("rein-upgrade-");
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const migrationsDir = path.resolve("prisma", ...(kind === "postgres" ? ["postgres", "migrations"] : ["migrations"]));
    const file = path.join(FIXTURE, `${kind}.tar.gz`);
    if (kind === "sqlite") {
      const { manifest } = await restore({ file, dataDir, databaseUrl: `file:${path.join(dataDir, "rein.db")}`, migrationsDir });
      expect(manifest.migrations.at(-1)).toBe(recorded.lastMigration);
    } else {
      // The files only: the database comes from the fixture's SQL, under a schema of this test's own (below).
      execFileSync("tar", ["--extract", "--gzip", "--file", file, "--no-same-owner", "-C", dataDir]);
      fs.rmSync(path.join(dataDir, "rein-backup.json"));
    }
    // The fixture is older than this build: there is something to migrate.
    expect(fs.readdirSync(migrationsDir).filter((m) => m > recorded.lastMigration && !m.endsWith(".toml")).length).toBeGreaterThan(0);
    const databaseUrl = await upgradedDatabase(kind, dataDir);

    const server: ServerProcess & { ready: Promise<void> } = spawnServer({
      REIN_DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      PORT: String(await freePort()),
      REIN_UI: "off",
    });
    cleanups.push(() => server.kill());
    await server.ready;
    const api = restClient({ baseUrl: server.url, token: recorded.token });
    const status = async (id: string) => (await api.GET("/api/v1/runs/{id}", { params: { path: { id } } })).data?.status;
    expect(await status(recorded.waitingRunId)).toBe("waiting_human");
    expect(await status(recorded.pausedRunId)).toBe("paused");

    const open = await api.GET("/api/v1/human-requests", { params: { query: { runId: recorded.waitingRunId } } });
    // Open, whether or not it escalated: it was asked a day or more before this upgrade.
    const request = open.data!.requests.find((r) => r.state === "PENDING" || r.state === "ESCALATED");
    expect(request, JSON.stringify(open.data)).toBeDefined();
    const decided = await api.POST("/api/v1/human-requests/{id}/decision", {
      params: { path: { id: request!.id } },
      body: { decision: "approve", comment: "approved after the upgrade" },
    });
    expect(decided.response.status, JSON.stringify(decided.error)).toBe(200);
    const resumed = await api.POST("/api/v1/runs/{id}/resume", { params: { path: { id: recorded.pausedRunId } } });
    expect(resumed.response.status, JSON.stringify(resumed.error)).toBeLessThan(300);

    await waitFor(async () => (await status(recorded.waitingRunId)) === "succeeded", "the deploy run to finish");
    await waitFor(async () => (await status(recorded.pausedRunId)) === "succeeded", "the paused run to finish", { limitMs: 60_000 });
    // The demo repository is where this data directory is, not where the earlier one was.
    const repositories = await api.GET("/api/v1/repositories");
    expect(repositories.data?.repositories.find((r) => r.builtIn)?.source).toBe(path.join(dataDir, "repos", "demo-service"));
    // The approved call ran once, after the upgrade.
    const log = fs.readFileSync(path.join(dataDir, "workspaces", recorded.waitingRunId, "out", "deploy.log"), "utf8");
    expect(log.trim().split("\n")).toHaveLength(1);
  });
});
