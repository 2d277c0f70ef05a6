// The CLI against a real server: launch a run that waits for a person, list
// the open requests, decide one; bad options get clear errors.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken, createUser } from "@/server/identity";
import { queryDataDir, runCli } from "./helpers/cli";
import { createTestDb, type TestDb } from "./helpers/db";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";
import { waitFor } from "./helpers/wait";

let t: TestDb;
let server: ServerProcess;
let token: string;

const cli = (...args: string[]) => runCli(server, token, args);
const query = <T>(sql: string, ...args: unknown[]) => queryDataDir<T>(t.dir, sql, ...args);

beforeAll(async () => {
  t = await createTestDb();
  const userId = await createUser(t.db, { email: "approver@rein.test", password: "password-123", role: "approver" });
  token = (await createApiToken(t.db, { userId, name: "cli" })).token;
  await t.db.$disconnect();
  const s = spawnServer({ REIN_DATA_DIR: t.dir, PORT: String(await freePort()), REIN_UI: "off" });
  await s.ready;
  server = s;
}, 60_000);

afterAll(async () => {
  await server?.kill();
  await t?.cleanup();
});

describe("rein CLI: human requests", () => {
  it("lists the open request of a waiting run and approves it; the run finishes", async () => {
    const launched = await cli("run", "--agent", "demo-deploy", "--goal", "Deploy from the CLI", "--json");
    expect(launched.code).toBe(0);
    const runId = JSON.parse(launched.stdout).id as string;
    await waitFor(() => query<{ status: string }>(`SELECT status FROM "Run" WHERE id = ?`, runId)[0]?.status === "waiting_human", "the run to wait");

    const listed = await cli("requests", "--run", runId);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/approve\s+PENDING\s+needs approver/);
    expect(listed.stdout).toContain("./deploy.sh production");
    const requestId = listed.stdout.trim().split(/\s+/)[0];

    const bad = await cli("decide", "--request", requestId, "--decision", "approve", "--args", "{not json");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--args must be JSON");

    const decided = await cli("decide", "--request", requestId, "--decision", "approve", "--comment", "ship it");
    expect(decided.code).toBe(0);
    expect(decided.stdout).toContain(`Request ${requestId} APPROVED`);
    await waitFor(() => query<{ status: string }>(`SELECT status FROM "Run" WHERE id = ?`, runId)[0]?.status === "succeeded", "the run to finish");
    expect(query<{ channel: string }>(`SELECT channel FROM AuditEntry WHERE requestId = ? AND toState = 'APPROVED'`, requestId)).toEqual([{ channel: "cli" }]);

    const again = await cli("decide", "--request", requestId, "--decision", "reject");
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/409 CLOSED: This request is already closed: APPROVED/);
    const none = await cli("requests", "--run", runId);
    expect(none.stdout).toContain("No human requests match.");
  }, 60_000);
});
