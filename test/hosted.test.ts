// A hosted agent's run (docs/hosted-agents.md): Rein's test agent, a program
// of its own on the ACP SDK, runs in the run's sandbox and gets its model
// through the gateway. Its plan, files, commands and the deploy a person must
// approve all go through Rein, and land on the run's timeline.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestKernel } from "@/test/helpers/kernel";
import { hostedKernel, pendingRequest, runEvents, type HostedKernel } from "@/test/helpers/hosted";
import { createRun, DEMO_HOSTED_AGENT } from "@/server/kernel";
import { DEMO_HOSTED_GOAL } from "@/server/models";

describe("a hosted agent's run", () => {
  let hk: HostedKernel;
  let tk: TestKernel;
  beforeAll(async () => {
    hk = await hostedKernel();
    tk = hk.tk;
  }, 60_000);
  afterAll(async () => {
    await hk?.cleanup();
  });

  it("plans, writes files, runs a command in the pod, waits for a person before the deploy, and finishes when approved", async () => {
    const run = await createRun(tk.kernel, { goal: DEMO_HOSTED_GOAL, agent: DEMO_HOSTED_AGENT }, tk.actors.operator);
    const request = await pendingRequest(tk, run.id);
    expect(request.title).toContain("./deploy.sh staging");
    await hk.decide(request.id, "approve", "ok");
    expect(await tk.settle(run.id)).toBe("succeeded");

    const root = tk.kernel.deps.workspaceFor(run.id).root;
    expect(fs.readFileSync(path.join(root, "hello.sh"), "utf8")).toContain("Hello from a hosted agent");
    expect(fs.readFileSync(path.join(root, "out", "deploy.log"), "utf8")).toContain("deployed hello.sh to staging");
    expect(hk.stream()).toContain("Hello from a hosted agent");

    const log = await runEvents(tk, run.id);
    const types = log.map((e) => e.type);
    expect(types).toContain("tasks.updated");
    expect(types).toContain("human.requested");
    const turns = log.filter((e) => e.type === "model.turn");
    expect(turns.length).toBe(4);
    expect(turns[0].payload).toMatchObject({ agent: DEMO_HOSTED_AGENT, scripted: true });
    const calls = log.filter((e) => e.type === "tool.call").map((e) => e.payload.tool);
    expect(calls).toEqual(expect.arrayContaining(["write_file", "shell"]));
    const results = log.filter((e) => e.type === "tool.result");
    expect(results.every((r) => r.payload.ok === true)).toBe(true);
    const state = log.filter((e) => e.type === "run.state").map((e) => e.payload.to);
    expect(state.at(-1)).toBe("succeeded");
  }, 60_000);

  it("a rejected deploy does not run, and the agent is told", async () => {
    const run = await createRun(tk.kernel, { goal: DEMO_HOSTED_GOAL, agent: DEMO_HOSTED_AGENT }, tk.actors.operator);
    const request = await pendingRequest(tk, run.id);
    await hk.decide(request.id, "reject", "not today");
    await tk.settle(run.id);
    const root = tk.kernel.deps.workspaceFor(run.id).root;
    expect(fs.existsSync(path.join(root, "out", "deploy.log"))).toBe(false);
    const log = await runEvents(tk, run.id);
    const failed = log.filter((e) => e.type === "tool.result" && e.payload.ok === false);
    expect(failed.length).toBe(1);
  }, 60_000);
});
