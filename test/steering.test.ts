// Steering a run over time (issue: talk to a running agent, continue, retry,
// re-run): a person's message joins the conversation before the next model
// call and never cuts a tool call short unless they ask; a paused run resumes
// and an ended run continues with it; Retry takes a run stopped by a budget
// up again once the budget is raised; Re-run makes a new run like the old.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createRun,
  rerunRun,
  retryRun,
  runLineage,
  sendMessage,
  SteeringConflictError,
  TeamAccessError,
  RunNotFoundError,
  type RunEventRecord,
} from "@/server/kernel";
import { startFakeOpenAI, type FakeServer, type Scenario } from "@/server/models";
import { createTeam } from "@/server/identity";
import { event, WorkerPool, type RunStore } from "@/server/kernel";
import { createMemoryKernel, createTestKernel, type TestKernel } from "./helpers/kernel";
import { waitFor } from "./helpers/wait";

let tk: TestKernel;
let fake: FakeServer;

beforeAll(async () => {
  tk = await createTestKernel({ models: true, telemetry: true });
  fake = await startFakeOpenAI({ models: ["m1"] });
  const admin = { userId: tk.users.admin, name: "admin" };
  await tk.models!.admin.createProvider({ name: "fake", kind: "openai-compatible", baseUrl: fake.baseUrl }, admin);
  await tk.models!.admin.saveModel({ provider: "fake", modelId: "m1", family: "alpha" }, admin);
}, 60_000);
afterAll(async () => {
  await tk?.cleanup();
  await fake?.close();
});

async function events(runId: string): Promise<RunEventRecord[]> {
  return tk.kernel.store.listEvents(runId, 0, 10_000);
}

async function eventsOf<T = Record<string, unknown>>(runId: string, type: string): Promise<Array<RunEventRecord & { payload: T }>> {
  return (await events(runId)).filter((e) => e.type === type) as Array<RunEventRecord & { payload: T }>;
}

async function statusOf(runId: string) {
  return (await tk.t.db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } })).status;
}

/** Waits until the run's event log has an event of `type` matching `test`. */
function until(runId: string, type: string, what: string, test: (payload: any) => boolean = () => true) {
  return waitFor(async () => (await eventsOf(runId, type)).some((e) => test(e.payload)) || null, what, { limitMs: 20_000 });
}

const SLOW_THEN_ECHO: Scenario = {
  turns: [
    {
      text: "Two commands.",
      toolCalls: [
        { tool: "shell", args: { command: "sleep 1.5; echo slow" } },
        { tool: "shell", args: { command: "echo two" } },
      ],
    },
    { text: "Next.", toolCalls: [{ tool: "shell", args: { command: "echo three" } }] },
    { text: "Done." },
  ],
  onMessage: [{ text: "Understood, I will keep that in mind." }],
};

