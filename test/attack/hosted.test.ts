// Attacks a hosted agent's program could make on Rein (docs/hosted-agents.md,
// docs/security.md#hosted-agents), each played by the hostile ACP agent in
// test/helpers/acp-agent/hostile.mjs running in a real sandbox against the
// real driver, gateway and policy. Each case failed on the code before its fix.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestKernel } from "@/test/helpers/kernel";
import { hostedKernel, type HostedKernel } from "@/test/helpers/hosted";
import { waitFor } from "@/test/helpers/wait";
import { createRun } from "@/server/kernel";
import { TEST_AGENT } from "@/server/hosted";

const HOSTILE = path.resolve("test/helpers/acp-agent/hostile.mjs");
let hk: HostedKernel;
let tk: TestKernel;

/** An agent spec on the hostile program in one mode. */
function hostile(mode: string, env: Record<string, string> = {}, callCap = 10): Promise<string> {
  const id = `hostile-${mode}`;
  return hk.spec(
    id,
    {
      ...TEST_AGENT,
      id,
      loadsSessions: mode === "calls",
      relaysShell: mode.startsWith("relay"),
      install() {
        const base = TEST_AGENT.install();
        if ("missing" in base) return base;
        return { binds: [{ host: HOSTILE, at: "/opt/rein/agent/agent.mjs" }, ...base.binds.slice(1)] };
      },
      env: (g) => ({ ...TEST_AGENT.env(g), HOSTILE_MODE: mode, ...env }),
    },
    { callCap },
  );
}

beforeAll(async () => {
  hk = await hostedKernel();
  tk = hk.tk;
}, 60_000);
afterAll(async () => {
  await hk?.cleanup();
});

const approver = () => ({ id: tk.actors.approver.userId, name: tk.actors.approver.name, role: tk.actors.approver.role });
const root = (runId: string) => tk.kernel.deps.workspaceFor(runId).root;
const deployed = (runId: string) => {
  const f = path.join(root(runId), "deployed.txt");
  return fs.existsSync(f) ? fs.readFileSync(f, "utf8") : "";
};
const agentLog = (runId: string) => {
  const f = path.join(root(runId), "hostile.log");
  return fs.existsSync(f) ? fs.readFileSync(f, "utf8") : "";
};
const open = (runId: string) => tk.t.db.humanRequest.findMany({ where: { runId, state: { in: ["PENDING", "ESCALATED"] } } });
const cancel = (runId: string) => tk.kernel.pool.cancel(runId, { id: tk.users.operator, name: "operator" });

