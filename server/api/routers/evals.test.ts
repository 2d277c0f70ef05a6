// evals.* through createCaller on a real SQLite database: viewers read,
// operators change their team's datasets, admins archive; another team's
// dataset looks like none; problems reach the form by field (error.data.issues).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { agentPeople, type AgentPeople } from "@/test/helpers/agents";
import { trpcError } from "@/test/helpers/trpc";
import { SCORER_KINDS } from "@/server/evals";
import { createApiToken, type Actor } from "@/server/identity";
import { callerFor, testServices } from "@/test/helpers/services";
import { createTrpcHandler } from "../http";

let tk: TestKernel;
let p: AgentPeople;
let datasetId: string;

const caller = (actor: Actor | null) => callerFor(tk, actor);
const counts = async () => ({
  datasets: await tk.t.db.dataset.count(),
  items: await tk.t.db.datasetItem.count(),
  audit: await tk.t.db.auditEntry.count(),
});

beforeAll(async () => {
  tk = await createTestKernel();
  p = await agentPeople(tk);
  datasetId = (
    await caller(p.alphaOperator).evals.createDataset({
      name: "team-checks",
      teamId: p.alphaId,
      scoring: { scorers: [{ kind: "outcome" }] },
    })
  ).id;
}, 60_000);

afterAll(async () => tk?.cleanup());

