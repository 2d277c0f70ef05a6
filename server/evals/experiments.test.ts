// Experiments end to end on a real SQLite database with the default kernel:
// the built-in demo dataset's items run as real runs (terminal pods for their
// shells and for the command scorers), are scored, and summed up; a second
// version of an agent that breaks items regresses in Compare and fails the
// gate; starting refuses bad input with every problem; a trial whose run was
// never written gets that same run; cancel stops what has not finished.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentDepsOf, createAgent, saveAgent } from "@/server/agents";
import { DEFAULT_LIMITS, PodPool, probeSandbox } from "@/server/compute";
import { createTestKernel, SILENT_LOG, type TestKernel } from "@/test/helpers/kernel";
import { makeTempDir } from "@/test/helpers/db";
import {
  DEMO_DATASET,
  REGRESSION_DEMO_AGENT,
  DatasetError,
  ExperimentRunner,
  addItem,
  cancelExperiment,
  checkGate,
  compareExperiments,
  createDataset,
  experimentResults,
  getExperiment,
  listExperiments,
  startExperiment,
  type DatasetActor,
} from "./index";

const sandbox = probeSandbox();

let tk: TestKernel;
let pods: PodPool;
let podsDir: string;
let runner: ExperimentRunner;
let demoId: string;
let teamId: string;
const as = (actor: TestKernel["actors"]["operator"]): DatasetActor => ({ actor, channel: "admin" });
const deps = () => ({ db: tk.t.db, specs: tk.kernel.specs, wake: (id: string) => runner.wake(id) });

async function refusal(p: Promise<unknown>): Promise<DatasetError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DatasetError);
  return err as DatasetError;
}

async function finished(id: string) {
  await runner.whenDone(id);
  return getExperiment(tk.t.db, tk.actors.operator, id);
}

beforeAll(async () => {
  podsDir = makeTempDir("rein-test-experiment-pods-");
  pods = new PodPool({ dataDir: podsDir, size: 0, limits: { ...DEFAULT_LIMITS, wallTimeSec: 300 }, sandbox, allowUnsandboxed: true });
  await pods.start();
  tk = await createTestKernel({ terminals: pods, telemetry: true });
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
  demoId = (await tk.t.db.dataset.findUniqueOrThrow({ where: { name: DEMO_DATASET } })).id;
  teamId = tk.actors.operator.teamIds[0];
}, 60_000);

afterAll(async () => {
  await runner?.stop();
  await tk?.cleanup();
  await pods?.stop();
  fs.rmSync(podsDir, { recursive: true, force: true });
});

describe("starting an experiment", () => {
  it("refuses bad settings with every problem, and writes nothing", async () => {
    const before = await tk.t.db.experiment.count();
    const bad = await refusal(
      startExperiment(deps(), as(tk.actors.operator), { datasetId: demoId, epochs: 0, concurrency: 99, colour: "red" }),
    );
    expect(bad.code).toBe("INVALID_INPUT");
    expect(bad.problems.map((p) => p.message).join("; ")).toMatch(
      /epochs is at least 1.*concurrency is at most 8|concurrency is at most 8.*epochs is at least 1/,
    );
    expect(bad.message).toContain('an experiment has no setting "colour"');
    expect((await refusal(startExperiment(deps(), as(tk.actors.operator), { datasetId: demoId, agentVersion: 2 }))).message).toContain(
      "agentVersion needs agent",
    );
    expect(
      (await refusal(startExperiment(deps(), as(tk.actors.operator), { datasetId: demoId, agent: "no-such-agent" }))).message,
    ).toContain('Unknown agent "no-such-agent"');
    expect(
      (await refusal(startExperiment(deps(), as(tk.actors.operator), { datasetId: demoId, agent: "demo-coder", agentVersion: 9 }))).message,
    ).toBe("The agent demo-coder has no version 9");
    expect((await refusal(startExperiment(deps(), as(tk.actors.operator), { datasetId: "nope" }))).code).toBe("NOT_FOUND");
    expect(await tk.t.db.experiment.count()).toBe(before);
  });

  it("refuses a team's agent in another team's experiment before writing anything", async () => {
    const { createUser, loadActor } = await import("@/server/identity");
    const both = (await loadActor(
      tk.t.db,
      await createUser(tk.t.db, {
        email: "both-teams@test.local",
        password: "test-password-1",
        role: "operator",
        teams: ["default", "side"],
      }),
    ))!;
    const side = both.teamIds.find((t) => t !== teamId)!;
    await createAgent(
      agentDepsOf(tk.kernel),
      { actor: both, channel: "admin" },
      { name: "side-coder", instructions: "Code.", model: "scripted/demo-coder", tools: ["write_file"], teamId: side },
    );
    const before = await tk.t.db.experiment.count();
    const err = await refusal(startExperiment(deps(), as(both), { datasetId: demoId, agent: "side-coder", teamId }));
    expect(err.code).toBe("FORBIDDEN");
    expect(err.message).toContain("The agent side-coder belongs to another team");
    expect(await tk.t.db.experiment.count()).toBe(before);
  });

  it("refuses a dataset with no items, and items with no agent when the experiment names none", async () => {
    const empty = await createDataset(tk.t.db, as(tk.actors.operator), {
      name: "empty-set",
      teamId,
      scoring: { scorers: [{ kind: "outcome" }] },
    });
    expect((await refusal(startExperiment(deps(), as(tk.actors.operator), { datasetId: empty.id }))).message).toBe(
      "The dataset empty-set has no items yet; add some first",
    );
    await addItem(tk.t.db, as(tk.actors.operator), empty.id, { key: "plain", goal: "Say hello" });
    expect((await refusal(startExperiment(deps(), as(tk.actors.operator), { datasetId: empty.id }))).message).toBe(
      "Item plain names no agent; name the agent to run them with",
    );
  });
});

