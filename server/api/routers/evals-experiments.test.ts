// Experiments over tRPC as the browser calls them (HTTP, with the server's
// own ExperimentRunner handed to the handler as server.ts does): starting one
// tells the runner, which the handler passes on as a plain function;
// problems reach the form by field; operators cancel, admins delete.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExperimentRunner } from "@/server/evals";
import { createApiToken, type Actor } from "@/server/identity";
import { createTestKernel, SILENT_LOG, type TestKernel } from "@/test/helpers/kernel";
import { agentPeople, type AgentPeople } from "@/test/helpers/agents";
import { createTrpcHandler } from "../http";
import { testServices } from "@/test/helpers/services";

let tk: TestKernel;
let p: AgentPeople;
let runner: ExperimentRunner;
let server: http.Server;
let base: string;
let datasetId: string;
const tokens = new Map<Actor, string>();

async function post(as: Actor, procedure: string, json: unknown) {
  const res = await fetch(`${base}/api/trpc/${procedure}`, {
    method: "POST",
    headers: { authorization: `Bearer ${tokens.get(as)}`, "content-type": "application/json" },
    body: JSON.stringify({ json }),
  });
  return (await res.json()) as {
    result?: { data: { json: any } };
    error?: { json: { message: string; data: { code: string; issues?: unknown } } };
  };
}

beforeAll(async () => {
  tk = await createTestKernel();
  p = await agentPeople(tk);
  for (const actor of [p.alphaOperator, p.alphaViewer, p.admin])
    tokens.set(actor, (await createApiToken(tk.t.db, { userId: actor.userId, name: "trpc" })).token);
  runner = new ExperimentRunner({
    db: tk.t.db,
    runs: tk.kernel,
    store: tk.kernel.store,
    workspaceFor: tk.kernel.deps.workspaceFor,
    log: SILENT_LOG,
  });
  // Stopped, so what is started here stays queued; being told about it must still work.
  await runner.stop();
  const handler = createTrpcHandler(testServices(tk, { experiments: runner }), { authSecret: "test-secret" });
  server = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  datasetId = (
    await post(p.alphaOperator, "evals.createDataset", {
      name: "http-experiments",
      teamId: p.alphaId,
      scoring: { scorers: [{ kind: "outcome" }] },
    })
  ).result!.data.json.id;
  await post(p.alphaOperator, "evals.addItem", { datasetId, key: "fizz", goal: "Write fizzbuzz", agent: "demo-coder" });
}, 60_000);

afterAll(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await tk?.cleanup();
});

describe("experiments over tRPC", () => {
  it("an operator starts one and the runner is told; the operator cancels it, an admin deletes it", async () => {
    const started = await post(p.alphaOperator, "evals.startExperiment", { datasetId, epochs: 2 });
    expect(started.error?.json.message).toBeUndefined();
    const experiment = started.result!.data.json;
    expect(experiment).toMatchObject({
      status: "queued",
      agent: null,
      epochs: 2,
      team: { id: p.alphaId },
      progress: { total: 2, pending: 2 },
    });
    expect((await post(p.alphaOperator, "evals.cancelExperiment", { id: experiment.id })).result!.data.json.status).toBe("canceled");
    expect((await post(p.alphaOperator, "evals.deleteExperiment", { id: experiment.id })).error!.json.data.code).toBe("FORBIDDEN");
    expect((await post(p.admin, "evals.deleteExperiment", { id: experiment.id })).result!.data.json).toEqual({ ok: true });
  });

  it("refuses a viewer, and bad settings by field, writing nothing", async () => {
    const before = await tk.t.db.experiment.count();
    expect((await post(p.alphaViewer, "evals.startExperiment", { datasetId })).error!.json.data.code).toBe("FORBIDDEN");
    const bad = await post(p.alphaOperator, "evals.startExperiment", { datasetId, epochs: 11, concurrency: 0 });
    expect(bad.error!.json.data.code).toBe("BAD_REQUEST");
    expect(bad.error!.json.data.issues).toEqual([
      { path: "epochs", message: "epochs is at most 10" },
      { path: "concurrency", message: "concurrency is at least 1" },
    ]);
    expect(await tk.t.db.experiment.count()).toBe(before);
  });
});