describe("evals router", () => {
  it("operators add, edit and remove items; viewers read them, their history and the export", async () => {
    const op = caller(p.alphaOperator);
    expect(await op.evals.addItem({ datasetId, goal: "Write fizzbuzz", agent: "demo-coder" })).toMatchObject({ key: "item-1", version: 1 });
    expect(await op.evals.editItem({ datasetId, key: "item-1", goal: "Write fizzbuzz with tests" })).toMatchObject({ version: 2 });
    await op.evals.addItem({ datasetId, key: "gone", goal: "Remove me" });
    expect(await op.evals.removeItem({ datasetId, key: "gone" })).toEqual({ ok: true });
    const viewer = caller(p.alphaViewer);
    expect((await viewer.evals.datasets.list()).map((d) => d.name)).toEqual(expect.arrayContaining(["team-checks", "demo-coding"]));
    expect(await viewer.evals.datasets.get({ id: datasetId })).toMatchObject({ name: "team-checks", itemCount: 1 });
    expect((await viewer.evals.items({ datasetId })).map((i) => [i.key, i.version])).toEqual([["item-1", 2]]);
    expect((await viewer.evals.itemHistory({ datasetId, key: "item-1" })).map((i) => i.goal)).toEqual([
      "Write fizzbuzz with tests",
      "Write fizzbuzz",
    ]);
    const out = await viewer.evals.exportJsonl({ datasetId });
    expect(out).toEqual({
      filename: "team-checks.jsonl",
      jsonl: '{"key":"item-1","goal":"Write fizzbuzz with tests","agent":"demo-coder","expected":{}}\n',
    });
    expect(await op.evals.importJsonl({ datasetId, jsonl: out.jsonl.replace("with tests", "and commit") })).toEqual({
      added: 0,
      edited: 1,
      unchanged: 0,
    });
  });

  it("refuses viewers' changes, operators' archiving, and another team entirely; nothing changes", async () => {
    const before = await counts();
    const viewer = caller(p.alphaViewer);
    expect((await trpcError(viewer.evals.addItem({ datasetId, goal: "x" }))).code).toBe("FORBIDDEN");
    expect(
      (await trpcError(viewer.evals.createDataset({ name: "viewer-set", teamId: p.alphaId, scoring: { scorers: [{ kind: "outcome" }] } })))
        .code,
    ).toBe("FORBIDDEN");
    expect((await trpcError(caller(p.alphaOperator).evals.archiveDataset({ id: datasetId }))).code).toBe("FORBIDDEN");
    const beta = caller(p.betaOperator);
    for (const call of [
      beta.evals.datasets.get({ id: datasetId }),
      beta.evals.items({ datasetId }),
      beta.evals.exportJsonl({ datasetId }),
      beta.evals.addItem({ datasetId, goal: "x" }),
    ]) {
      expect((await trpcError(call)).code).toBe("NOT_FOUND");
    }
    expect(await counts()).toEqual(before);
    expect(await caller(p.admin).evals.archiveDataset({ id: datasetId })).toEqual({ ok: true });
    expect(await caller(p.admin).evals.unarchiveDataset({ id: datasetId })).toEqual({ ok: true });
  });

  it("adds an item from a finished run", async () => {
    const run = await caller(p.alphaOperator).runs.create({ goal: "Say hi", agent: "demo-coder", scenario: [{ text: "hi" }] });
    await tk.settle(run.id);
    const item = await caller(p.alphaOperator).evals.addFromRun({ datasetId, runId: run.id });
    expect(item).toMatchObject({ goal: "Say hi", sourceRunId: run.id, expected: { outcome: "succeeded", text: "hi" } });
  });

  it("lists the scorer kinds with their settings, for the scoring editor", async () => {
    const kinds = await caller(p.alphaViewer).evals.scorerKinds();
    expect(kinds.map((k) => k.kind)).toEqual(SCORER_KINDS);
    expect(kinds.find((k) => k.kind === "calls_at_most")?.settings).toEqual([{ name: "calls", required: true }]);
    expect(kinds.find((k) => k.kind === "text_contains")?.settings).toEqual([
      { name: "text", required: true },
      { name: "ignoreCase", required: false },
    ]);
    expect(kinds.find((k) => k.kind === "outcome")?.settings).toEqual([{ name: "equals", required: false }]);
    expect((await trpcError(caller(null).evals.scorerKinds())).code).toBe("UNAUTHORIZED");
  });

  it("previews the item a finished run becomes, then adds it with the key and expected outcome chosen", async () => {
    const op = caller(p.alphaOperator);
    const run = await op.runs.create({ goal: "Say bye", agent: "demo-coder", scenario: [{ text: "bye" }] });
    await tk.settle(run.id);
    const preview = await op.evals.previewFromRun({ runId: run.id });
    expect(preview).toEqual({
      runId: run.id,
      goal: "Say bye",
      agent: "demo-coder",
      scenarioTurns: 1,
      expected: { outcome: "succeeded", text: "bye" },
    });
    const before = await counts();
    const bad = await trpcError(op.evals.addFromRun({ datasetId, runId: run.id, key: "no spaces", expected: ["succeeded"] }));
    expect(bad.code).toBe("BAD_REQUEST");
    expect(bad.message).toContain("key is 1 to 64 letters");
    expect(bad.message).toContain("expected is an object");
    const scorer = await trpcError(op.evals.addFromRun({ datasetId, runId: run.id, expected: { scorers: [{ kind: "calls_at_most" }] } }));
    expect(scorer.message).toContain("expected.scorers 1: calls is the most model calls the run may make");
    expect(await counts()).toEqual(before);
    const item = await op.evals.addFromRun({
      datasetId,
      runId: run.id,
      key: "say-bye",
      expected: { outcome: "succeeded", notes: "short" },
    });
    expect(item).toMatchObject({
      key: "say-bye",
      version: 1,
      goal: "Say bye",
      sourceRunId: run.id,
      expected: { outcome: "succeeded", notes: "short" },
    });
    expect((await trpcError(op.evals.addFromRun({ datasetId, runId: run.id, key: "say-bye" }))).code).toBe("CONFLICT");
    // Another team's run looks like none, in the preview as in the add.
    expect((await trpcError(caller(p.betaOperator).evals.previewFromRun({ runId: run.id }))).code).toBe("NOT_FOUND");
    expect((await trpcError(caller(p.alphaViewer).evals.previewFromRun({ runId: run.id }))).code).toBe("FORBIDDEN");
  });

  it("over HTTP, a dataset's and a JSONL file's problems reach the form by field", async () => {
    const token = (await createApiToken(tk.t.db, { userId: p.alphaOperator.userId, name: "t" })).token;
    const handler = createTrpcHandler(testServices(tk), { authSecret: "test-secret" });
    const server = http.createServer((req, res) => void handler(req, res));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const post = async (path: string, json: unknown) =>
        (
          await fetch(`${base}/api/trpc/${path}`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify({ json }),
          })
        ).json();
      const bad = await post("evals.createDataset", { name: "ok-name", teamId: p.alphaId, scoring: { scorers: [{ kind: "nope" }] } });
      expect(bad.error.json.data.code).toBe("BAD_REQUEST");
      expect(bad.error.json.data.issues).toEqual([
        { path: "scoring", message: expect.stringContaining('scorer 1 (nope): there is no scorer kind "nope"') },
      ]);
      const file = await post("evals.importJsonl", { datasetId, jsonl: '{"goal":"fine"}\n{"agent":"demo-coder"}\n' });
      expect(file.error.json.data.issues).toEqual([{ path: "line 2", message: "line 2: goal is required" }]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