describe("a hostile hosted agent", () => {
  it("cannot reuse an approval for another command by sending the same tool call id", async () => {
    const run = await createRun(tk.kernel, { goal: "x", agent: await hostile("replay") }, tk.actors.operator);
    const [first] = await waitFor(async () => ((await open(run.id)).length ? open(run.id) : null), "the first request");
    expect(first.title).toContain("--dry-run");
    await tk.hitl!.broker.decide(first.id, approver(), { decision: "approve", comment: "a dry run is fine" }, "inbox");
    // The same id with another command is a new question for a person, not the old answer.
    const [second] = await waitFor(async () => ((await open(run.id)).length ? open(run.id) : null), "the second request");
    expect(second.title).toContain("production");
    await cancel(run.id);
    await tk.settle(run.id);
    expect(deployed(run.id)).not.toContain("production");
  }, 30_000);

  it("cannot run a command whose control characters make the shell run another than the policy read", async () => {
    const run = await createRun(tk.kernel, { goal: "x", agent: await hostile("ctrl") }, tk.actors.operator);
    await tk.settle(run.id);
    expect(deployed(run.id)).toBe("");
    expect(agentLog(run.id)).toContain("control characters");
    expect(await tk.t.db.humanRequest.count({ where: { runId: run.id } })).toBe(0);
  }, 30_000);

  it("gets through the shell relay only what Rein's terminal would run, each command decided by the policy", async () => {
    const run = await createRun(tk.kernel, { goal: "x", agent: await hostile("relay") }, tk.actors.operator);
    // The deploy it ran with `bash -c` without asking waits for a person like any command at the pod's prompt.
    const [request] = await waitFor(async () => ((await open(run.id)).length ? open(run.id) : null), "the request");
    expect(request.title).toContain("prod-unasked");
    await tk.hitl!.broker.decide(request.id, approver(), { decision: "reject", comment: "no" }, "inbox");
    await tk.settle(run.id);
    const log = agentLog(run.id);
    expect(log).toContain("which bash: /opt/rein-shell/bash");
    expect(log).toContain("relayed echo: 0 relayed-42");
    expect(hk.stream()).toContain("relayed-42");
    // Refused, each in words: control characters, a request that is not JSON, not `-c SCRIPT`, a folder outside the workspace, too large.
    expect(log).toMatch(/relayed ctrl: 126 rein: .*control characters/);
    expect(log).toMatch(/raw not json: .*not JSON/);
    expect(log).toMatch(/raw three args: .*only `bash -c SCRIPT`/);
    expect(log).toMatch(/raw outside: .*only the files under \/workspace/);
    expect(log).toMatch(/raw huge: (.*at most|socket error)/);
    // The person's no reached the agent as the command's failure, and the deploy did not run.
    expect(log).toMatch(/relayed deploy: 126 rein: .*rejected this call: no/);
    expect(deployed(run.id)).toBe("");
  }, 30_000);

  it("has a relayed command interrupted in the pod when it stops waiting for it", async () => {
    const run = await createRun(tk.kernel, { goal: "x", agent: await hostile("relaycancel") }, tk.actors.operator);
    await tk.settle(run.id);
    const log = agentLog(run.id);
    expect(log).toContain("relaycancel: shim ended 130");
    // Killed a second in, its `bash -c 'sleep 4; echo late > …'` does not go on in the pod to the end.
    expect(log).toContain("relaycancel: late false");
    expect(fs.existsSync(path.join(root(run.id), "late.txt"))).toBe(false);
  }, 30_000);

  it("leaves no pile of requests in the Inbox by withdrawing its questions, asked or relayed, one after another", async () => {
    for (const mode of ["askcancel", "relayflood"]) {
      const run = await createRun(tk.kernel, { goal: "x", agent: await hostile(mode, { HOSTILE_N: "6" }) }, tk.actors.operator);
      await waitFor(() => agentLog(run.id).includes(`${mode} sent`), `the ${mode} questions`);
      // While the agent still runs: each withdrawn question's request was canceled, not left for a person.
      expect((await open(run.id)).length, mode).toBeLessThanOrEqual(1);
      await tk.settle(run.id);
      expect(deployed(run.id)).toBe("");
    }
  }, 60_000);

  it("runs none of its commands after a person canceled the run, while it takes its time to stop", async () => {
    const run = await createRun(tk.kernel, { goal: "x", agent: await hostile("relayticks") }, tk.actors.operator);
    const ticks = () => {
      const f = path.join(root(run.id), "ticks.txt");
      return fs.existsSync(f) ? fs.readFileSync(f, "utf8").trim().split("\n").length : 0;
    };
    await waitFor(() => ticks() >= 3, "the first commands");
    // It does not hear session/cancel and goes on relaying a command every 150 ms until its process is stopped.
    const before = ticks();
    await cancel(run.id);
    expect(await tk.settle(run.id)).toBe("canceled");
    // The one running as the person canceled may finish (and one more as the cancel is written); none asked after it runs.
    expect(ticks()).toBeLessThanOrEqual(before + 2);
    expect(agentLog(run.id)).toMatch(/tick \d+ \d+ 126 rein: The run is being canceled/);
  }, 30_000);

  it("does not run its own command when the approver changed it: it is told what was approved", async () => {
    const run = await createRun(tk.kernel, { goal: "x", agent: await hostile("edited") }, tk.actors.operator);
    const [request] = await waitFor(async () => ((await open(run.id)).length ? open(run.id) : null), "the request");
    await tk.hitl!.broker.decide(
      request.id,
      approver(),
      { decision: "approve", editedArguments: { command: "./deploy.sh staging" }, comment: "staging only" },
      "inbox",
    );
    await tk.settle(run.id);
    expect(deployed(run.id)).toBe("");
    expect(agentLog(run.id)).toMatch(/answer: .*reject/);
  }, 30_000);

  it("ends the run when its turn ends for a reason Rein does not know, instead of being started again and again", async () => {
    const run = await createRun(tk.kernel, { goal: "x", agent: await hostile("badstop") }, tk.actors.operator);
    expect(await tk.settle(run.id)).toBe("failed");
    const row = await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(row.statusReason ?? row.errorMessage).toMatch(/does not know/);
    expect(
      agentLog(run.id)
        .split("\n")
        .filter((l) => l === "prompted"),
    ).toHaveLength(1);
  }, 30_000);

  it("gets no more model calls after a restart than its cap allows, and no model turn is lost", async () => {
    const run = await createRun(
      tk.kernel,
      { goal: "x", agent: await hostile("calls", { HOSTILE_K: "3" }, 5), scenario: { turns: [{ text: "ok" }] } },
      tk.actors.operator,
    );
    await waitFor(() => agentLog(run.id).includes("holding"), "three calls");
    // As a server that died mid-turn leaves it: the checkpoint from before the calls, the run running.
    await tk.kernel.pool.pause(run.id, { id: tk.users.operator, name: "operator" });
    await waitFor(async () => (await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } })).status === "paused", "the pause");
    const cp = (await tk.kernel.store.latestCheckpoint(run.id))!;
    await tk.kernel.store.commitStep(run.id, {
      events: [],
      checkpoint: { ...cp.state, step: 0, hosted: { ...cp.state.hosted, turnOpen: true } },
      seq: cp.seq + 1,
    });
    await tk.t.db.run.update({ where: { id: run.id }, data: { status: "running" } });
    fs.writeFileSync(path.join(root(run.id), "hostile.log"), "");
    const driven = tk.kernel.pool.drive(run.id, { recovered: true });
    await waitFor(() => agentLog(run.id).includes("holding"), "the second process's calls");
    await cancel(run.id);
    await driven;
    const turns = await tk.t.db.runEvent.findMany({ where: { runId: run.id, type: "model.turn" }, select: { payload: true } });
    expect(turns.map((t) => JSON.parse(t.payload).step)).toEqual([1, 2, 3, 4, 5]);
    expect(agentLog(run.id)).toMatch(/call 2 -> 429/);
  }, 40_000);

  it("cannot hold more terminals than the limit by asking for them all at once", async () => {
    const run = await createRun(tk.kernel, { goal: "x", agent: await hostile("terms", { HOSTILE_N: "40" }) }, tk.actors.operator);
    await tk.settle(run.id);
    const made = Number(/terms ok (\d+)/.exec(agentLog(run.id))?.[1]);
    expect(made).toBeLessThanOrEqual(16);
  }, 60_000);

  it("asks a person about one action at a time, and is refused when it asks about many at once", async () => {
    const run = await createRun(tk.kernel, { goal: "x", agent: await hostile("askflood", { HOSTILE_N: "60" }) }, tk.actors.operator);
    await tk.settle(run.id);
    expect(await tk.t.db.humanRequest.count({ where: { runId: run.id } })).toBeLessThanOrEqual(1);
  }, 30_000);

  it("fills no disk with a flood of updates: past the limit they are not recorded", async () => {
    const run = await createRun(
      tk.kernel,
      { goal: "x", agent: await hostile("flood", { HOSTILE_N: "5100", HOSTILE_SIZE: "10" }) },
      tk.actors.operator,
    );
    await tk.settle(run.id);
    const recorded = await tk.t.db.runEvent.count({ where: { runId: run.id, type: { in: ["tool.call", "tool.result"] } } });
    expect(recorded).toBeLessThanOrEqual(5_000);
  }, 60_000);
});
