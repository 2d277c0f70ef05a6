// Judging real runs: loadScoringInput with the kernel's router gives judge
// scorers the run's goal, the model that wrote its final text, its team and
// the item's expected text, and the judge is of another family than that
// model (a configured one, or the scripted model).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRun } from "@/server/kernel";
import { startFakeOpenAI, type FakeServer } from "@/server/models";
import { PriceBook } from "@/server/telemetry";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { messagesOf, says } from "@/test/helpers/judges";
import { loadScoringInput, score } from "./index";

let tk: TestKernel;
let agentServer: FakeServer;
let judgeServer: FakeServer;

beforeAll(async () => {
  tk = await createTestKernel({ models: true });
  agentServer = await startFakeOpenAI({ models: ["m1"] });
  judgeServer = await startFakeOpenAI({ models: ["j1"] });
  const admin = { userId: tk.users.admin, name: "admin" };
  const m = tk.models!.admin;
  await m.createProvider({ name: "agentp", kind: "openai-compatible", baseUrl: agentServer.baseUrl }, admin);
  await m.createProvider({ name: "judgep", kind: "openai-compatible", baseUrl: judgeServer.baseUrl }, admin);
  await m.saveModel({ provider: "agentp", modelId: "m1", family: "alpha" }, admin);
  await m.saveModel({ provider: "judgep", modelId: "j1", family: "beta" }, admin);
}, 60_000);
afterEach(() => {
  agentServer.reset();
  judgeServer.reset();
});
afterAll(async () => {
  await tk?.cleanup();
  await agentServer?.close();
  await judgeServer?.close();
});

async function finished(input: Parameters<typeof createRun>[1]) {
  const run = await createRun(tk.kernel, input, tk.actors.operator);
  expect(await tk.settle(run.id)).toBe("succeeded");
  return run.id;
}

describe("judging a finished run", () => {
  it("a run on a configured model is judged by a model of another family, with the run's goal and the item's expected text", async () => {
    agentServer.enqueue(says("The capital of France is Paris."));
    const runId = await finished({ goal: "Name the capital of France", agent: "demo-coder", model: "agentp/m1" });
    expect(agentServer.requests).toHaveLength(1);
    agentServer.reset();
    const prices = new PriceBook();
    prices.set("judgep/j1", { inputPerMTok: 2, outputPerMTok: 4, cacheReadPerMTok: 0, cacheWritePerMTok: 0 });
    const { input, release } = await loadScoringInput({ ...tk.kernel.deps, db: tk.t.db, router: tk.models!.router, prices }, runId, {
      expected: { text: "Paris" },
    });
    try {
      expect(input).toMatchObject({
        goal: "Name the capital of France",
        finalText: "The capital of France is Paris.",
        agentModel: "agentp/m1",
        expected: { text: "Paris" },
      });
      expect(input.judge?.agentFamily).toBe("alpha");
      judgeServer.enqueue(says('{"score": 1, "reason": "Paris is right."}'));
      expect(await score(input, { kind: "judge", rubric: "The answer names the right city." })).toEqual({
        score: 1,
        passed: true,
        detail: "the judge (judgep · j1) scored 1.00, at or over 0.5: Paris is right.",
        costUsd: (1_000 * 2 + 50 * 4) / 1e6,
        model: "judgep/j1",
      });
      expect(agentServer.requests).toHaveLength(0);
      const { user } = messagesOf(judgeServer.lastRequest().body);
      expect(judgeServer.lastRequest().body.model).toBe("j1");
      expect(user).toContain("Name the capital of France");
      expect(user).toContain("\nParis\n");
    } finally {
      release();
    }
  });

  it("a scripted run is judged by a configured model; without a router or an expected text, judges are skipped", async () => {
    const runId = await finished({ goal: "Say hello", agent: "demo-coder", scenario: { turns: [{ text: "Hello!" }] } });
    const { input, release } = await loadScoringInput({ ...tk.kernel.deps, db: tk.t.db, router: tk.models!.router }, runId, {
      expected: { text: "Hello there." },
    });
    try {
      expect(input).toMatchObject({ agentModel: "scripted/run-scenario", finalText: "Hello!" });
      expect(input.judge?.agentFamily).toBe("scripted");
      agentServer.enqueue(says('{"winner": "tie"}'), says('{"winner": "tie"}'));
      const r = await score(input, { kind: "judge_pairwise", rubric: "A friendly greeting." });
      expect(r).toMatchObject({ score: 0.5, passed: true, model: "agentp/m1" });
      // The judge has no price: its cost is not made up.
      expect(r).not.toHaveProperty("costUsd");
      expect(agentServer.requests.map((q) => q.body.model)).toEqual(["m1", "m1"]);
    } finally {
      release();
    }
    const bare = await loadScoringInput({ db: tk.t.db, store: tk.kernel.store, workspaceFor: tk.kernel.deps.workspaceFor }, runId);
    try {
      expect(bare.input.judge).toBeUndefined();
      expect(await score(bare.input, { kind: "judge", rubric: "x" })).toMatchObject({
        skipped: true,
        reason: expect.stringContaining("no model router"),
      });
      expect(await score(bare.input, { kind: "judge_pairwise", rubric: "x" })).toMatchObject({
        skipped: true,
        reason: expect.stringContaining("no expected text"),
      });
    } finally {
      bare.release();
    }
  });
});
