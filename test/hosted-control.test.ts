// Steering a hosted agent's run (docs/hosted-agents.md#runs): cancel stops
// its turn and its command, a crash of its process fails the run in words, a
// person's message reaches it as a new prompt, pause and resume reload its
// session, a restart under an agent that cannot reload one waits for a person,
// and a budget reached mid-run stops its next model call.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestKernel } from "@/test/helpers/kernel";
import { hostedKernel, type HostedKernel } from "@/test/helpers/hosted";
import { waitFor } from "@/test/helpers/wait";
import { createRun, sendMessage, DEMO_HOSTED_AGENT } from "@/server/kernel";
import type { Scenario } from "@/server/models";
import { TEST_AGENT } from "@/server/hosted";

const NO_LOAD = "rein-test-agent-no-load";

let hk: HostedKernel;
let tk: TestKernel;

beforeAll(async () => {
  hk = await hostedKernel();
  tk = hk.tk;
  // The same agent, telling Rein it cannot reload a session.
  await hk.spec(NO_LOAD, {
    ...TEST_AGENT,
    id: NO_LOAD,
    loadsSessions: false,
    env: (g) => ({ ...TEST_AGENT.env(g), ACP_TEST_AGENT_NO_LOAD: "1" }),
  });
}, 60_000);
afterAll(async () => {
  await hk?.cleanup();
});

const who = () => ({ id: tk.users.operator, name: "operator" });

async function events(runId: string) {
  const rows = await tk.t.db.runEvent.findMany({ where: { runId }, orderBy: { seq: "asc" }, select: { type: true, payload: true } });
  return rows.map((r) => ({ type: r.type, payload: JSON.parse(r.payload) as Record<string, unknown> }));
}

const start = (scenario: Scenario, extra: Record<string, unknown> = {}, agent = DEMO_HOSTED_AGENT) =>
  createRun(tk.kernel, { goal: "Try the controls", agent, scenario, ...extra }, tk.actors.operator);

/** Until the agent's command is running in the pod. */
const commandStarted = (runId: string, command: string) =>
  waitFor(
    async () => (await events(runId)).some((e) => e.type === "tool.call" && JSON.stringify(e.payload).includes(command)),
    `the agent to start ${command}`,
  );

const status = async (runId: string) => (await tk.t.db.run.findUniqueOrThrow({ where: { id: runId } })).status;

