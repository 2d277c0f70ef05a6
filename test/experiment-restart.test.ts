// An experiment survives its server being killed: the real server is
// SIGKILLed while an experiment's items are running and started again; the
// experiment finishes, every item ran in exactly one run, and finished items
// kept their scores.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApiToken, createUser } from "@/server/identity";
import { createTestDb, type TestDb } from "./helpers/db";
import { queryDataDir } from "./helpers/cli";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";
import { waitFor } from "./helpers/wait";

describe("an experiment across a server crash", () => {
  let t: TestDb;
  let token: string;
  let servers: ServerProcess[] = [];

  beforeEach(async () => {
    t = await createTestDb();
    const userId = await createUser(t.db, { email: "op@rein.test", password: "password-123", role: "admin" });
    token = (await createApiToken(t.db, { userId, name: "restart" })).token;
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
      REIN_SCRIPTED_DELAY_MS: "15",
      REIN_WORKERS: "2",
      REIN_POD_POOL_SIZE: "0",
    });
    servers.push(s);
    await s.ready;
    return s;
  }

  async function api(s: ServerProcess, method: string, p: string, body?: unknown) {
    const res = await fetch(s.url + p, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as any;
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}\n${s.output().slice(-2000)}`);
    return json;
  }

  const query = <T>(sql: string, ...args: unknown[]) => queryDataDir<T>(t.dir, sql, ...args);

  it("finishes after a SIGKILL mid-experiment with no item run twice", async () => {
    const first = await start();
    const set = await api(first, "POST", "/api/v1/datasets", {
      name: "restart-set",
      teamId: null,
      scoring: { scorers: [{ kind: "outcome" }, { kind: "tools_used", tools: ["write_file"] }] },
    });
    for (let i = 1; i <= 5; i++)
      await api(first, "POST", `/api/v1/datasets/${set.id}/items`, {
        key: `item-${i}`,
        goal: `Write fizzbuzz (${i})`,
        agent: "demo-coder",
      });
    const experiment = await api(first, "POST", "/api/v1/experiments", { datasetId: set.id, concurrency: 2 });

    // Kill once a trial is scored and others are under way.
    await waitFor(
      () => {
        const rows = query<{ status: string; n: number }>(
          `SELECT status, COUNT(*) AS n FROM "ExperimentTrial" WHERE experimentId = ? GROUP BY status`,
          experiment.id,
        );
        const n = (s: string) => rows.find((r) => r.status === s)?.n ?? 0;
        return n("done") >= 1 && n("running") >= 1 ? true : null;
      },
      "a trial done and another running",
      { limitMs: 90_000, intervalMs: 50 },
    );
    const doneBefore = query<{ id: string; score: number; runId: string }>(
      `SELECT id, score, runId FROM "ExperimentTrial" WHERE experimentId = ? AND status = 'done'`,
      experiment.id,
    );
    await first.kill("SIGKILL");

    const second = await start();
    // The start-up lines after "ready" can come in a later chunk of the pipe.
    await waitFor(() => second.output().includes("Continuing 1 experiment(s)"), "the start-up line about the experiment", {
      limitMs: 10_000,
    });
    await waitFor(
      async () => ((await api(second, "GET", `/api/v1/experiments/${experiment.id}`)).status === "succeeded" ? true : null),
      "the experiment to finish",
      { limitMs: 120_000, intervalMs: 200 },
    ).catch((err) => {
      throw new Error(
        `${(err as Error).message}: ${JSON.stringify(query(`SELECT status, runId, error FROM "ExperimentTrial" WHERE experimentId = ?`, experiment.id))}\n${second.output().slice(-3000)}`,
      );
    });

    const trials = query<{ id: string; status: string; runId: string; score: number }>(
      `SELECT id, status, runId, score FROM "ExperimentTrial" WHERE experimentId = ?`,
      experiment.id,
    );
    expect(trials.map((tr) => tr.status)).toEqual(Array(5).fill("done"));
    const runs = query<{ id: string; status: string }>(`SELECT id, status FROM "Run" WHERE experimentId = ?`, experiment.id);
    expect(runs).toHaveLength(5);
    expect(new Set(trials.map((tr) => tr.runId))).toEqual(new Set(runs.map((r) => r.id)));
    expect(runs.every((r) => r.status === "succeeded")).toBe(true);
    // Each run was created once, and its side effects ran once (one commit of the work in each workspace's log).
    for (const r of runs)
      expect(query<{ n: number }>(`SELECT COUNT(*) AS n FROM "RunEvent" WHERE runId = ? AND type = 'run.created'`, r.id)[0].n).toBe(1);
    for (const d of doneBefore) expect(trials.find((tr) => tr.id === d.id)).toMatchObject({ score: d.score, runId: d.runId });
    const results = await api(second, "GET", `/api/v1/experiments/${experiment.id}/results`);
    expect(results.passRate).toBe(1);
  }, 300_000);
});