describe("a person's message to a running agent", () => {
  it("waits for the tool calls in flight, then joins the conversation before the next model call", async () => {
    const run = await createRun(tk.kernel, { goal: "Work slowly", agent: "demo-coder", scenario: SLOW_THEN_ECHO }, tk.actors.operator);
    await until(run.id, "tool.call", "the slow command to start");
    const sent = await sendMessage(tk.kernel, run.id, tk.actors.operator, { text: "Use port 8080, please." });
    expect(sent).toMatchObject({ delivery: "next_turn", interrupted: false });
    expect(await tk.settle(run.id)).toBe("succeeded");

    const results = await eventsOf<{ ok: boolean }>(run.id, "tool.result");
    // Nothing was cut short: both calls of the turn in flight ran, and so did the next turn's.
    expect(results.map((r) => r.payload.ok)).toEqual([true, true, true]);
    const turns = await eventsOf<{ step: number; text: string; messages?: number[] }>(run.id, "model.turn");
    const reading = turns.find((t) => t.payload.messages);
    expect(reading?.payload.messages).toEqual([sent.seq]);
    expect(reading?.payload.step).toBe(2);
    // Said together with the script's next turn, so the run went on.
    expect(reading?.payload.text).toBe("Understood, I will keep that in mind.\n\nNext.");
    // The message came after both results of the turn in flight.
    const message = (await eventsOf(run.id, "user.message"))[0];
    expect(message.seq).toBe(sent.seq);
    expect(message.payload).toEqual({ text: "Use port 8080, please.", by: tk.users.operator, byName: tk.actors.operator.name });
    expect(results.filter((r) => r.seq < reading!.seq)).toHaveLength(2);
    const cp = (await tk.kernel.store.latestCheckpoint(run.id))!.state;
    const roles = cp.messages.map((m) => m.role);
    expect(roles.slice(0, 6)).toEqual(["user", "assistant", "tool", "tool", "user", "assistant"]);
    expect(cp.messages[4]).toEqual({ role: "user", content: `[Message from ${tk.actors.operator.name}]\nUse port 8080, please.` });
    expect(cp.messageCursor).toBe(sent.seq);
  });

  it("interrupts the tool call in flight only when asked, and skips the rest of that turn", async () => {
    const scenario: Scenario = {
      turns: [
        {
          text: "A long one.",
          toolCalls: [
            { tool: "shell", args: { command: "sleep 30" } },
            { tool: "shell", args: { command: "echo never" } },
          ],
        },
        { text: "Done." },
      ],
      onMessage: [{ text: "Stopping the long one as you asked." }],
    };
    const run = await createRun(tk.kernel, { goal: "Wait", agent: "demo-coder", scenario }, tk.actors.operator);
    await until(run.id, "tool.call", "the long command to start");
    const started = Date.now();
    const sent = await sendMessage(tk.kernel, run.id, tk.actors.operator, { text: "Stop that.", interrupt: true });
    expect(sent).toMatchObject({ delivery: "next_turn", interrupted: true });
    expect(await tk.settle(run.id)).toBe("succeeded");
    expect(Date.now() - started).toBeLessThan(25_000);
    const results = await eventsOf<{ ok: boolean; error?: { code: string; message: string } }>(run.id, "tool.result");
    expect(results).toHaveLength(1);
    expect(results[0].payload.error).toEqual({
      code: "INTERRUPTED",
      message: `Stopped by ${tk.actors.operator.name} to read their message`,
    });
    const cp = (await tk.kernel.store.latestCheckpoint(run.id))!.state;
    const skipped = cp.messages.find((m) => m.role === "tool" && JSON.stringify(m.content).includes("SKIPPED"));
    expect(JSON.stringify(skipped)).toContain("a person interrupted the turn with a message");
    const controls = await eventsOf<{ action: string }>(run.id, "run.control");
    expect(controls.map((c) => c.payload.action)).toContain("interrupt");
    const turns = await eventsOf<{ text: string; messages?: number[] }>(run.id, "model.turn");
    expect(turns[1].payload.messages).toEqual([sent.seq]);
  });

  it("resumes a paused run with the message", async () => {
    const run = await createRun(tk.kernel, { goal: "Work slowly", agent: "demo-coder", scenario: SLOW_THEN_ECHO }, tk.actors.operator);
    await until(run.id, "tool.call", "the slow command to start");
    expect(await tk.kernel.pool.pause(run.id, { id: tk.users.operator, name: "operator" })).toEqual({ ok: true });
    await waitFor(async () => (await statusOf(run.id)) === "paused", "the run to pause");
    const sent = await sendMessage(tk.kernel, run.id, tk.actors.operator, { text: "Carry on, and use port 8080." });
    expect(sent).toMatchObject({ delivery: "continued", from: "paused" });
    expect(await tk.settle(run.id)).toBe("succeeded");
    const turns = await eventsOf<{ messages?: number[] }>(run.id, "model.turn");
    expect(turns.flatMap((t) => t.payload.messages ?? [])).toEqual([sent.seq]);
  });

  it("continues an ended run: same run, same workspace, the message appended", async () => {
    const scenario: Scenario = {
      turns: [
        { text: "Write it.", toolCalls: [{ tool: "write_file", args: { path: "notes.txt", content: "first\n" } }] },
        { text: "Done." },
      ],
      onMessage: [
        {
          text: "Adding a line.",
          toolCalls: [{ tool: "shell", args: { command: "cat notes.txt && echo second >> notes.txt && wc -l < notes.txt" } }],
        },
        { text: "Added it." },
      ],
    };
    const run = await createRun(tk.kernel, { goal: "Take notes", agent: "demo-coder", scenario }, tk.actors.operator);
    expect(await tk.settle(run.id)).toBe("succeeded");
    const before = await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(before.endedAt).not.toBeNull();

    const sent = await sendMessage(tk.kernel, run.id, tk.actors.operator, { text: "Add a second line." });
    expect(sent).toMatchObject({ delivery: "continued", from: "succeeded" });
    await waitFor(
      async () => (await eventsOf(run.id, "run.state")).filter((e) => (e.payload as { to: string }).to === "succeeded").length === 2,
      "the continued run to finish",
    );
    const results = await eventsOf<{ ok: boolean; output: { output: string } }>(run.id, "tool.result");
    // The same workspace: the file the first part wrote is there, and grows.
    expect(results.at(-1)!.payload.ok).toBe(true);
    expect(results.at(-1)!.payload.output.output).toBe("first\n2\n");
    const states = (await eventsOf<{ from: string; to: string }>(run.id, "run.state")).map((e) => `${e.payload.from}→${e.payload.to}`);
    expect(states).toEqual(["queued→running", "running→succeeded", "succeeded→queued", "queued→running", "running→succeeded"]);
    const control = (await eventsOf<{ action: string; from: string }>(run.id, "run.control")).at(-1)!;
    expect(control.payload).toMatchObject({ action: "continue", from: "succeeded" });
    const final = (await eventsOf<{ text: string }>(run.id, "model.turn")).at(-1)!;
    expect(final.payload.text).toBe("Added it.");
    const after = await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(after.endedAt!.getTime()).toBeGreaterThan(before.endedAt!.getTime());
  });

  it("the scripted model without onMessage says it read the message and cannot act on it", async () => {
    const run = await createRun(
      tk.kernel,
      { goal: "Say hi", agent: "demo-coder", scenario: { turns: [{ text: "Hi." }] } },
      tk.actors.operator,
    );
    expect(await tk.settle(run.id)).toBe("succeeded");
    await sendMessage(tk.kernel, run.id, tk.actors.operator, { text: "Now deploy it." });
    await waitFor(async () => (await eventsOf(run.id, "model.turn")).length === 2 && (await statusOf(run.id)) === "succeeded", "the reply");
    const reply = (await eventsOf<{ text: string }>(run.id, "model.turn"))[1];
    expect(reply.payload.text).toMatch(/^I read your message\. I am Rein's scripted demo model, so I cannot act on what it asks/);
  });

  it("puts the message in the prompt a real provider receives", async () => {
    fake.reset();
    fake.enqueue(
      { type: "reply", reply: { toolCalls: [{ id: "call_1", name: "shell", arguments: JSON.stringify({ command: "sleep 1" }) }] } },
      { type: "reply", reply: { text: "Using port 8080." } },
    );
    const run = await createRun(tk.kernel, { goal: "Serve it", agent: "demo-coder", model: "fake/m1" }, tk.actors.operator);
    await until(run.id, "tool.call", "the command to start");
    await sendMessage(tk.kernel, run.id, tk.actors.operator, { text: "Serve on port 8080." });
    expect(await tk.settle(run.id)).toBe("succeeded");
    const posts = fake.requests.filter((r) => r.method === "POST");
    expect(posts).toHaveLength(2);
    expect(JSON.stringify(posts[0].body)).not.toContain("port 8080");
    const messages = (posts[1].body as { messages: Array<{ role: string; content: unknown }> }).messages;
    const last = messages.at(-1)!;
    expect(last.role).toBe("user");
    expect(JSON.stringify(last.content)).toContain(`[Message from ${tk.actors.operator.name}]\\nServe on port 8080.`);
    // After the tool's result, as the conversation requires.
    expect(messages.at(-2)!.role).toBe("tool");
  });

  it("refuses a viewer, and someone outside the run's team does not see the run at all", async () => {
    const run = await createRun(
      tk.kernel,
      { goal: "Say hi", agent: "demo-coder", scenario: { turns: [{ text: "Hi." }] } },
      tk.actors.operator,
    );
    expect(await tk.settle(run.id)).toBe("succeeded");
    const before = (await events(run.id)).length;
    await expect(sendMessage(tk.kernel, run.id, tk.actors.viewer, { text: "hello" })).rejects.toThrow(TeamAccessError);
    await expect(retryRun(tk.kernel, run.id, tk.actors.viewer, {})).rejects.toThrow(TeamAccessError);
    const other = await createTeam(tk.t.db, { actor: tk.actors.admin, channel: "test" }, `Elsewhere ${Date.now()}`);
    const outsider = { ...tk.actors.operator, userId: "someone-else", teamIds: [other.id], teamRoles: { [other.id]: "operator" as const } };
    await expect(sendMessage(tk.kernel, run.id, outsider, { text: "hello" })).rejects.toThrow(RunNotFoundError);
    await expect(rerunRun(tk.kernel, run.id, outsider, {})).rejects.toThrow(RunNotFoundError);
    expect((await events(run.id)).length).toBe(before);
    expect(await statusOf(run.id)).toBe("succeeded");
  });

  it("refuses an empty or oversized message with a clear error", async () => {
    const run = await createRun(
      tk.kernel,
      { goal: "Say hi", agent: "demo-coder", scenario: { turns: [{ text: "Hi." }] } },
      tk.actors.operator,
    );
    await expect(sendMessage(tk.kernel, run.id, tk.actors.operator, { text: "   " })).rejects.toThrow(/The message is empty/);
    await expect(sendMessage(tk.kernel, run.id, tk.actors.operator, { text: "x".repeat(20_001) })).rejects.toThrow(
      /at most 20,000 characters/,
    );
  });
});

describe("Retry", () => {
  it("takes a run stopped by its step limit up again once the limit is raised", async () => {
    const run = await createRun(tk.kernel, { goal: "Write fizzbuzz", agent: "demo-coder", maxSteps: 2 }, tk.actors.operator);
    expect(await tk.settle(run.id)).toBe("failed");
    const failed = await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(failed.errorCode).toBe("STEP_LIMIT");
    await expect(retryRun(tk.kernel, run.id, tk.actors.operator, {})).rejects.toThrow(/raise the step limit above 2/);
    const retried = await retryRun(tk.kernel, run.id, tk.actors.operator, { maxSteps: 20 });
    expect(retried.maxSteps).toBe(20);
    expect(await tk.settle(run.id)).toBe("succeeded");
    const row = await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(row.errorCode).toBeNull();
    // From the last good checkpoint: no model turn was taken twice.
    const steps = (await eventsOf<{ step: number }>(run.id, "model.turn")).map((t) => t.payload.step);
    expect(steps).toEqual(steps.map((_, i) => i + 1));
    const control = (await eventsOf<{ action: string; changes: string[] }>(run.id, "run.control")).at(-1)!;
    expect(control.payload).toMatchObject({ action: "retry", changes: ["step limit 2 → 20"] });
  });

  it("takes a run stopped by its cost ceiling up again once the ceiling is raised", async () => {
    await tk.t.db.modelPrice.upsert({
      where: { model: "scripted/demo-coder" },
      update: { inputPerMTok: 1000, outputPerMTok: 1000 },
      create: { model: "scripted/demo-coder", inputPerMTok: 1000, outputPerMTok: 1000 },
    });
    await tk.telemetry!.telemetry.loadPrices();
    try {
      const run = await createRun(tk.kernel, { goal: "Write fizzbuzz", agent: "demo-coder", budgetUsd: 0.5 }, tk.actors.operator);
      expect(await tk.settle(run.id)).toBe("failed");
      expect((await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } })).errorCode).toBe("RUN_BUDGET_EXCEEDED");
      await tk.telemetry!.sink.flush();
      // Still over the ceiling: refused before anything changes, with the reason.
      await expect(retryRun(tk.kernel, run.id, tk.actors.operator, {})).rejects.toThrow(/budget.*Raise the budget first/);
      expect(await statusOf(run.id)).toBe("failed");
      await retryRun(tk.kernel, run.id, tk.actors.operator, { budgetUsd: 10_000 });
      expect(await tk.settle(run.id)).toBe("succeeded");
    } finally {
      await tk.t.db.modelPrice.deleteMany({ where: { model: "scripted/demo-coder" } });
      await tk.telemetry!.telemetry.loadPrices();
    }
  });

  it("refuses a run that did not fail, and a trial of an experiment", async () => {
    const run = await createRun(
      tk.kernel,
      { goal: "Say hi", agent: "demo-coder", scenario: { turns: [{ text: "Hi." }] } },
      tk.actors.operator,
    );
    expect(await tk.settle(run.id)).toBe("succeeded");
    await expect(retryRun(tk.kernel, run.id, tk.actors.operator, {})).rejects.toThrow(
      /Only a failed or canceled run can be retried; this one is succeeded/,
    );
    await tk.t.db.run.update({ where: { id: run.id }, data: { experimentId: "exp-1" } });
    await expect(sendMessage(tk.kernel, run.id, tk.actors.operator, { text: "more" })).rejects.toThrow(SteeringConflictError);
  });
});

