// Upgrades without loss (docs/operations.md#upgrades): the data directory of an earlier Rein
// (test/fixtures/upgrade/, made by scripts/make-upgrade-fixture.ts from an earlier commit, with a run
// waiting for a person and a paused run) is restored, migrated by this build as npm run up does, and
// started: the waiting run's request is answered and the run finishes; the paused run resumes and finishes.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { restore } from "@/server/backup";
import { restClient } from "@/lib/rest-client";
import { makeTempDir } from "./helpers/db";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";
import { waitFor } from "./helpers/wait";

const FIXTURE = path.resolve("test", "fixtures", "upgrade");
const about = JSON.parse(fs.readFileSync(path.join(FIXTURE, "fixture.json"), "utf8")) as {
  lastMigration: string;
  token: string;
  waitingRunId: string;
  pausedRunId: string;
};
const dataDir = makeTempDir("rein-upgrade-");
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.kill();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it("an earlier Rein's data, migrated by this one: its waiting run is answered and finishes, its paused run resumes and finishes", async () => {
  const databaseUrl = `file:${path.join(dataDir, "rein.db")}`;
  const { manifest } = await restore({
    file: path.join(FIXTURE, "sqlite.tar.gz"),
    dataDir,
    databaseUrl,
    migrationsDir: path.resolve("prisma", "migrations"),
  });
  expect(manifest.migrations.at(-1)).toBe(about.lastMigration);
  const later = fs.readdirSync(path.resolve("prisma", "migrations")).filter((m) => m > about.lastMigration && !m.endsWith(".toml"));
  // The fixture is older than this build: there is something to migrate.
  expect(later.length).toBeGreaterThan(0);
  execFileSync("bash", [path.resolve("scripts", "prisma.sh"), "migrate", "deploy"], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: "pipe",
  });

  const started = spawnServer({ REIN_DATA_DIR: dataDir, PORT: String(await freePort()), REIN_UI: "off" });
  server = started;
  await started.ready;
  const api = restClient({ baseUrl: server.url, token: about.token });
  const status = async (id: string) => (await api.GET("/api/v1/runs/{id}", { params: { path: { id } } })).data?.status;
  expect(await status(about.waitingRunId)).toBe("waiting_human");
  expect(await status(about.pausedRunId)).toBe("paused");

  const open = await api.GET("/api/v1/human-requests", { params: { query: { runId: about.waitingRunId } } });
  const request = open.data!.requests.find((r) => r.state === "PENDING");
  expect(request, JSON.stringify(open.data)).toBeDefined();
  const decided = await api.POST("/api/v1/human-requests/{id}/decision", {
    params: { path: { id: request!.id } },
    body: { decision: "approve", comment: "approved after the upgrade" },
  });
  expect(decided.response.status, JSON.stringify(decided.error)).toBe(200);
  const resumed = await api.POST("/api/v1/runs/{id}/resume", { params: { path: { id: about.pausedRunId } } });
  expect(resumed.response.status, JSON.stringify(resumed.error)).toBeLessThan(300);

  await waitFor(async () => (await status(about.waitingRunId)) === "succeeded", "the deploy run to finish");
  await waitFor(async () => (await status(about.pausedRunId)) === "succeeded", "the paused run to finish", { limitMs: 60_000 });
  // The demo repository is where this data directory is, not where the earlier one was.
  const repositories = await api.GET("/api/v1/repositories");
  expect(repositories.data?.repositories.find((r) => r.builtIn)?.source).toBe(path.join(dataDir, "repos", "demo-service"));
  // The approved call ran once, after the upgrade.
  const log = fs.readFileSync(path.join(dataDir, "workspaces", about.waitingRunId, "out", "deploy.log"), "utf8");
  expect(log.trim().split("\n")).toHaveLength(1);
});
