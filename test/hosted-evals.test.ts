// Evals across agents (docs/hosted-agents.md#evals-and-compare): one dataset
// run with a Rein agent and with a hosted agent, each trial a real run, and
// Compare shows both with their pass rates and costs. The item's scenario has
// a variant for the hosted agent's own tools, so both play the same task.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, PodPool, probeSandbox } from "@/server/compute";
import {
  ExperimentRunner,
  addItem,
  compareExperiments,
  createDataset,
  experimentResults,
  startExperiment,
  type DatasetActor,
} from "@/server/evals";
import { DEMO_HOSTED_AGENT } from "@/server/kernel";
import type { Scenario } from "@/server/models";
import { SILENT_LOG, type TestKernel } from "@/test/helpers/kernel";
import { hostedKernel, type HostedKernel } from "@/test/helpers/hosted";

const NOTE = "hello from either agent\n";
const SCENARIO: Scenario = {
  turns: [
    { text: "Writing the note.", toolCalls: [{ tool: "write_file", args: { path: "notes/hello.txt", content: NOTE } }] },
    { text: "Checking it.", toolCalls: [{ tool: "shell", args: { command: "cat notes/hello.txt" } }] },
    { text: "Done: notes/hello.txt is written." },
  ],
  // Played by a hosted agent whose own tools are these (Rein's test agent).
  variants: [
    {
      tools: ["write_file", "run_command"],
      turns: [
        { text: "Writing the note.", toolCalls: [{ tool: "write_file", args: { path: "/workspace/notes/hello.txt", content: NOTE } }] },
        { text: "Checking it.", toolCalls: [{ tool: "run_command", args: { command: "cat notes/hello.txt" } }] },
        { text: "Done: notes/hello.txt is written." },
      ],
    },
  ],
};

let hk: HostedKernel;
let tk: TestKernel;
let runner: ExperimentRunner;
const as = (actor: TestKernel["actors"]["operator"]): DatasetActor => ({ actor, channel: "admin" });

beforeAll(async () => {
  hk = await hostedKernel();
  tk = hk.tk;
  runner = new ExperimentRunner({
    db: tk.t.db,
    runs: tk.kernel,
    store: tk.kernel.store,
    workspaceFor: tk.kernel.deps.workspaceFor,
    terminals: hk.pods,
    bus: tk.kernel.bus,
    log: SILENT_LOG,
    sweepMs: 200,
  });
  await runner.start();
  // Both agents' calls cost something, so Compare has costs to show.
  await tk.t.db.modelPrice.create({ data: { model: "scripted/run-scenario", inputPerMTok: 1, outputPerMTok: 2 } });
  await tk.telemetry!.telemetry.loadPrices();
}, 60_000);

afterAll(async () => {
  await runner?.stop();
  await hk?.cleanup();
});

describe("a dataset run with a Rein agent and with a hosted agent", () => {
  it("runs each trial as a real run of its agent, and Compare shows both side by side with pass rates and costs", async () => {
    const teamId = tk.actors.operator.teamIds[0];
    const dataset = await createDataset(tk.t.db, as(tk.actors.operator), {
      name: "either-agent",
      teamId,
      scoring: {
        scorers: [
          { kind: "outcome", equals: "succeeded", required: true },
          { kind: "file_exists", path: "notes/hello.txt", required: true },
          { kind: "tools_used", tools: ["write_file", "shell"] },
        ],
      },
    });
    await addItem(tk.t.db, as(tk.actors.operator), dataset.id, {
      key: "note",
      goal: "Write notes/hello.txt and check it",
      scenario: SCENARIO,
    });
    const deps = { db: tk.t.db, specs: tk.kernel.specs, wake: (id: string) => runner.wake(id) };
    const rein = await startExperiment(deps, as(tk.actors.operator), { datasetId: dataset.id, agent: "demo-coder", name: "rein" });
    await runner.whenDone(rein.id);
    const hosted = await startExperiment(deps, as(tk.actors.operator), { datasetId: dataset.id, agent: DEMO_HOSTED_AGENT, name: "hosted" });
    await runner.whenDone(hosted.id);

    const runs = await tk.t.db.run.findMany({
      where: { experimentId: { in: [rein.id, hosted.id] } },
      select: { agentName: true, status: true },
    });
    expect(runs.map((r) => [r.agentName, r.status]).sort()).toEqual([
      ["demo-coder", "succeeded"],
      [DEMO_HOSTED_AGENT, "succeeded"],
    ]);
    for (const id of [rein.id, hosted.id]) {
      const results = await experimentResults(tk.t.db, tk.actors.operator, id);
      expect(results.passRate, id).toBe(1);
      expect(results.costUsd, id).toBeGreaterThan(0);
    }
    const compared = await compareExperiments(tk.t.db, tk.actors.operator, [rein.id, hosted.id], rein.id);
    expect(compared.baseline.summary.passRate).toBe(1);
    expect(compared.candidates[0].summary.passRate).toBe(1);
    expect(compared.candidates[0].summary.costUsd).toBeGreaterThan(0);
    expect(compared.candidates[0].items[0].candidate?.toolSequence).toEqual(expect.arrayContaining(["write_file", "shell"]));
  }, 60_000);
});