describe("Re-run", () => {
  it("makes a new run with the same goal, agent version and model, each editable, and both show the lineage", async () => {
    const first = await createRun(tk.kernel, { goal: "Write fizzbuzz", agent: "demo-coder" }, tk.actors.operator);
    expect(await tk.settle(first.id)).toBe("succeeded");
    const same = await rerunRun(tk.kernel, first.id, tk.actors.operator, {});
    expect(same).toMatchObject({
      goal: "Write fizzbuzz",
      agentName: "demo-coder",
      agentVersion: first.agentVersion,
      model: first.model,
      parentRunId: first.id,
      lineage: "rerun",
      teamId: first.teamId,
    });
    const edited = await rerunRun(tk.kernel, first.id, tk.actors.operator, { goal: "Write fizzbuzz in Go", maxSteps: 10 });
    expect(edited).toMatchObject({ goal: "Write fizzbuzz in Go", maxSteps: 10, parentRunId: first.id });
    expect(await tk.settle(same.id)).toBe("succeeded");
    expect(await tk.settle(edited.id)).toBe("succeeded");
    const lineage = await runLineage(tk.kernel, first.id, tk.actors.viewer);
    expect(lineage.parent).toBeNull();
    expect(lineage.children.map((c) => c.id)).toEqual([same.id, edited.id]);
    const up = await runLineage(tk.kernel, edited.id, tk.actors.viewer);
    expect(up.parent).toMatchObject({ id: first.id, kind: "rerun" });
    const created = (await eventsOf<{ parent?: unknown }>(edited.id, "run.created"))[0];
    expect(created.payload.parent).toEqual({ runId: first.id, kind: "rerun" });
  });

  it("keeps a scenario run's scenario, and refuses a viewer", async () => {
    const scenario: Scenario = { turns: [{ text: "Scripted hello." }] };
    const first = await createRun(tk.kernel, { goal: "Hello", agent: "demo-coder", scenario }, tk.actors.operator);
    await tk.settle(first.id);
    const again = await rerunRun(tk.kernel, first.id, tk.actors.operator, {});
    expect(again.scenarioGiven).toBe(true);
    expect(await tk.settle(again.id)).toBe("succeeded");
    expect((await eventsOf<{ text: string }>(again.id, "model.turn"))[0].payload.text).toBe("Scripted hello.");
    await expect(rerunRun(tk.kernel, first.id, tk.actors.viewer, {})).rejects.toThrow(TeamAccessError);
  });
});

