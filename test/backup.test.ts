// Backup and restore (docs/operations.md#backup-and-restore), on SQLite and on PostgreSQL: a backup made
// while Rein runs, brought back as on a new machine (an empty data directory; on PostgreSQL, a database
// without Rein's schema); the run that was waiting for a person waits there again, and answered there
// it finishes. Hostile archives: test/attack/backup-archive.test.ts.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDb, type Db } from "@/server/db";
import { createApiToken, createUser } from "@/server/identity";
import { restClient } from "@/lib/rest-client";
import { runCliBinary } from "./helpers/cli";
import { createTestDb, makeTempDir } from "./helpers/db";
import { createPgSchema } from "./helpers/pg";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";
import { waitFor } from "./helpers/wait";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(dataDir: string, databaseUrl: string): Promise<ServerProcess> {
  const s = spawnServer({ REIN_DATA_DIR: dataDir, DATABASE_URL: databaseUrl, PORT: String(await freePort()), REIN_UI: "off" });
  cleanups.push(() => s.kill());
  await s.ready;
  return s;
}

/** `npm run rein -- …` in a shell whose data is at dataDir and databaseUrl. */
const cli = (args: string[], dataDir: string, databaseUrl: string) =>
  runCliBinary({ url: "http://127.0.0.1:9" }, "", args, "", { REIN_DATA_DIR: dataDir, DATABASE_URL: databaseUrl });

/** A database of its own with an operator and an approver, and their tokens; dropDatabase() takes it away as a new machine lacks it. */
async function installation(kind: "sqlite" | "postgres") {
  let db: Db;
  let url: string;
  let dataDir: string;
  let dropDatabase: () => Promise<unknown>;
  if (kind === "sqlite") {
    const t = await createTestDb();
    cleanups.push(() => t.cleanup());
    ({ db, url, dir: dataDir } = t);
    dropDatabase = async () => fs.rmSync(path.join(dataDir, "rein.db"));
  } else {
    const schema = await createPgSchema("backup");
    cleanups.push(() => schema.drop());
    url = schema.url;
    db = await openDb(url, { poolMax: 2 });
    dataDir = makeTempDir("rein-backup-pg-");
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    dropDatabase = () => schema.sql(`DROP SCHEMA ${schema.schema} CASCADE`);
  }
  const operator = await createUser(db, { email: "operator@rein.test", password: "password-123", role: "operator" });
  const approver = await createUser(db, { email: "approver@rein.test", password: "password-123", role: "approver" });
  const operatorToken = (await createApiToken(db, { userId: operator, name: "backup test" })).token;
  const approverToken = (await createApiToken(db, { userId: approver, name: "backup test" })).token;
  await db.$disconnect();
  return { url, dataDir, operatorToken, approverToken, dropDatabase };
}

describe.each(["sqlite", "postgres"] as const)("backup and restore on %s", (kind) => {
  it("a backup made while Rein runs, restored on a new machine: the waiting run waits again and finishes when answered", async () => {
    const old = await installation(kind);
    const first = await start(old.dataDir, old.url);
    const operator = restClient({ baseUrl: first.url, token: old.operatorToken });
    const launched = await operator.POST("/api/v1/runs", { body: { goal: "Deploy before the move", agent: "demo-deploy" } });
    const runId = launched.data!.id;
    await waitFor(
      async () => (await operator.GET("/api/v1/runs/{id}", { params: { path: { id: runId } } })).data?.status === "waiting_human",
      "the run to wait for a person",
    );

    const work = makeTempDir("rein-backup-test-");
    cleanups.push(() => fs.rmSync(work, { recursive: true, force: true }));
    const file = path.join(work, "rein-backup.tar.gz");
    const made = await cli(["backup", file], old.dataDir, old.url);
    expect(made.stderr).toBe("");
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(
      /^Backed up to .*rein-backup\.tar\.gz \([\d.]+ MB\)\n {2}the database.*, at \d+ migrations\n {2}without the keys/,
    );
    const listed = execFileSync("tar", ["--list", "--gzip", "--file", file], { encoding: "utf8" }).split("\n");
    expect(listed).toContain(kind === "sqlite" ? "rein.db" : "database.pgdump");
    expect(listed.some((n) => n.startsWith(`workspaces/${runId}`))).toBe(true);
    // Keys only when asked for; never the live lock or the database's own files.
    expect(listed.filter((n) => /^(secret\.key|auth-secret\.key|link-keys\.json|server\.pid|rein\.db-wal)$/.test(n))).toEqual([]);
    // A second backup never overwrites the first.
    const again = await cli(["backup", file], old.dataDir, old.url);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^rein: .*exists already; name a new file\n$/);
    await first.kill();

    // Another machine: an empty data directory, and a database without Rein's data.
    await old.dropDatabase();
    const moved = path.join(work, "moved");
    const newUrl = kind === "sqlite" ? `file:${path.join(moved, "rein.db")}` : old.url;
    const restored = await cli(["restore", file], moved, newUrl);
    expect(restored.stderr).toBe("");
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain("people sign in again");
    // Restoring over data that is there already is refused, in one line.
    const over = await cli(["restore", file], moved, newUrl);
    expect(over.code).toBe(1);
    expect(over.stderr).toMatch(/^rein: .*holds data already \(.*\); restore into an empty directory\n$/);

    const second = await start(moved, newUrl);
    const approver = restClient({ baseUrl: second.url, token: old.approverToken });
    const open = await approver.GET("/api/v1/human-requests", { params: { query: { runId } } });
    const request = open.data!.requests.find((r) => r.state === "PENDING")!;
    expect(request).toBeDefined();
    const decided = await approver.POST("/api/v1/human-requests/{id}/decision", {
      params: { path: { id: request.id } },
      body: { decision: "approve", comment: "approved on the new machine" },
    });
    expect(decided.response.status).toBe(200);
    await waitFor(
      async () => (await approver.GET("/api/v1/runs/{id}", { params: { path: { id: runId } } })).data?.status === "succeeded",
      "the run to finish",
    );
    const log = fs.readFileSync(path.join(moved, "workspaces", runId, "out", "deploy.log"), "utf8");
    expect(log.trim().split("\n")).toHaveLength(1);
  }, 120_000); // two installations, each started twice, and a run that waits: about a minute on a busy machine
});