describe("the demo dataset as an experiment", () => {
  let experimentId: string;

  beforeAll(async () => {
    const started = await startExperiment(deps(), as(tk.actors.operator), { datasetId: demoId, concurrency: 3 });
    expect(started.status).toMatch(/queued|running/);
    expect(started.progress.total).toBe(6);
    experimentId = started.id;
    expect((await finished(experimentId)).status).toBe("succeeded");
  }, 240_000);

  it("ran every item once as a real run of its own agent, counted under eval:demo-coding", async () => {
    const trials = await tk.t.db.experimentTrial.findMany({ where: { experimentId } });
    expect(trials.map((t) => t.status)).toEqual(Array(6).fill("done"));
    const runs = await tk.t.db.run.findMany({
      where: { experimentId },
      select: { id: true, agentName: true, workflow: true, status: true, costUsd: true },
    });
    expect(runs).toHaveLength(6);
    expect(new Set(runs.map((r) => r.id))).toEqual(new Set(trials.map((t) => t.runId)));
    expect(runs.every((r) => r.workflow === "eval:demo-coding")).toBe(true);
    expect(new Set(runs.map((r) => r.agentName))).toEqual(new Set(["demo-coder", "demo-team", "demo-specialist"]));
    // Spans of the item runs carry the experiment's workflow.
    await tk.telemetry!.sink.flush();
    const spans = await tk.t.db.span.findMany({ where: { runId: { in: runs.map((r) => r.id) } }, select: { workflowId: true } });
    expect(spans.length).toBeGreaterThan(runs.length);
    expect(spans.every((s) => s.workflowId === "eval:demo-coding")).toBe(true);
  });

  it("scores each item: the one that fails on purpose fails, the others pass", async () => {
    const results = await experimentResults(tk.t.db, tk.actors.viewer, experimentId);
    const byKey = Object.fromEntries(results.items.map((i) => [i.key, i]));
    expect(byKey["fizzbuzz-readme"].passed).toBe(false);
    expect(byKey["fizzbuzz-readme"].epochs[0].detail).toContain("required scorers did not pass: file_exists");
    for (const key of ["fizzbuzz", "fizzbuzz-export", "slugify-team", "greet-specialist", "note-scenario"])
      expect(byKey[key].passed, key).toBe(true);
    // The command scorer ran the demo's tests in the final workspace (in a sandbox) and they passed.
    const command = byKey.fizzbuzz.epochs[0].scorers.find((s) => s.kind === "command")!;
    expect(command.result).toMatchObject({ passed: true });
    expect(results.passRate).toBeCloseTo(5 / 6);
    expect(results.passAtK[1]).toBeCloseTo(5 / 6);
    expect(results.score!.low).toBeLessThanOrEqual(results.score!.mean);
    expect(results.score!.high).toBeGreaterThanOrEqual(results.score!.mean);
    expect(results.scorers.find((s) => s.kind === "outcome")).toMatchObject({ scored: 6, passed: 6 });
    const experiment = await getExperiment(tk.t.db, tk.actors.viewer, experimentId);
    expect(experiment.progress).toMatchObject({ total: 6, done: 6, passed: 5, pending: 0, running: 0 });
    expect(experiment.statusReason).toBe("5 of 6 trials passed");
  });

  it("is seen by its team and not by another team's operator", async () => {
    expect((await listExperiments(tk.t.db, tk.actors.viewer)).map((e) => e.id)).toContain(experimentId);
    const { createUser, loadActor } = await import("@/server/identity");
    const outsider = (await loadActor(
      tk.t.db,
      await createUser(tk.t.db, { email: "outsider@test.local", password: "test-password-1", role: "operator", teams: ["elsewhere"] }),
    ))!;
    expect((await listExperiments(tk.t.db, outsider)).map((e) => e.id)).not.toContain(experimentId);
    expect((await refusal(experimentResults(tk.t.db, outsider, experimentId))).code).toBe("NOT_FOUND");
  });
});

