// A hosted agent's run (docs/hosted-agents.md): Rein's test agent, a program
// of its own on the ACP SDK, runs in the run's sandbox and gets its model
// through the gateway. Its plan, files, commands and the deploy a person must
// approve all go through Rein, and land on the run's timeline.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { waitFor } from "@/test/helpers/wait";
import { DEFAULT_LIMITS, PodPool, probeSandbox } from "@/server/compute";
import { createRun, DEMO_HOSTED_AGENT } from "@/server/kernel";
import { ModelGateway } from "@/server/gateway";
import { HostedRuns } from "@/server/hosted";
import { DEMO_HOSTED_GOAL } from "@/server/models";

const LOG = { info: () => {}, error: (m: string, e?: unknown) => console.error(m, e) };

async function events(tk: TestKernel, runId: string) {
  const rows = await tk.t.db.runEvent.findMany({ where: { runId }, orderBy: { seq: "asc" }, select: { type: true, payload: true } });
  return rows.map((r) => ({ type: r.type, payload: JSON.parse(r.payload) as Record<string, unknown> }));
}

const approver = (tk: TestKernel) => ({ id: tk.actors.approver.userId, name: tk.actors.approver.name, role: tk.actors.approver.role });

async function pendingRequest(tk: TestKernel, runId: string) {
  return waitFor(async () => {
    const open = await tk.t.db.humanRequest.findFirst({ where: { runId, state: { in: ["PENDING", "ESCALATED"] } } });
    if (open) return open;
    const run = await tk.t.db.run.findUnique({ where: { id: runId }, select: { status: true, errorMessage: true } });
    if (run && run.status !== "running" && run.status !== "queued")
      throw new Error(`the run is ${run.status} (${run.errorMessage}): ${JSON.stringify(await events(tk, runId))}`);
    return null;
  }, "the deploy's human request");
}

describe("a hosted agent's run", () => {
  let tk: TestKernel;
  let pods: PodPool;
  let stream = "";
  beforeAll(async () => {
    const dataDir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? "/tmp", "rein-hosted-pods-"));
    pods = new PodPool({ dataDir, size: 0, limits: DEFAULT_LIMITS, sandbox: probeSandbox(), allowUnsandboxed: true });
    await pods.start();
    pods.onChange((_runId, pod) => void pod?.onData((chunk) => (stream += chunk), { replay: true }));
    tk = await createTestKernel({ hitl: true, telemetry: true, terminals: pods });
    const k = tk.kernel.deps;
    const gateway = new ModelGateway({
      router: k.router,
      limits: k.limits,
      appendEvents: (runId, e) => k.store.appendEvents(runId, e),
      publishTransient: (m) => k.publishTransient(m),
      log: LOG,
    });
    k.hosted = new HostedRuns({ gateway, gate: tk.hitl!.gate, db: tk.t.db, dataDir: tk.t.dir, log: LOG });
  }, 60_000);
  afterAll(async () => {
    await tk?.cleanup();
    await pods?.stop();
  });

  it("plans, writes files, runs a command in the pod, waits for a person before the deploy, and finishes when approved", async () => {
    const run = await createRun(tk.kernel, { goal: DEMO_HOSTED_GOAL, agent: DEMO_HOSTED_AGENT }, tk.actors.operator);
    const request = await pendingRequest(tk, run.id);
    expect(request.title).toContain("./deploy.sh staging");
    await tk.hitl!.broker.decide(request.id, approver(tk), { decision: "approve", comment: "ok" }, "inbox");
    expect(await tk.settle(run.id)).toBe("succeeded");

    const root = tk.kernel.deps.workspaceFor(run.id).root;
    expect(fs.readFileSync(path.join(root, "hello.sh"), "utf8")).toContain("Hello from a hosted agent");
    expect(fs.readFileSync(path.join(root, "out", "deploy.log"), "utf8")).toContain("deployed hello.sh to staging");
    expect(stream).toContain("Hello from a hosted agent");

    const log = await events(tk, run.id);
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
    await tk.hitl!.broker.decide(request.id, approver(tk), { decision: "reject", comment: "not today" }, "inbox");
    await tk.settle(run.id);
    const root = tk.kernel.deps.workspaceFor(run.id).root;
    expect(fs.existsSync(path.join(root, "out", "deploy.log"))).toBe(false);
    const log = await events(tk, run.id);
    const failed = log.filter((e) => e.type === "tool.result" && e.payload.ok === false);
    expect(failed.length).toBe(1);
  }, 60_000);
});
