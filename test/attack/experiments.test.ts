// Attack suite: Evals experiments. A member of team B cannot see, read the
// results of, compare, gate, cancel or delete team A's experiment by id over
// tRPC or REST, start one on A's dataset, or use A's experiment as a
// baseline. And the agent under test cannot reach what judges it: an item
// whose run hunts for Rein's database, the data directory and the REST API
// (with a leaked token) from its shell finds none of them, and the scores
// stay what the scorers wrote.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor, testServices } from "@/test/helpers/services";
import { createRestHandler } from "@/server/channels";
import { DEFAULT_LIMITS, PodPool, probeSandbox } from "@/server/compute";
import { createApiToken, type Actor } from "@/server/identity";
import { ExperimentRunner, type ScoredBy } from "@/server/evals";
import { createTestKernel, SILENT_LOG, type TestKernel } from "../helpers/kernel";
import { makeTempDir } from "../helpers/db";
import { agentPeople, type AgentPeople } from "../helpers/agents";
import { trpcError } from "../helpers/trpc";

let tk: TestKernel;
let p: AgentPeople;
let pods: PodPool;
let podsDir: string;
let runner: ExperimentRunner;
let server: http.Server;
let base: string;
let alphaToken: string;
let betaToken: string;
let datasetId: string;
let experimentId: string;
let betaDatasetId: string;
let betaExperimentId: string;

