// The CLI against a real server: launch a run that waits for a person, list
// the open requests, decide one; bad options get clear errors.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken, createUser } from "@/server/identity";
import { queryDataDir, runCli, runCliBinary } from "./helpers/cli";
import { createTestDb, type TestDb } from "./helpers/db";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";
import { waitFor } from "./helpers/wait";

let t: TestDb;
let server: ServerProcess;
let token: string;

const cli = (...args: string[]) => runCli(server, token, args);
/** The real `scripts/cli.ts` process: its exit code, output and one-line errors as a user sees them. */
const binary = (...args: string[]) => runCliBinary(server, token, args);
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

describe("rein CLI: token create, which opens the database itself", () => {
  it("works in an operator's shell on a cluster's machine (REDIS_URL set, no role), and says what is wrong in one line", async () => {
    // What a worker host's shell has: the cluster's Redis, and no REIN_ROLE of its own.
    const shell = { REIN_DATA_DIR: t.dir, REDIS_URL: "redis://127.0.0.1:6379" };
    const [made, nobody, badUrl] = await Promise.all([
      runCliBinary(server, "", ["token", "create", "--email", "approver@rein.test", "--name", "from a worker host"], "", shell),
      runCliBinary(server, "", ["token", "create", "--email", "nobody@rein.test", "--name", "x"], "", shell),
      runCliBinary(server, "", ["token", "create", "--email", "approver@rein.test", "--name", "x"], "", {
        ...shell,
        DATABASE_URL: "mysql://db/rein",
      }),
    ]);
    expect(made.stderr).toBe("");
    expect(made.code).toBe(0);
    const [row] = query<{ userId: string }>(`SELECT "userId" FROM "ApiToken" WHERE name = ?`, "from a worker host");
    expect(row).toBeDefined();
    // The token printed is one that works.
    const works = await runCli(server, made.stdout.trim(), ["requests"]);
    expect(works.code).toBe(0);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toBe("rein: No user with the email nobody@rein.test\n");
    expect(badUrl.code).toBe(1);
    expect(badUrl.stderr).toMatch(/^rein: the settings are not valid: DATABASE_URL: [^\n]+\n$/);
  });
});

describe("rein CLI: human requests", () => {
  it("lists the open request of a waiting run and approves it; the run finishes", async () => {
    const launched = await binary("run", "--agent", "demo-deploy", "--goal", "Deploy from the CLI", "--json");
    expect(launched.code).toBe(0);
    const runId = JSON.parse(launched.stdout).id as string;
    await waitFor(
      () => query<{ status: string }>(`SELECT status FROM "Run" WHERE id = ?`, runId)[0]?.status === "waiting_human",
      "the run to wait",
    );

    const listed = await cli("requests", "--run", runId);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/approve\s+PENDING\s+needs approver/);
    expect(listed.stdout).toContain("./deploy.sh production");
    const requestId = listed.stdout.trim().split(/\s+/)[0];

    const bad = await binary("decide", "--request", requestId, "--decision", "approve", "--args", "{not json");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^rein: --args must be JSON, e\.g\. --args '\{"capPercent": 10\}'\n$/);

    const decided = await cli("decide", "--request", requestId, "--decision", "approve", "--comment", "ship it");
    expect(decided.code).toBe(0);
    expect(decided.stdout).toContain(`Request ${requestId} APPROVED`);
    await waitFor(
      () => query<{ status: string }>(`SELECT status FROM "Run" WHERE id = ?`, runId)[0]?.status === "succeeded",
      "the run to finish",
    );
    expect(query<{ channel: string }>(`SELECT channel FROM AuditEntry WHERE requestId = ? AND toState = 'APPROVED'`, requestId)).toEqual([
      { channel: "cli" },
    ]);

    const again = await cli("decide", "--request", requestId, "--decision", "reject");
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/409 CLOSED: This request is already closed: APPROVED/);
    const none = await cli("requests", "--run", runId);
    expect(none.stdout).toContain("No human requests match.");
  }, 60_000);
});

describe("rein CLI: steering a run", () => {
  it("say continues an ended run and follows it; retry refuses a run that succeeded; rerun names its parent", async () => {
    const scenario = `${t.dir}/say-scenario.json`;
    fs.writeFileSync(
      scenario,
      JSON.stringify({ turns: [{ text: "First answer." }], onMessage: [{ text: "Second answer, after your message." }] }),
    );
    const launched = await cli("run", "--goal", "Answer twice", "--scenario", scenario, "--wait", "--json");
    expect(launched.code).toBe(0);
    const runId = JSON.parse(launched.stdout.trim().split("\n").at(-1)!).id as string;

    expect((await cli("say", "--run", runId)).stderr).toContain("say needs --text");
    const said = await cli("say", "--run", runId, "--text", "One more, please.", "--wait");
    expect(said.code).toBe(0);
    expect(said.stdout).toContain("says: One more, please.");
    expect(said.stdout).toContain("Second answer, after your message.");
    expect(said.stdout).toContain(`Run ${runId} succeeded`);

    const retry = await cli("retry", "--run", runId);
    expect(retry.code).toBe(1);
    expect(retry.stderr).toMatch(/409 CONFLICT: Only a failed or canceled run can be retried; this one is succeeded/);
    expect((await cli("retry", "--run", runId, "--max-steps=-3")).stderr).toContain("--max-steps must be a whole number of at least 1");
    const dashed = await cli("retry", "--run", runId, "--max-steps", "-3");
    expect(dashed.stderr).toMatch(/^rein: Option '--max-steps' argument is ambiguous/);
    expect(dashed.stderr).not.toContain("    at ");

    const rerun = await cli("rerun", "--run", runId, "--goal", "Answer twice again", "--json");
    expect(rerun.code).toBe(0);
    expect(JSON.parse(rerun.stdout)).toMatchObject({ goal: "Answer twice again", parentRunId: runId, lineage: "rerun" });

    expect((await cli("fork", "--run", runId)).stderr).toContain("fork needs --step N");
    const forked = await cli("fork", "--run", runId, "--step", "1", "--text", "Answer differently.", "--wait");
    expect(forked.code).toBe(0);
    expect(forked.stdout).toContain("says: Answer differently.");
    const forkId = forked.stdout.match(/Run (\S+) succeeded/)![1];
    const compared = await cli("compare", "--run", runId, "--with", forkId);
    expect(compared.code).toBe(0);
    // Both answered a message at step 2 with the same reply: the scripted model does not think.
    expect(compared.stdout).toContain("The runs take the same steps.");
    expect(compared.stdout).toMatch(/ {3}1 = {2}First answer\./);
    expect(compared.stdout).toMatch(/ {3}2 = {2}Second answer, after your message\./);
    expect((await cli("compare", "--run", runId, "--with", "no-such-run")).stderr).toMatch(/404 NOT_FOUND: Run no-such-run was not found/);
  }, 60_000);
});
