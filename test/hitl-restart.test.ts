// A run waiting for a person survives the server: SIGKILLed while it waits, the
// request is answered from a second process straight on the database (the CLI's
// path) and the next server start carries the run on; or the server comes back
// with nothing answered and the request is still there, once
// (docs/human-requests-and-policy.md#reference-human-requests). The approved
// deploy runs exactly once either way.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDb } from "@/server/db";
import { createApiToken, createUser } from "@/server/identity";
import { PrismaRunStore } from "@/server/kernel";
import { HitlBroker, type HumanRequestView } from "@/server/hitl";
import { createTestDb, type TestDb } from "./helpers/db";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";
import { waitFor } from "./helpers/wait";

describe("human requests across a server restart", () => {
  let t: TestDb;
  let servers: ServerProcess[] = [];
  const tokens = { operator: "", approver: "" };
  let approverId = "";
  let operatorId = "";

  beforeEach(async () => {
    t = await createTestDb();
    operatorId = await createUser(t.db, { email: "ada@rein.test", name: "Ada", password: "password-123", role: "operator" });
    approverId = await createUser(t.db, { email: "grace@rein.test", name: "Grace", password: "password-123", role: "approver" });
    tokens.operator = (await createApiToken(t.db, { userId: operatorId, name: "launch" })).token;
    tokens.approver = (await createApiToken(t.db, { userId: approverId, name: "decide" })).token;
    await t.db.$disconnect();
  });

  afterEach(async () => {
    await Promise.all(servers.map((s) => s.kill()));
    servers = [];
    await t.cleanup();
  });

  async function start() {
    const s = spawnServer({
      REIN_DATA_DIR: t.dir,
      PORT: String(await freePort()),
      REIN_SCRIPTED_DELAY_MS: "1",
      REIN_WORKERS: "1",
      REIN_POD_POOL_SIZE: "1",
    });
    servers.push(s);
    await s.ready;
    return s;
  }

  async function api<T = any>(s: ServerProcess, who: keyof typeof tokens, method: string, p: string, body?: unknown): Promise<T> {
    const res = await fetch(s.url + p, {
      method,
      headers: { authorization: `Bearer ${tokens[who]}`, "content-type": "application/json" },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
    return json as T;
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

  const status = (runId: string) => query<{ status: string }>(`SELECT status FROM Run WHERE id = ?`, runId)[0]?.status;
  const count = (runId: string, type: string) =>
    query<{ n: number }>(`SELECT count(*) AS n FROM RunEvent WHERE runId = ? AND type = ?`, runId, type)[0].n;
  const deployLines = (runId: string) => {
    const file = path.join(t.dir, "workspaces", runId, "out", "deploy.log");
    return fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n") : [];
  };
  const transitions = (requestId: string) =>
    query<{ fromState: string | null; toState: string; channel: string; actorId: string }>(
      `SELECT fromState, toState, channel, actorId FROM AuditEntry WHERE requestId = ? AND kind = 'request.transition' ORDER BY id`,
      requestId,
    );

  /** Launches demo-deploy and waits until it waits for a person; returns the run and its open request. */
  async function launchAndWait(s: ServerProcess) {
    const run = await api<{ id: string }>(s, "operator", "POST", "/api/v1/runs", { goal: "Deploy 1.4.0", agent: "demo-deploy" });
    const request = await waitFor(
      async () => {
        if (status(run.id) !== "waiting_human") return null;
        const { requests: items } = await api<{ requests: HumanRequestView[] }>(
          s,
          "approver",
          "GET",
          `/api/v1/human-requests?state=PENDING&runId=${run.id}`,
        );
        return items.length === 1 ? items[0] : null;
      },
      `run ${run.id} to wait for a person`,
      { limitMs: 60_000, intervalMs: 20 },
    );
    expect(request).toMatchObject({ runId: run.id, kind: "approve", state: "PENDING", requiredRole: "approver" });
    expect(request.title).toContain("./deploy.sh production");
    expect(deployLines(run.id)).toEqual([]);
    return { runId: run.id, request };
  }

  async function settled(runId: string) {
    return waitFor(
      () => {
        const s = status(runId);
        return s === "succeeded" || s === "failed" || s === "canceled" ? s : null;
      },
      `run ${runId} to finish`,
      { limitMs: 60_000, intervalMs: 20 },
    );
  }

  it("answered from another process while the server is down: the next start runs the deploy, once", async () => {
    let server = await start();
    const { runId, request } = await launchAndWait(server);
    await server.kill("SIGKILL");
    expect(await server.exited).toBe("SIGKILL");

    // The database path a second process (the CLI) uses: its own connection and run store, no queue.
    const db = await openDb(t.url);
    try {
      const broker = new HitlBroker({ db, runs: new PrismaRunStore(db) });
      const view = await broker.decide(
        request.id,
        { id: approverId, name: "Grace", role: "approver" },
        { decision: "approve", comment: "ship it" },
        "cli",
      );
      expect(view).toMatchObject({ state: "APPROVED", channel: "cli", decidedBy: { id: approverId, name: "Grace" } });
      // Nothing runs it in this process: it waits in the queue for the server.
      expect(status(runId)).toBe("queued");
      expect(deployLines(runId)).toEqual([]);
    } finally {
      await db.$disconnect();
    }

    server = await start();
    expect(await settled(runId)).toBe("succeeded");
    const lines = deployLines(runId);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/deployed version 1\.4\.0 to production$/);

    expect(transitions(request.id)).toEqual([
      { fromState: null, toState: "PENDING", channel: "kernel", actorId: "agent:demo-deploy" },
      { fromState: "PENDING", toState: "APPROVED", channel: "cli", actorId: approverId },
    ]);
    expect(query(`SELECT id FROM HumanRequest`)).toHaveLength(1);
    expect(count(runId, "human.requested")).toBe(1);
    expect(count(runId, "human.decided")).toBe(1);
    const decided = JSON.parse(
      query<{ payload: string }>(`SELECT payload FROM RunEvent WHERE runId = ? AND type = 'human.decided'`, runId)[0].payload,
    );
    expect(decided).toMatchObject({ requestId: request.id, state: "APPROVED", channel: "cli", by: approverId, comment: "ship it" });
    // The deploy's result names the request it waited for and came from an execution, not the cache.
    const results = query<{ payload: string }>(
      `SELECT payload FROM RunEvent WHERE runId = ? AND type = 'tool.result' ORDER BY seq`,
      runId,
    ).map((r) => JSON.parse(r.payload));
    const deploy = results.filter((r) => r.gate?.requestId === request.id);
    expect(deploy).toHaveLength(1);
    expect(deploy[0]).toMatchObject({ ok: true, cached: false, tool: "shell" });
  });

  it("killed while waiting and started again: the run still waits, the request is there once, and a REST decision carries it on", async () => {
    let server = await start();
    const { runId, request } = await launchAndWait(server);
    await server.kill("SIGKILL");

    server = await start();
    // The start-up repair has run (before "ready"); nothing was answered, so nothing moved.
    expect(status(runId)).toBe("waiting_human");
    const { requests: items } = await api<{ requests: HumanRequestView[] }>(
      server,
      "approver",
      "GET",
      `/api/v1/human-requests?runId=${runId}`,
    );
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ id: request.id, state: "PENDING" });
    expect(query(`SELECT id FROM HumanRequest`)).toHaveLength(1);
    expect(count(runId, "human.requested")).toBe(1);
    expect(deployLines(runId)).toEqual([]);

    // The operator who launched it may not approve; the approver may.
    await expect(api(server, "operator", "POST", `/api/v1/human-requests/${request.id}/decision`, { decision: "approve" })).rejects.toThrow(
      /403|approver role/,
    );
    const decided = await api<HumanRequestView>(server, "approver", "POST", `/api/v1/human-requests/${request.id}/decision`, {
      decision: "approve",
    });
    expect(decided).toMatchObject({ state: "APPROVED", channel: "api" });

    expect(await settled(runId)).toBe("succeeded");
    expect(deployLines(runId)).toHaveLength(1);
    expect(transitions(request.id).map((a) => `${a.fromState ?? ""}>${a.toState}:${a.channel}`)).toEqual([
      ">PENDING:kernel",
      "PENDING>APPROVED:api",
    ]);
    expect(query(`SELECT id FROM HumanRequest`)).toHaveLength(1);
    // A second answer is refused clearly, and changes nothing.
    await expect(api(server, "approver", "POST", `/api/v1/human-requests/${request.id}/decision`, { decision: "reject" })).rejects.toThrow(
      /already closed: APPROVED by Grace/,
    );
    expect(transitions(request.id)).toHaveLength(2);
  });
});