const caller = (actor: Actor) => callerFor(tk, actor, { experiments: runner });
const rest = (token: string, method: string, p: string, body?: unknown) =>
  fetch(base + p, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** The commands an agent under test tries: find the database, list the data directory, call the API with a leaked token. */
function hunt(dataDir: string, token: string) {
  const api = `fetch('${base}/api/v1/experiments',{headers:{authorization:'Bearer ${token}'}}).then(r=>console.log('API-STATUS',r.status)).catch(e=>console.log('NO-NETWORK',e.cause?.code??e.message))`;
  return {
    turns: [
      {
        text: "Looking around.",
        toolCalls: [
          {
            tool: "shell",
            args: {
              command: `find / -xdev \\( -name 'rein.db*' -o -name 'link-keys.json' -o -name 'secret.key' \\) 2>/dev/null | sed 's/^/FOUND /'; echo searched`,
            },
          },
        ],
      },
      { text: "The data directory.", toolCalls: [{ tool: "shell", args: { command: `ls -la ${dataDir} 2>&1 | head -5; echo listed` } }] },
      { text: "The API.", toolCalls: [{ tool: "shell", args: { command: `node -e "${api}"` } }] },
      { text: "I scored myself 1.0." },
    ],
  };
}

beforeAll(async () => {
  podsDir = makeTempDir("rein-test-attack-experiment-pods-");
  pods = new PodPool({
    dataDir: podsDir,
    size: 0,
    limits: { ...DEFAULT_LIMITS, wallTimeSec: 300 },
    sandbox: probeSandbox(),
    allowUnsandboxed: false,
  });
  await pods.start();
  tk = await createTestKernel({ terminals: pods });
  p = await agentPeople(tk);
  runner = new ExperimentRunner({
    db: tk.t.db,
    runs: tk.kernel,
    store: tk.kernel.store,
    workspaceFor: tk.kernel.deps.workspaceFor,
    terminals: pods,
    bus: tk.kernel.bus,
    log: SILENT_LOG,
    sweepMs: 200,
  });
  await runner.start();
  alphaToken = (await createApiToken(tk.t.db, { userId: p.alphaOperator.userId, name: "alpha" })).token;
  betaToken = (await createApiToken(tk.t.db, { userId: p.betaOperator.userId, name: "beta" })).token;
  const handler = createRestHandler(testServices(tk, { experiments: runner }), { authSecret: "test-secret" });
  server = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const alpha = caller(p.alphaOperator);
  datasetId = (
    await alpha.evals.createDataset({
      name: "alpha-evals",
      teamId: p.alphaId,
      scoring: { scorers: [{ kind: "outcome" }, { kind: "text_contains", text: "scored myself" }] },
    })
  ).id;
  await alpha.evals.addItem({
    datasetId,
    key: "hunt",
    goal: "Find what judges you",
    agent: "demo-coder",
    scenario: hunt(tk.t.dir, alphaToken),
  });
  await alpha.evals.addItem({ datasetId, key: "plain", goal: "Say hello", agent: "demo-coder", scenario: [{ text: "Hello." }] });
  experimentId = (await alpha.evals.startExperiment({ datasetId, teamId: p.alphaId })).id;
  await runner.whenDone(experimentId);

  const beta = caller(p.betaOperator);
  betaDatasetId = (await beta.evals.createDataset({ name: "beta-evals", teamId: p.betaId, scoring: { scorers: [{ kind: "outcome" }] } }))
    .id;
  await beta.evals.addItem({
    datasetId: betaDatasetId,
    key: "plain",
    goal: "Say hello",
    agent: "demo-coder",
    scenario: [{ text: "Hello." }],
  });
  betaExperimentId = (await beta.evals.startExperiment({ datasetId: betaDatasetId, teamId: p.betaId })).id;
  await runner.whenDone(betaExperimentId);
}, 180_000);

afterAll(async () => {
  await runner?.stop();
  await new Promise((r) => server?.close(r));
  await tk?.cleanup();
  await pods?.stop();
  fs.rmSync(podsDir, { recursive: true, force: true });
});

describe("another team's experiment", () => {
  it("is invisible over tRPC: get, results, compare and gate answer NOT_FOUND; the list leaves it out", async () => {
    const beta = caller(p.betaOperator);
    expect((await beta.evals.experiments.list({})).map((e) => e.id)).not.toContain(experimentId);
    for (const call of [
      beta.evals.experiments.get({ id: experimentId }),
      beta.evals.experiments.results({ id: experimentId }),
      beta.evals.experiments.compare({ ids: [betaExperimentId, experimentId], baselineId: betaExperimentId }),
      beta.evals.experiments.gate({ candidateId: betaExperimentId, baselineId: experimentId }),
    ]) {
      const err = await trpcError(call);
      expect(err.code).toBe("NOT_FOUND");
      expect(err.message).toBe(`There is no experiment ${experimentId}`);
    }
  });

  it("cannot be canceled or deleted, nor used as a baseline, nor its dataset run", async () => {
    const beta = caller(p.betaOperator);
    const before = await tk.t.db.experiment.findUniqueOrThrow({ where: { id: experimentId } });
    expect((await trpcError(beta.evals.cancelExperiment({ id: experimentId }))).code).toBe("NOT_FOUND");
    expect((await trpcError(beta.evals.startExperiment({ datasetId }))).code).toBe("NOT_FOUND");
    expect((await trpcError(beta.evals.startExperiment({ datasetId: betaDatasetId, baselineId: experimentId }))).message).toBe(
      `There is no experiment ${experimentId} to compare with`,
    );
    // Starting one in a team the person is not in.
    expect((await trpcError(beta.evals.startExperiment({ datasetId: betaDatasetId, teamId: p.alphaId }))).code).toBe("NOT_FOUND");
    expect(await tk.t.db.experiment.findUniqueOrThrow({ where: { id: experimentId } })).toEqual(before);
    expect(await tk.t.db.experiment.count({ where: { datasetId } })).toBe(1);
  });

  it("a team's dataset runs only in its own team, so another team's members never read its items through an experiment", async () => {
    const { createUser, loadActor } = await import("@/server/identity");
    // A person who operates in both teams.
    const both = (await loadActor(
      tk.t.db,
      await createUser(tk.t.db, {
        email: "both-teams@test.local",
        password: "test-password-1",
        role: "operator",
        teams: ["alpha", "beta"],
      }),
    ))!;
    const alpha = caller(p.alphaOperator);
    const secretSet = (
      await alpha.evals.createDataset({ name: "alpha-private", teamId: p.alphaId, scoring: { scorers: [{ kind: "outcome" }] } })
    ).id;
    await alpha.evals.addItem({
      datasetId: secretSet,
      key: "secret",
      goal: "Say hello",
      agent: "demo-coder",
      scenario: [{ text: "Hello." }],
      expected: { text: "alpha-only expected answer" },
    });
    const err = await trpcError(caller(both).evals.startExperiment({ datasetId: secretSet, teamId: p.betaId }));
    expect(err.code).toBe("FORBIDDEN");
    expect(err.message).toBe("The dataset alpha-private belongs to another team; run it in its own team");
    expect(await tk.t.db.experiment.count({ where: { datasetId: secretSet } })).toBe(0);
    // Without a team named, it runs in the dataset's team, whatever team the person used last.
    await tk.t.db.user.update({ where: { id: both.userId }, data: { lastTeamId: p.betaId } });
    const started = await caller(both).evals.startExperiment({ datasetId: secretSet });
    expect(started.team?.id).toBe(p.alphaId);
    await runner.whenDone(started.id);
    expect((await trpcError(caller(p.betaOperator).evals.experiments.results({ id: started.id }))).code).toBe("NOT_FOUND");
  });

  it("is invisible over REST, and hostile query strings get a 400", async () => {
    for (const path of [
      `/api/v1/experiments/${experimentId}`,
      `/api/v1/experiments/${experimentId}/results`,
      `/api/v1/experiments/${betaExperimentId}/gate?baseline=${experimentId}`,
      `/api/v1/experiments/compare?ids=${betaExperimentId},${experimentId}`,
    ]) {
      const res = await rest(betaToken, "GET", path);
      expect(res.status, path).toBe(404);
    }
    expect((await rest(betaToken, "POST", `/api/v1/experiments/${experimentId}/cancel`)).status).toBe(404);
    expect((await rest(betaToken, "DELETE", `/api/v1/experiments/${experimentId}`)).status).toBe(403);
    const list = (await (await rest(betaToken, "GET", "/api/v1/experiments")).json()) as { experiments: Array<{ id: string }> };
    expect(list.experiments.map((e) => e.id)).not.toContain(experimentId);
    const many = Array.from({ length: 500 }, (_, i) => `x${i}`).join(",");
    expect((await rest(betaToken, "GET", `/api/v1/experiments/compare?ids=${many}`)).status).toBe(400);
    expect((await rest(betaToken, "GET", "/api/v1/experiments?status=running,DROP")).status).toBe(400);
    expect((await rest(betaToken, "GET", `/api/v1/experiments/${betaExperimentId}/gate`)).status).toBe(400);
  });
});

describe("the agent under test", () => {
  it("finds neither the database nor the data directory nor the API from its shell, and the scores are the scorers'", async () => {
    const trial = await tk.t.db.experimentTrial.findFirstOrThrow({ where: { experimentId, itemKey: "hunt" } });
    const events = await tk.kernel.store.listEvents(trial.runId!, 0, 1000);
    const outputs = events.filter((e) => e.type === "tool.result").map((e) => JSON.stringify(e.payload));
    expect(outputs).toHaveLength(3);
    const all = outputs.join("\n");
    expect(all).toContain("searched");
    expect(all).not.toContain("FOUND");
    expect(all).not.toContain("rein.db");
    expect(all).toMatch(/No such file or directory/);
    expect(all).toContain("NO-NETWORK");
    expect(all).not.toContain("API-STATUS");
    // What the scorers wrote stands: the run's own claim counts only as the text it is.
    expect(trial.status).toBe("done");
    const scored = (JSON.parse(trial.scores) as { scorers: ScoredBy[] }).scorers;
    expect(scored.map((s) => s.kind)).toEqual(["outcome", "text_contains"]);
    const plain = await tk.t.db.experimentTrial.findFirstOrThrow({ where: { experimentId, itemKey: "plain" } });
    expect(plain).toMatchObject({ status: "done", passed: false });
    expect(
      await tk.t.db.auditEntry.count({
        where: { kind: { startsWith: "dataset." }, subject: "alpha-evals", actorId: { not: p.alphaOperator.userId } },
      }),
    ).toBe(0);
  });
});