describe("a message that arrives as the run ends", () => {
  it("is not lost: the run goes back to the queue and reads it", async () => {
    const k = createMemoryKernel();
    try {
      const id = k.addRun({ scenario: { turns: [{ text: "Done." }], onMessage: [{ text: "Read it after all." }] } });
      // The sender saw the run running and wrote its message just as the run ended.
      const inner = k.store;
      let sent = false;
      const store: RunStore = Object.assign(Object.create(Object.getPrototypeOf(inner)), inner, {
        async transition(...args: Parameters<RunStore["transition"]>) {
          const ok = await inner.transition(...args);
          if (ok && args[2] === "succeeded" && !sent) {
            sent = true;
            await inner.appendEvents(id, [event("user.message", { text: "One more thing.", by: "user-ada", byName: "Ada" })]);
          }
          return ok;
        },
      });
      const pool = new WorkerPool({ ...k.deps, store }, { concurrency: 1 });
      pool.enqueue(id);
      await waitFor(
        async () =>
          (await k.events(id)).filter((e) => e.type === "model.turn").length === 2 && (await inner.getRun(id))?.status === "succeeded",
        "the message to be read",
      );
      const turns = (await k.events(id)).filter((e) => e.type === "model.turn").map((e) => (e.payload as { text: string }).text);
      expect(turns).toEqual(["Done.", "Read it after all."]);
      const states = (await k.events(id)).filter((e) => e.type === "run.state").map((e) => (e.payload as { to: string }).to);
      expect(states).toEqual(["running", "succeeded", "queued", "running", "succeeded"]);
    } finally {
      k.cleanup();
    }
  });
});
