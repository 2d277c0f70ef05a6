// A routine policy decision (allow) is audited with the next write on the
// direct SQLite connection rather than in a transaction of its own
// (server/audit/writer.ts). A server killed after the call ran, before its
// result was checkpointed, has already stored the decision (it rode the
// call's replay-cache row); after the restart the call is decided again, and
// every recorded result has its decision row.
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApiToken, createUser } from "@/server/identity";
import { createTestDb, type TestDb } from "./helpers/db";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";

describe("audit rows of policy decisions across a crash", () => {
  let t: TestDb;
  let token: string;
  let servers: ServerProcess[] = [];

  beforeEach(async () => {
    t = await createTestDb();
    const userId = await createUser(t.db, { email: "op@rein.test", password: "password-123", role: "approver" });
    token = (await createApiToken(t.db, { userId, name: "audit-crash" })).token;
    await t.db.$disconnect();
  });

  afterEach(async () => {
    await Promise.all(servers.map((s) => s.kill()));
    servers = [];
    await t.cleanup();
  });

  async function start(extra: Record<string, string> = {}) {
    const s = spawnServer({ REIN_DATA_DIR: t.dir, PORT: String(await freePort()), REIN_SCRIPTED_DELAY_MS: "5", REIN_WORKERS: "1", ...extra });
    servers.push(s);
    await s.ready;
    return s;
  }

  function query<T>(sql: string, ...args: unknown[]): T[] {
    const db = new Database(path.join(t.url.slice("file:".length)), { readonly: true, fileMustExist: true });
    try {
      return db.prepare(sql).all(...args) as T[];
    } finally {
      db.close();
    }
  }

  const decisions = (runId: string) =>
    query<{ subject: string; toState: string; detail: string; at: string }>(`SELECT subject, toState, detail, at FROM AuditEntry WHERE runId = ? AND kind = 'policy.decision' ORDER BY id`, runId).map(
      (r) => ({ ...r, nodeId: (JSON.parse(r.detail) as { nodeId: string }).nodeId }),
    );

  async function until(what: string, check: () => boolean, ms = 30_000) {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  it("a kill right after the call ran finds its decision stored; after the restart every result has one", async () => {
    let server = await start({ REIN_FAILPOINTS: "after-tool-executed:2" });
    const res = await fetch(`${server.url}/api/v1/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        goal: "list, write, list",
        agent: "demo-coder",
        scenario: [
          { text: "Look first.", toolCalls: [{ tool: "list_files", args: {} }] },
          { text: "Write a note.", toolCalls: [{ tool: "write_file", args: { path: "note.txt", content: "hello" } }] },
          { text: "Look again.", toolCalls: [{ tool: "list_files", args: {} }] },
          { text: "Done." },
        ],
      }),
    });
    expect(res.status).toBe(201);
    const run = (await res.json()) as { id: string };
    // The second call ran, then the server died before its result was checkpointed.
    expect(await server.exited).toBe("SIGKILL");
    const results = () => query<{ payload: string }>(`SELECT payload FROM RunEvent WHERE runId = ? AND type = 'tool.result' ORDER BY seq`, run.id).map((r) => JSON.parse(r.payload));
    expect(results().map((r) => r.tool)).toEqual(["list_files"]);
    const beforeRestart = decisions(run.id);
    expect(beforeRestart.map((d) => [d.subject, d.toState])).toEqual([
      ["list_files", "allow"],
      ["write_file", "allow"],
    ]);

    server = await start();
    await until("the run to end", () => query<{ status: string }>(`SELECT status FROM Run WHERE id = ?`, run.id)[0].status === "succeeded");
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