describe("a hosted agent's run under control", () => {
  it("cancel ends the agent's turn and its command, and the run is canceled", async () => {
    const run = await start({ turns: [{ toolCalls: [{ tool: "run_command", args: { command: "sleep 30" } }] }, { text: "Slept." }] });
    await commandStarted(run.id, "sleep 30");
    const started = Date.now();
    expect(await tk.kernel.pool.cancel(run.id, who())).toMatchObject({ ok: true });
    expect(await tk.settle(run.id)).toBe("canceled");
    expect(Date.now() - started).toBeLessThan(10_000);
    // The agent's model was not asked again after the cancel.
    expect((await events(run.id)).filter((e) => e.type === "model.turn")).toHaveLength(1);
  }, 30_000);

  it("a crash of the agent's process fails the run with the exit code", async () => {
    const run = await start({ turns: [{ toolCalls: [{ tool: "crash", args: { code: 3 } }] }] });
    expect(await tk.settle(run.id)).toBe("failed");
    const row = await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(row.errorCode).toBe("HOSTED_AGENT_EXITED");
    expect(row.errorMessage).toContain("exited with code 3");
  }, 30_000);

  it("a person's message reaches the running agent as its next prompt", async () => {
    const run = await start({
      turns: [{ toolCalls: [{ tool: "run_command", args: { command: "sleep 1" } }] }, { text: "Done with my script." }],
      onMessage: [{ text: "Read your message." }],
    });
    await commandStarted(run.id, "sleep 1");
    await sendMessage(tk.kernel, run.id, tk.actors.operator, { text: "Please also say hello." });
    expect(await tk.settle(run.id)).toBe("succeeded");
    const texts = (await events(run.id)).filter((e) => e.type === "model.turn").map((e) => e.payload.text);
    expect(texts).toContain("Read your message.");
  }, 30_000);

  it("pause stops the turn; resume reloads the agent's session and it goes on", async () => {
    const run = await start({
      turns: [{ toolCalls: [{ tool: "run_command", args: { command: "sleep 30" } }] }, { text: "Going on after the pause." }],
    });
    await commandStarted(run.id, "sleep 30");
    expect(await tk.kernel.pool.pause(run.id, who())).toEqual({ ok: true });
    await waitFor(async () => (await status(run.id)) === "paused", "the run to pause");
    expect(await tk.kernel.pool.resume(run.id, who())).toMatchObject({ ok: true });
    expect(await tk.settle(run.id)).toBe("succeeded");
    const texts = (await events(run.id)).filter((e) => e.type === "model.turn").map((e) => e.payload.text);
    expect(texts).toContain("Going on after the pause.");
  }, 40_000);

  it("after a restart, an agent that cannot reload its session is not prompted again: the run waits for a person", async () => {
    const run = await start(
      { turns: [{ toolCalls: [{ tool: "run_command", args: { command: "sleep 30" } }] }, { text: "Never said." }] },
      {},
      NO_LOAD,
    );
    await commandStarted(run.id, "sleep 30");
    expect(await tk.kernel.pool.pause(run.id, who())).toEqual({ ok: true });
    await waitFor(async () => (await status(run.id)) === "paused", "the run to pause");
    // As a server that died mid-turn leaves it: running, its turn open.
    const cp = (await tk.kernel.store.latestCheckpoint(run.id))!;
    await tk.kernel.store.commitStep(run.id, {
      events: [],
      checkpoint: { ...cp.state, hosted: { ...cp.state.hosted, turnOpen: true } },
      seq: cp.seq + 1,
    });
    await tk.t.db.run.update({ where: { id: run.id }, data: { status: "running" } });
    const turnsBefore = (await events(run.id)).filter((e) => e.type === "model.turn").length;
    expect(await tk.kernel.pool.drive(run.id, { recovered: true })).toBe("paused");
    const row = await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(row.statusReason).toMatch(/cannot reload its session/);
    expect((await events(run.id)).filter((e) => e.type === "model.turn")).toHaveLength(turnsBefore);
    await tk.kernel.pool.cancel(run.id, who());
  }, 40_000);

  it("a budget reached mid-run stops the agent's next model call, with the reason in its timeline", async () => {
    await tk.t.db.modelPrice.create({ data: { model: "scripted/run-scenario", inputPerMTok: 1000, outputPerMTok: 1000 } });
    await tk.telemetry!.telemetry.loadPrices();
    try {
      const run = await start(
        {
          turns: [
            { toolCalls: [{ tool: "run_command", args: { command: "echo one" } }] },
            { toolCalls: [{ tool: "run_command", args: { command: "echo two" } }] },
            { text: "Done." },
          ],
        },
        { budgetUsd: 0.05 },
      );
      const ended = await tk.settle(run.id);
      if (ended !== "failed")
        console.log(JSON.stringify((await events(run.id)).filter((e) => e.type === "model.turn" || e.type === "model.error")));
      expect(ended).toBe("failed");
      const row = await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } });
      expect(row.errorCode).toBe("RUN_BUDGET_EXCEEDED");
      expect(row.errorMessage).toMatch(/budget/);
      const log = await events(run.id);
      expect(log.filter((e) => e.type === "model.turn")).toHaveLength(1);
      expect(log.some((e) => e.type === "model.error" && /budget/.test(String(e.payload.error)))).toBe(true);
    } finally {
      await tk.t.db.modelPrice.deleteMany({ where: { model: "scripted/run-scenario" } });
      await tk.telemetry!.telemetry.loadPrices();
    }
  }, 30_000);
});
