// The crash test of the Foundation issue: the real server is SIGKILLed at many
// points of a run and restarted each time. No side effect may appear twice; a
// kill between a recorded result and the next step resumes and finishes; a
// kill inside an unsafe tool's window stops the run with ReplayUnsafeError;
// no policy decision behind a recorded result is lost.
import fs from "node:fs";
import path from "node:path";
import { execSync } from "node:child_process";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApiToken, createUser } from "@/server/identity";
import { createTestDb, type TestDb } from "./helpers/db";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";

const STEPS = 6;
/** Each turn streams ~12 words at 25 ms: a kill right after a tool result lands in the model turn. */
const CHATTER = "Thinking about the next step of this run before calling the tool again now.";

function appendScenario() {
  const turns: Array<{ text: string; toolCalls?: Array<{ tool: string; args: Record<string, unknown> }> }> = [];
  for (let i = 1; i <= STEPS; i++) {
    turns.push({ text: `${CHATTER} (${i})`, toolCalls: [{ tool: "shell", args: { command: `echo line-${i} >> side.log` } }] });
  }
  turns.push({
    text: `${CHATTER} Both at once.`,
    toolCalls: [
      { tool: "shell", args: { command: "echo line-7a >> side.log" } },
      { tool: "shell", args: { command: "echo line-7b >> side.log" } },
    ],
  });
  turns.push({ text: "All lines are written." });
  return turns;
}

const EXPECTED_LINES = [...Array.from({ length: STEPS }, (_, i) => `line-${i + 1}`), "line-7a", "line-7b"];

