// Backup and restore (docs/operations.md#backup-and-restore): a backup made while Rein runs, brought
// back into an empty data directory as on a new machine; the run that was waiting for a person waits
// there again, and answered there it finishes. Hostile archives: test/attack/backup-archive.test.ts.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken, createUser } from "@/server/identity";
import { restClient } from "@/lib/rest-client";
import { runCliBinary } from "./helpers/cli";
import { createTestDb, makeTempDir, type TestDb } from "./helpers/db";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";
import { waitFor } from "./helpers/wait";

let t: TestDb;
let work: string;
const servers: ServerProcess[] = [];
let operatorToken: string;
let approverToken: string;

async function start(dataDir: string): Promise<ServerProcess> {
  const s = spawnServer({ REIN_DATA_DIR: dataDir, PORT: String(await freePort()), REIN_UI: "off" });
  servers.push(s);
  await s.ready;
  return s;
}

const cli = (args: string[], dataDir: string) => runCliBinary({ url: "http://127.0.0.1:9" }, "", args, "", { REIN_DATA_DIR: dataDir });

beforeAll(async () => {
  t = await createTestDb();
  work = makeTempDir("rein-backup-test-");
  const operator = await createUser(t.db, { email: "operator@rein.test", password: "password-123", role: "operator" });
  const approver = await createUser(t.db, { email: "approver@rein.test", password: "password-123", role: "approver" });
  operatorToken = (await createApiToken(t.db, { userId: operator, name: "backup test" })).token;
  approverToken = (await createApiToken(t.db, { userId: approver, name: "backup test" })).token;
  await t.db.$disconnect();
}, 60_000);

afterAll(async () => {
  for (const s of servers) await s.kill();
  await t?.cleanup();
  fs.rmSync(work, { recursive: true, force: true });
});

describe("backup and restore", () => {
  it("a backup made while Rein runs, restored into an empty directory: the waiting run waits again and finishes when answered", async () => {
    const first = await start(t.dir);
    const operator = restClient({ baseUrl: first.url, token: operatorToken });
    const launched = await operator.POST("/api/v1/runs", { body: { goal: "Deploy before the move", agent: "demo-deploy" } });
    const runId = launched.data!.id;
    await waitFor(
      async () => (await operator.GET("/api/v1/runs/{id}", { params: { path: { id: runId } } })).data?.status === "waiting_human",
      "the run to wait for a person",
    );

    const file = path.join(work, "rein-backup.tar.gz");
    const made = await cli(["backup", file], t.dir);
    expect(made.stderr).toBe("");
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(
      /^Backed up to .*rein-backup\.tar\.gz \([\d.]+ MB\)\n {2}the database, at \d+ migrations\n {2}without the keys/,
    );
    const listed = execFileSync("tar", ["--list", "--gzip", "--file", file], { encoding: "utf8" }).split("\n");
    expect(listed).toContain("rein.db");
    expect(listed.some((n) => n.startsWith(`workspaces/${runId}`))).toBe(true);
    // Keys only when asked for; never the live lock or the database's own files.
    expect(listed.filter((n) => /^(secret\.key|auth-secret\.key|link-keys\.json|server\.pid|rein\.db-wal)$/.test(n))).toEqual([]);
    // A second backup never overwrites the first.
    const again = await cli(["backup", file], t.dir);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^rein: .*exists already; name a new file\n$/);
    await first.kill();

    // Another machine: an empty data directory.
    const moved = path.join(work, "moved");
    const restored = await cli(["restore", file], moved);
    expect(restored.stderr).toBe("");
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain("people sign in again");
    // Restoring over data that is there already is refused, in one line.
    const over = await cli(["restore", file], moved);
    expect(over.code).toBe(1);
    expect(over.stderr).toMatch(/^rein: .*holds data already \(.*\); restore into an empty directory\n$/);

    const second = await start(moved);
    const approver = restClient({ baseUrl: second.url, token: approverToken });
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
  });
});