describe("the regression demo, as docs/evals.md tells it", () => {
  // docs/evals.md#compare-and-the-gate: version 1 fails only the item that fails on purpose; version 2's call cap breaks
  // the items demo-coder needs more calls for, and Compare says it is significantly worse.
  let v1: string;
  let v2: string;

  beforeAll(async () => {
    const start = (agentVersion: number) =>
      startExperiment(deps(), as(tk.actors.operator), { datasetId: demoId, agent: REGRESSION_DEMO_AGENT, agentVersion, concurrency: 3 });
    v1 = (await start(1)).id;
    v2 = (await start(2)).id;
    for (const id of [v1, v2]) expect((await finished(id)).status).toBe("succeeded");
  }, 240_000);

  const failing = async (id: string) =>
    (await experimentResults(tk.t.db, tk.actors.viewer, id)).items
      .filter((i) => !i.passed)
      .map((i) => i.key)
      .sort();

  it("version 1 fails one item of six, fizzbuzz-readme, as the dataset says", async () => {
    expect(await failing(v1)).toEqual(["fizzbuzz-readme"]);
    expect((await getExperiment(tk.t.db, tk.actors.viewer, v1)).statusReason).toBe("5 of 6 trials passed");
  });

  it("version 2 fails the items that need more calls than its cap, and the scenario items still pass", async () => {
    expect(await failing(v2)).toEqual(["fizzbuzz", "fizzbuzz-export", "fizzbuzz-readme", "slugify-team"]);
  });

  it("Compare takes the older experiment as the baseline and gives one verdict: significantly worse", async () => {
    const c = await compareExperiments(tk.t.db, tk.actors.viewer, [v2, v1]);
    expect(c.baseline).toMatchObject({ experimentId: v1, label: "v1", chosen: false });
    const cand = c.candidates[0];
    expect(cand).toMatchObject({ experimentId: v2, label: "v2" });
    expect(
      cand.items
        .filter((i) => i.change === "regressed")
        .map((i) => i.key)
        .sort(),
    ).toEqual(["fizzbuzz", "fizzbuzz-export", "slugify-team"]);
    expect(cand.verdict).toMatchObject({ kind: "worse", significant: true, items: 6 });
    // The sentence docs/evals.md quotes.
    expect(cand.verdict.sentence).toBe(
      "v2 scores 0.71 against 0.95 for v1 (−0.23, 95% interval −0.37 to −0.10): significantly worse with 6 items",
    );
    // Chosen by the person, the newer one is the baseline.
    const turned = await compareExperiments(tk.t.db, tk.actors.viewer, [v2, v1], v2);
    expect(turned.baseline).toMatchObject({ experimentId: v2, chosen: true });
    expect(turned.candidates[0].verdict.kind).toBe("better");
  });
});