describe("crash and restart", () => {
  let t: TestDb;
  let token: string;
  let adminToken: string;
  let servers: ServerProcess[] = [];

  beforeEach(async () => {
    t = await createTestDb();
    const userId = await createUser(t.db, { email: "op@rein.test", password: "password-123", role: "approver" });
    token = (await createApiToken(t.db, { userId, name: "crash" })).token;
    const adminId = await createUser(t.db, { email: "admin@rein.test", password: "password-123", role: "admin" });
    adminToken = (await createApiToken(t.db, { userId: adminId, name: "admin" })).token;
    await t.db.$disconnect();
  });

  afterEach(async () => {
    await Promise.all(servers.map((s) => s.kill()));
    servers = [];
    await t.cleanup();
  });

  // No warm terminal pods: each life of the server would start two (git, bubblewrap) that no run here
  // needs, over twenty lives; the run's own pod is started on demand as after any restart.
  async function start(extra: Record<string, string> = {}) {
    const s = spawnServer({
      REIN_DATA_DIR: t.dir,
      PORT: String(await freePort()),
      REIN_SCRIPTED_DELAY_MS: "25",
      REIN_WORKERS: "1",
      REIN_POD_POOL_SIZE: "0",
      ...extra,
    });
    servers.push(s);
    await s.ready;
    return s;
  }

  async function api(s: ServerProcess, method: string, p: string, body?: unknown) {
    const res = await fetch(s.url + p, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }

  /** Reads the database beside the server (WAL lets a second reader in). */
  function query<T>(sql: string, ...args: unknown[]): T[] {
    const db = new Database(t.url.slice("file:".length), { readonly: true, fileMustExist: true });
    try {
      return db.prepare(sql).all(...args) as T[];
    } finally {
      db.close();
    }
  }

  async function until(what: string, check: () => boolean, ms = 30_000) {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  const count = (runId: string, type: string) =>
    query<{ n: number }>(`SELECT count(*) AS n FROM RunEvent WHERE runId = ? AND type = ?`, runId, type)[0].n;
  const status = (runId: string) =>
    query<{ status: string; errorCode: string | null }>(`SELECT status, errorCode FROM Run WHERE id = ?`, runId)[0];
  const sideLines = (runId: string) => {
    const file = path.join(t.dir, "workspaces", runId, "side.log");
    return fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n") : [];
  };

  it("killed after every recorded result, resumes each time and runs every side effect exactly once", async () => {
    let server = await start();
    const run = await api(server, "POST", "/api/v1/runs", { goal: "append lines", agent: "demo-coder", scenario: appendScenario() });
    const totalResults = STEPS + 2;
    const kills: number[] = [];
    // Kill once the run is running, then after each tool result that is
    // followed by a model turn (after line-7a the next call, 7b, runs at once:
    // a kill there would land inside 7b's unsafe window, tested below).
    for (let k = 0; k < totalResults; k++) {
      if (k === STEPS + 1) continue;
      await until(`result ${k}`, () => count(run.id, "tool.result") >= k && count(run.id, "run.state") >= 1);
      if (status(run.id).status !== "running") break;
      await server.kill("SIGKILL");
      kills.push(k);
      server = await start();
    }
    await until("the run to end", () => ["succeeded", "failed", "canceled"].includes(status(run.id).status));

    expect(kills.length).toBeGreaterThanOrEqual(totalResults - 2);
    expect(status(run.id)).toEqual({ status: "succeeded", errorCode: null });
    expect(sideLines(run.id)).toEqual(EXPECTED_LINES);

    const events = query<{ seq: number; type: string; key: string | null }>(
      `SELECT seq, type, key FROM RunEvent WHERE runId = ? ORDER BY seq`,
      run.id,
    );
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const keys = events.map((e) => e.key).filter(Boolean);
    expect(new Set(keys).size).toBe(keys.length);
    expect(events.filter((e) => e.type === "tool.result")).toHaveLength(totalResults);
    expect(events.filter((e) => e.type === "model.turn")).toHaveLength(appendScenario().length);
    expect(events.filter((e) => e.type === "run.resumed").length).toBeGreaterThanOrEqual(kills.length - 1);
    // Every unsafe call has exactly one completed cache row; none is left as a bare intent.
    const rows = query<{ status: string; n: number }>(
      `SELECT status, count(*) AS n FROM ToolCallResult WHERE runId = ? GROUP BY status`,
      run.id,
    );
    expect(rows).toEqual([{ status: "done", n: totalResults }]);
  });

  it("killed after each tool ran but before its result was checkpointed, answers from the replay cache instead of running it again", async () => {
    let server = await start({ REIN_FAILPOINTS: "after-tool-executed:1" });
    const run = await api(server, "POST", "/api/v1/runs", { goal: "append lines", agent: "demo-coder", scenario: appendScenario() });
    let crashes = 0;
    // Each life of the server executes one new tool call and dies right after it.
    while (crashes < STEPS + 2) {
      expect(await server.exited).toBe("SIGKILL");
      crashes++;
      server = await start(crashes < STEPS + 2 ? { REIN_FAILPOINTS: "after-tool-executed:1" } : {});
    }
    await until("the run to end", () => ["succeeded", "failed", "canceled"].includes(status(run.id).status));
    expect(status(run.id)).toEqual({ status: "succeeded", errorCode: null });
    expect(sideLines(run.id)).toEqual(EXPECTED_LINES);
    const results = query<{ payload: string }>(
      `SELECT payload FROM RunEvent WHERE runId = ? AND type = 'tool.result' ORDER BY seq`,
      run.id,
    );
    expect(results).toHaveLength(STEPS + 2);
    // Every result was recorded by a later life of the server, from the cache.
    expect(results.every((r) => JSON.parse(r.payload).cached === true)).toBe(true);
  });

  it("killed inside an unsafe tool's window, asks a person instead of running it again; skipping never runs it", async () => {
    let server = await start();
    const marker = `rein-crash-${Date.now()}`;
    const run = await api(server, "POST", "/api/v1/runs", {
      goal: "one slow unsafe call",
      agent: "demo-coder",
      scenario: [
        { text: "Slow command.", toolCalls: [{ tool: "shell", args: { command: `echo started >> side.log; sleep 2 # ${marker}` } }] },
        { text: "Went on after the person's choice." },
      ],
    });
    await until(
      "the intent row and the command's first effect",
      () =>
        // The line written, not only the file: `>>` creates the file a moment before the shell writes to it.
        query(`SELECT 1 FROM ToolCallResult WHERE runId = ? AND status = 'intent'`, run.id).length === 1 &&
        sideLines(run.id)[0] === "started",
    );
    await server.kill("SIGKILL");
    try {
      execSync(`pkill -f '${marker}'`);
    } catch {
      /* already gone */
    }
    server = await start();
    // ReplayUnsafeError becomes a choose request (skip / retry / cancel): docs/runs.md#replay-safety.
    await until("the run to wait for a person", () => status(run.id).status === "waiting_human");
    expect(sideLines(run.id)).toEqual(["started"]);
    const { requests: items } = await api(server, "GET", `/api/v1/human-requests?runId=${run.id}`);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ kind: "choose", slot: "replay", state: "PENDING", payload: { tool: "shell" } });
    expect(items[0].title).toMatch(/Unknown whether shell ran before the interruption/);
    expect(items[0].payload.options.map((o: { id: string }) => o.id)).toEqual(["retry", "skip", "cancel"]);

    const decided = await api(server, "POST", `/api/v1/human-requests/${items[0].id}/decision`, { decision: "choose", optionId: "skip" });
    expect(decided.state).toBe("APPROVED");
    await until("the run to finish", () => status(run.id).status === "succeeded");
    expect(sideLines(run.id)).toEqual(["started"]);
    expect(count(run.id, "tool.result")).toBe(1);
    const result = query(`SELECT payload FROM RunEvent WHERE runId = ? AND type = 'tool.result'`, run.id)[0] as { payload: string };
    expect(JSON.parse(result.payload)).toMatchObject({ ok: false, error: { code: "SKIPPED_BY_HUMAN" } });
  });

  it("refuses a second server on the same data directory with a clear message", async () => {
    const first = await start();
    const second = spawnServer({ REIN_DATA_DIR: t.dir, PORT: String(await freePort()) });
    servers.push(second);
    await expect(second.ready).rejects.toThrow(/already using the data directory/);
    expect(await second.exited).toBe(1);
    // The first one is unaffected.
    const health = await fetch(`${first.url}/api/health`);
    const anyone = (await health.json()) as Record<string, unknown>;
    expect(anyone).toMatchObject({ status: "ok", role: "all" });
    // The process's vitals are for admins (docs/operations.md#watching-a-server).
    expect(anyone).not.toHaveProperty("vitals");
    const as = async (bearer: string) =>
      (await (await fetch(`${first.url}/api/health`, { headers: { authorization: `Bearer ${bearer}` } })).json()) as Record<
        string,
        unknown
      >;
    expect(await as(token)).not.toHaveProperty("vitals");
    expect((await as(adminToken)).vitals).toMatchObject({
      rssBytes: expect.any(Number),
      heapUsedBytes: expect.any(Number),
      eventLoopDelayMs: { lastMinute: { p99: expect.any(Number) }, sinceStart: { max: expect.any(Number) } },
    });
  });

  // A routine policy decision (allow) is audited with the next write on the direct SQLite connection,
  // not in a transaction of its own (server/audit/writer.ts): here it rode the call's replay-cache row.
  it("a kill right after a call ran finds its policy decision stored; after the restart every result has one", async () => {
    const decisions = (runId: string) =>
      query<{ subject: string; toState: string; detail: string; at: string }>(
        `SELECT subject, toState, detail, at FROM AuditEntry WHERE runId = ? AND kind = 'policy.decision' ORDER BY id`,
        runId,
      ).map((r) => ({ ...r, nodeId: (JSON.parse(r.detail) as { nodeId: string }).nodeId }));
    let server = await start({ REIN_FAILPOINTS: "after-tool-executed:2" });
    const run = await api(server, "POST", "/api/v1/runs", {
      goal: "list, write, list",
      agent: "demo-coder",
      scenario: [
        { text: "Look first.", toolCalls: [{ tool: "list_files", args: {} }] },
        { text: "Write a note.", toolCalls: [{ tool: "write_file", args: { path: "note.txt", content: "hello" } }] },
        { text: "Look again.", toolCalls: [{ tool: "list_files", args: {} }] },
        { text: "Done." },
      ],
    });
    // The second call ran, then the server died before its result was checkpointed.
    expect(await server.exited).toBe("SIGKILL");
    const results = () =>
      query<{ payload: string }>(`SELECT payload FROM RunEvent WHERE runId = ? AND type = 'tool.result' ORDER BY seq`, run.id).map((r) =>
        JSON.parse(r.payload),
      );
    expect(results().map((r) => r.tool)).toEqual(["list_files"]);
    const beforeRestart = decisions(run.id);
    expect(beforeRestart.map((d) => [d.subject, d.toState])).toEqual([
      ["list_files", "allow"],
      ["write_file", "allow"],
    ]);

    server = await start();
    await until("the run to end", () => status(run.id).status === "succeeded");
    const recorded = results();
    expect(recorded.map((r) => r.tool)).toEqual(["list_files", "write_file", "list_files"]);
    const audited = decisions(run.id);
    // The decision stored before the kill is still there, and the resumed call was decided again.
    expect(audited.slice(0, 2)).toEqual(beforeRestart);
    expect(audited.map((d) => d.subject)).toEqual(["list_files", "write_file", "write_file", "list_files"]);
    // Every recorded result names a policy decision, and the audit log holds a row for each.
    for (const r of recorded) {
      expect(r.gate?.policy?.effect).toBe("allow");
      expect(audited.some((d) => d.nodeId === `${r.step}:${r.toolCallId}` && d.subject === r.tool)).toBe(true);
    }
    // Rows written over the direct connection read like any other: ISO times, in order.
    expect(audited.every((d) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/.test(d.at))).toBe(true);
  });
});