describe("a regression", () => {
  let baselineId: string;
  let sameId: string;
  let regressedId: string;

  beforeAll(async () => {
    const agents = agentDepsOf(tk.kernel);
    const who = { actor: tk.actors.operator, channel: "admin" };
    const spec = {
      name: "gate-coder",
      instructions: "Write small modules with tests.",
      model: "scripted/demo-coder",
      tools: ["read_file", "write_file", "list_files", "shell", "update_tasks"],
      teamId,
    };
    await createAgent(agents, who, spec);
    // Version 2 lowers the call cap below what demo-coder's work takes: its runs stop at the limit.
    await saveAgent(agents, who, {
      name: "gate-coder",
      spec: { ...spec, guardrails: { callCap: 3 } },
      changeNote: "Fewer model calls to save cost",
    });
    const set = await createDataset(tk.t.db, as(tk.actors.operator), {
      name: "gate-set",
      teamId,
      scoring: { scorers: [{ kind: "outcome", required: true }], threshold: 1 },
    });
    for (const key of ["one", "two", "three", "four", "five", "six"])
      await addItem(tk.t.db, as(tk.actors.operator), set.id, { key, goal: `Write fizzbuzz with tests (${key})` });
    const start = (agentVersion: number) =>
      startExperiment(deps(), as(tk.actors.operator), { datasetId: set.id, agent: "gate-coder", agentVersion, concurrency: 4 });
    baselineId = (await start(1)).id;
    sameId = (await start(1)).id;
    regressedId = (await start(2)).id;
    for (const id of [baselineId, sameId, regressedId]) expect((await finished(id)).status).toBe("succeeded");
  }, 240_000);

  it("Compare shows every item regressed, first, with the tool sequences and a significant McNemar test", async () => {
    const c = await compareExperiments(tk.t.db, tk.actors.viewer, [baselineId, regressedId], baselineId);
    const cand = c.candidates[0];
    expect(cand.items.map((i) => i.change)).toEqual(Array(6).fill("regressed"));
    expect(cand.outcomes).toMatchObject({ regressed: 6, improved: 0, significantlyWorse: true });
    expect(cand.outcomes.pValue).toBeCloseTo(0.03125, 6);
    const item = cand.items[0];
    expect(item.baseline!.toolSequence.length).toBeGreaterThan(item.candidate!.toolSequence.length);
    expect(item.scoreDelta).toBeLessThan(0);
  });

  it("the gate passes against the same version and fails against version 2, naming the regressed items", async () => {
    const same = await checkGate(tk.t.db, tk.actors.viewer, sameId, baselineId);
    expect(same).toMatchObject({ passed: true, reasons: [], regressed: [] });
    const worse = await checkGate(tk.t.db, tk.actors.viewer, regressedId, baselineId);
    expect(worse.passed).toBe(false);
    expect(worse.regressed.map((r) => r.key).sort()).toEqual(["five", "four", "one", "six", "three", "two"]);
    expect(worse.reasons.join("\n")).toMatch(/6 items regressed against 0 improved/);
    expect(worse.reasons.join("\n")).toMatch(/under the dataset's threshold 1/);
  });

  it("refuses to compare experiments of two datasets, or an unfinished one in the gate", async () => {
    const demo = (await listExperiments(tk.t.db, tk.actors.operator, { datasetId: demoId }))[0];
    expect((await refusal(compareExperiments(tk.t.db, tk.actors.viewer, [baselineId, demo.id], baselineId))).message).toContain(
      "ran another dataset than the baseline",
    );
    expect((await refusal(checkGate(tk.t.db, tk.actors.viewer, baselineId, baselineId))).message).toContain("name a different baseline");
  });
});

describe("recovery and cancel", () => {
  it("a trial claimed with a run id whose run was never written gets that very run", async () => {
    const set = await createDataset(tk.t.db, as(tk.actors.operator), {
      name: "recover-set",
      teamId,
      scoring: { scorers: [{ kind: "outcome" }] },
    });
    await addItem(tk.t.db, as(tk.actors.operator), set.id, {
      key: "hello",
      goal: "Say hello",
      agent: "demo-coder",
      scenario: [{ text: "Hello." }],
    });
    await runner.stop();
    const started = await startExperiment({ db: tk.t.db, specs: tk.kernel.specs }, as(tk.actors.operator), { datasetId: set.id });
    // As if the server died right after the claim: the trial names a run that does not exist.
    const runId = "crecoveredrun000000000000";
    await tk.t.db.experiment.update({ where: { id: started.id }, data: { status: "running" } });
    await tk.t.db.experimentTrial.updateMany({ where: { experimentId: started.id }, data: { status: "running", runId } });
    await runner.start();
    expect((await finished(started.id)).status).toBe("succeeded");
    expect(await tk.t.db.run.count({ where: { experimentId: started.id } })).toBe(1);
    expect((await tk.t.db.run.findUnique({ where: { id: runId } }))?.experimentId).toBe(started.id);
    expect((await tk.t.db.experimentTrial.findFirstOrThrow({ where: { experimentId: started.id } })).status).toBe("done");
  });

  it("cancel stops pending trials and cancels running runs; a second cancel is a conflict", async () => {
    const set = await createDataset(tk.t.db, as(tk.actors.operator), {
      name: "cancel-set",
      teamId,
      scoring: { scorers: [{ kind: "outcome" }] },
    });
    for (let i = 0; i < 4; i++)
      await addItem(tk.t.db, as(tk.actors.operator), set.id, { goal: `Write fizzbuzz (${i})`, agent: "demo-coder" });
    await runner.stop();
    const started = await startExperiment({ db: tk.t.db, specs: tk.kernel.specs }, as(tk.actors.operator), {
      datasetId: set.id,
      concurrency: 1,
    });
    const cancelled = await cancelExperiment(
      { db: tk.t.db, cancelRun: (id, a) => tk.kernel.pool.cancel(id, { id: a.userId, name: a.name }) },
      as(tk.actors.operator),
      started.id,
    );
    expect(cancelled.status).toBe("canceled");
    expect(cancelled.progress).toMatchObject({ total: 4, canceled: 4 });
    await runner.start();
    await runner.whenDone(started.id);
    expect(await tk.t.db.run.count({ where: { experimentId: started.id } })).toBe(0);
    expect((await refusal(cancelExperiment({ db: tk.t.db }, as(tk.actors.operator), started.id))).code).toBe("CONFLICT");
    expect((await refusal(cancelExperiment({ db: tk.t.db }, as(tk.actors.viewer), started.id))).code).toBe("FORBIDDEN");
  });

  it("a cancel that lands while a trial's run is being created still cancels that run", async () => {
    const set = await createDataset(tk.t.db, as(tk.actors.operator), {
      name: "cancel-race-set",
      teamId,
      scoring: { scorers: [{ kind: "outcome" }] },
    });
    await addItem(tk.t.db, as(tk.actors.operator), set.id, {
      key: "hello",
      goal: "Say hello",
      agent: "demo-coder",
      scenario: [{ text: "Hello." }],
    });
    await runner.stop();
    const cancelRun = (id: string, a: { userId: string; name: string }) => tk.kernel.pool.cancel(id, { id: a.userId, name: a.name });
    let experimentId = "";
    let canceledMidway = false;
    // The cancel arrives after the trial was claimed with its run id and before createRun writes that run.
    const specs = Object.create(tk.kernel.specs) as typeof tk.kernel.specs;
    specs.get = async (name, version) => {
      if (experimentId && !canceledMidway) {
        canceledMidway = true;
        await cancelExperiment({ db: tk.t.db, cancelRun }, as(tk.actors.operator), experimentId);
      }
      return tk.kernel.specs.get(name, version);
    };
    const racing = new ExperimentRunner({
      db: tk.t.db,
      runs: { db: tk.t.db, store: tk.kernel.store, router: tk.kernel.router, specs, enqueue: (id) => tk.kernel.enqueue(id) },
      store: tk.kernel.store,
      workspaceFor: tk.kernel.deps.workspaceFor,
      bus: tk.kernel.bus,
      cancelRun: (id) => tk.kernel.pool.cancel(id, { id: tk.actors.operator.userId, name: "test" }),
      log: SILENT_LOG,
      sweepMs: 60_000,
    });
    const started = await startExperiment({ db: tk.t.db, specs: tk.kernel.specs }, as(tk.actors.operator), { datasetId: set.id });
    experimentId = started.id;
    await racing.start();
    await racing.whenDone(experimentId);
    await racing.stop();
    expect(canceledMidway).toBe(true);
    const trial = await tk.t.db.experimentTrial.findFirstOrThrow({ where: { experimentId } });
    expect(trial.status).toBe("canceled");
    const ended = async () => (await tk.t.db.run.findUniqueOrThrow({ where: { id: trial.runId! }, select: { status: true } })).status;
    for (let i = 0; i < 100 && !["succeeded", "failed", "canceled"].includes(await ended()); i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(await ended()).toBe("canceled");
    await runner.start();
  });
});
