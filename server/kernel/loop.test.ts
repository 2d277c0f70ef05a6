// The kernel loop (docs/architecture.md#the-path-of-a-run,
// docs/runs.md#replay-safety), driven with the in-memory backends and, where
// the database matters, through createKernel on a test database. Shell commands
// append to a file, so a tool that runs twice shows.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryKernel, createTestKernel, plainControl, type MemoryKernel, type TestKernel } from "@/test/helpers/kernel";
import { processGone, waitFor } from "@/test/helpers/wait";
import { parseScenario, type Scenario } from "@/server/models";
import type { ReplayCache } from "@/server/tools";
import { WorkerPool, createRun, driveRun, exportScenario, type RunEventRecord, type RunStore } from "./index";

const TESTER = { id: "user-test", name: "Tess Tester" };

type Payload = Record<string, any>;

const kernels: MemoryKernel[] = [];
const testKernels: TestKernel[] = [];
afterEach(async () => {
  kernels.splice(0).forEach((k) => k.cleanup());
  for (const t of testKernels.splice(0)) await t.cleanup();
});

function memoryKernel(opts?: Parameters<typeof createMemoryKernel>[0]) {
  const k = createMemoryKernel(opts);
  kernels.push(k);
  return k;
}

async function testKernel() {
  const t = await createTestKernel();
  testKernels.push(t);
  return t;
}

const ofType = (events: RunEventRecord[], type: string) => events.filter((e) => e.type === type);
const payloads = (events: RunEventRecord[], type: string) => ofType(events, type).map((e) => e.payload as Payload);
const lastState = (events: RunEventRecord[]) => payloads(events, "run.state").at(-1);
const effects = (root: string) =>
  fs.existsSync(path.join(root, "effects.log")) ? fs.readFileSync(path.join(root, "effects.log"), "utf8") : "";
const gitLog = (root: string) => execFileSync("git", ["log", "--format=%s"], { cwd: root, encoding: "utf8" }).trim().split("\n");

/** The log is sound: seqs 1..n, every key once, every tool call with one call event and one result. */
function expectSoundLog(events: RunEventRecord[], keys: Array<string | null>) {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  const present = keys.filter((k): k is string => !!k);
  expect(new Set(present).size).toBe(present.length);
  const calls = payloads(events, "tool.call").map((p) => p.toolCallId);
  const results = payloads(events, "tool.result").map((p) => p.toolCallId);
  expect(new Set(calls).size).toBe(calls.length);
  expect([...results].sort()).toEqual([...calls].sort());
  const steps = payloads(events, "model.turn").map((p) => p.step);
  expect(steps).toEqual(steps.map((_, i) => i + 1));
}

/** Keys of the memory store's records (it keeps them on the record). */
const memoryKeys = (events: RunEventRecord[]) => events.map((e) => (e as RunEventRecord & { key?: string }).key ?? null);

/** A store that forwards to `inner`, with some methods replaced. */
function wrapStore(inner: RunStore, overrides: Partial<RunStore>): RunStore {
  return {
    getRun: (id) => inner.getRun(id),
    runIdsIn: (s) => inner.runIdsIn(s),
    transition: (...a) => inner.transition(...a),
    appendEvents: (id, e) => inner.appendEvents(id, e),
    appendEventsSoon: (id, e) => inner.appendEventsSoon(id, e),
    commitStep: (id, s) => inner.commitStep(id, s),
    latestCheckpoint: (id) => inner.latestCheckpoint(id),
    listEvents: (id, a, l) => inner.listEvents(id, a, l),
    eventsOfType: (id, t, a) => inner.eventsOfType(id, t, a),
    ...overrides,
  };
}

const SHELL_SCENARIO = (first: string, second = "echo two >> effects.log"): Scenario => ({
  turns: [
    { text: "First command.", toolCalls: [{ tool: "shell", args: { command: first } }] },
    { text: "Second command.", toolCalls: [{ tool: "shell", args: { command: second } }] },
    { text: "Done." },
  ],
});

describe.each(["memory backends", "createKernel on a test database"])("demo-coder with %s", (wiring) => {
  it("succeeds: fizzbuzz written, tests pass (exit code 0), work committed", async () => {
    let events: RunEventRecord[];
    let keys: Array<string | null>;
    let root: string;
    if (wiring === "memory backends") {
      const k = memoryKernel();
      const id = k.addRun({ agent: "demo-coder", goal: "Write fizzbuzz" });
      expect(await driveRun(id, k.deps, plainControl())).toBe("succeeded");
      events = await k.events(id);
      keys = memoryKeys(events);
      root = k.deps.workspaceFor(id).root;
    } else {
      const tk = await testKernel();
      const run = await createRun(tk.kernel, { goal: "Write fizzbuzz", agent: "demo-coder" }, tk.actors.operator);
      expect(await tk.settle(run.id)).toBe("succeeded");
      events = await tk.kernel.store.listEvents(run.id, 0, 10_000);
      keys = (await tk.t.db.runEvent.findMany({ where: { runId: run.id }, orderBy: { seq: "asc" }, select: { key: true } })).map(
        (r) => r.key,
      );
      root = tk.kernel.deps.workspaceFor(run.id).root;
      expect(events[0].type).toBe("run.created");
      const row = await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } });
      expect(row).toMatchObject({ status: "succeeded", stepCount: 6, lastSeq: events.length });
      expect(row.inputTokens).toBeGreaterThan(0);
      expect(row.outputTokens).toBeGreaterThan(0);
    }

    expect(lastState(events)).toMatchObject({ from: "running", to: "succeeded" });
    expectSoundLog(events, keys);
    expect(ofType(events, "model.turn")).toHaveLength(6);
    expect(payloads(events, "model.turn").every((p) => p.agent === "demo-coder" && p.scripted === true)).toBe(true);

    expect(fs.readFileSync(path.join(root, "src/fizzbuzz.mjs"), "utf8")).toContain("export function fizzbuzz");
    expect(fs.existsSync(path.join(root, "test/fizzbuzz.test.mjs"))).toBe(true);
    expect(gitLog(root)).toContain("Add fizzbuzz with tests");

    const shells = payloads(events, "tool.result").filter((p) => p.tool === "shell");
    expect(shells).toHaveLength(2);
    for (const s of shells) expect(s).toMatchObject({ ok: true, cached: false, output: { exitCode: 0 } });
    expect(shells[0].output.output).toMatch(/pass 5/);
    expect(payloads(events, "tool.result").every((p) => p.ok)).toBe(true);
    expect(
      payloads(events, "tasks.updated")
        .at(-1)
        ?.tasks.every((t: Payload) => t.status === "done"),
    ).toBe(true);
  });
});

describe("the kernel loop (memory backends)", () => {
  it("demo-team records the handoff and attributes the specialist's turns to demo-specialist", async () => {
    const k = memoryKernel();
    const id = k.addRun({ agent: "demo-team", goal: "A slugify helper" });
    expect(await driveRun(id, k.deps, plainControl())).toBe("succeeded");
    const events = await k.events(id);
    expectSoundLog(events, memoryKeys(events));

    const handoffs = ofType(events, "handoff");
    expect(handoffs).toHaveLength(1);
    expect(handoffs[0]).toMatchObject({ actor: "agent:demo-team", payload: { from: "demo-team", to: "demo-specialist" } });
    const handoffSeq = handoffs[0].seq;

    const turns = ofType(events, "model.turn");
    const before = turns.filter((e) => e.seq < handoffSeq);
    const after = turns.filter((e) => e.seq > handoffSeq);
    expect(before.length).toBe(2);
    expect(after.length).toBeGreaterThan(0);
    for (const e of before) expect(e).toMatchObject({ actor: "agent:demo-team", payload: { agent: "demo-team" } });
    for (const e of after) expect(e).toMatchObject({ actor: "agent:demo-specialist", payload: { agent: "demo-specialist" } });
    for (const e of ofType(events, "tool.call").filter((e) => e.seq > handoffSeq)) {
      expect(e).toMatchObject({ actor: "agent:demo-specialist", payload: { agent: "demo-specialist" } });
    }

    const cp = await k.store.latestCheckpoint(id);
    expect(cp?.state.agent).toBe("demo-specialist");
    expect(cp?.state.handoffs).toEqual([{ from: "demo-team", to: "demo-specialist", step: 2 }]);
    const root = k.deps.workspaceFor(id).root;
    expect(fs.existsSync(path.join(root, "PLAN.md"))).toBe(true);
    expect(fs.existsSync(path.join(root, "src/slugify.mjs"))).toBe(true);
    expect(payloads(events, "tool.result").find((p) => p.tool === "shell")?.output.exitCode).toBe(0);
  });

  it("gives a call to an unknown tool an error result, and the run still finishes", async () => {
    const k = memoryKernel();
    const id = k.addRun({
      scenario: { turns: [{ toolCalls: [{ tool: "launch_rockets", args: { count: 3 } }] }, { text: "Never mind." }] },
    });
    expect(await driveRun(id, k.deps, plainControl())).toBe("succeeded");
    const events = await k.events(id);
    const [result] = payloads(events, "tool.result");
    expect(result).toMatchObject({ tool: "launch_rockets", ok: false, cached: false, error: { code: "UNKNOWN_TOOL" } });
    expect(result.error.message).toContain("launch_rockets");
    expect(ofType(events, "model.turn")).toHaveLength(2);
    expect(lastState(events)).toMatchObject({ to: "succeeded" });
  });

  it("plays a scenario to its last turn, or refuses it up front: a text-only turn in the middle is not silently the end", async () => {
    const scenario: Scenario = {
      turns: [
        { text: "Thinking first." },
        { toolCalls: [{ tool: "shell", args: { command: "echo ran >> effects.log" } }] },
        { text: "Done." },
      ],
    };
    let refused: unknown = null;
    try {
      parseScenario(scenario.turns);
    } catch (err) {
      refused = err;
    }
    if (refused) return; // refused with an error when given: acceptable
    const k = memoryKernel();
    const id = k.addRun({ scenario });
    expect(await driveRun(id, k.deps, plainControl())).toBe("succeeded");
    const events = await k.events(id);
    expect(payloads(events, "model.turn").map((p) => p.text)).toEqual(["Thinking first.", "", "Done."]);
    expect(effects(k.deps.workspaceFor(id).root)).toBe("ran\n");
  });

  it("lets the event loop in while a long run makes fast tool calls, instead of holding it until the run ends", async () => {
    // In-process tools over the memory store resolve without giving the loop up: without the run's own
    // yields, a turn of 500 calls ran start to end while no request, timer or socket got a turn.
    let results = 0;
    const k = memoryKernel({ onEvents: (_, events) => (results += events.filter((e) => e.type === "tool.result").length) });
    const calls = Array.from({ length: 500 }, (_, i) => ({
      tool: "update_tasks",
      args: { tasks: [{ title: `step ${i}`, status: "doing" }] },
    }));
    const id = k.addRun({ scenario: { turns: [{ toolCalls: calls }, { text: "Done." }] } });
    const seen: number[] = [];
    let running = true;
    const tick = () => {
      seen.push(results);
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    expect(await driveRun(id, k.deps, plainControl())).toBe("succeeded");
    running = false;
    expect(results).toBe(500);
    // Other work ran between the run's calls, not only before the first and after the last.
    expect(seen.filter((n) => n > 0 && n < 500).length).toBeGreaterThan(0);
  });

  it("with stopOnError fails the run after a failed tool call and plays no further turn", async () => {
    const k = memoryKernel();
    const id = k.addRun({
      scenario: {
        stopOnError: true,
        turns: [
          { toolCalls: [{ tool: "read_file", args: { path: "does-not-exist.txt" } }] },
          { toolCalls: [{ tool: "shell", args: { command: "echo should-not-run >> effects.log" } }] },
        ],
      },
    });
    expect(await driveRun(id, k.deps, plainControl())).toBe("failed");
    const events = await k.events(id);
    expect(payloads(events, "tool.result")).toEqual([expect.objectContaining({ tool: "read_file", ok: false })]);
    const end = lastState(events)!;
    expect(end).toMatchObject({ from: "running", to: "failed", error: { code: "AGENT_STOPPED" } });
    expect(end.reason).toMatch(/stopOnError/);
    expect(effects(k.deps.workspaceFor(id).root)).toBe("");
    expect((await k.store.getRun(id))?.status).toBe("failed");
  });

  it("fails with STEP_LIMIT when maxSteps is reached", async () => {
    const k = memoryKernel();
    const id = k.addRun({ agent: "demo-coder", maxSteps: 2 });
    expect(await driveRun(id, k.deps, plainControl())).toBe("failed");
    const events = await k.events(id);
    expect(ofType(events, "model.turn")).toHaveLength(2);
    expect(lastState(events)).toMatchObject({
      to: "failed",
      error: { code: "STEP_LIMIT", message: "The run reached its limit of 2 model calls" },
    });
  });

  it("pauses a running run after a checkpointed step, and resume finishes it without running a tool twice", async () => {
    const k = memoryKernel();
    const id = k.addRun({ scenario: SHELL_SCENARIO("echo one >> effects.log; sleep 1") });
    const root = k.deps.workspaceFor(id).root;
    const pool = new WorkerPool(k.deps, { concurrency: 1 });
    pool.enqueue(id);
    await waitFor(async () => ofType(await k.events(id), "tool.call").length > 0, "the first shell call");
    expect(await pool.pause(id, TESTER)).toEqual({ ok: true });
    await pool.whenIdle();

    expect((await k.store.getRun(id))?.status).toBe("paused");
    let events = await k.events(id);
    const pausedAt = events.findIndex((e) => e.type === "run.state" && (e.payload as Payload).to === "paused");
    expect(pausedAt).toBeGreaterThan(0);
    const before = events[pausedAt - 1];
    expect(before.type).toBe("tool.result");
    const cp = await k.store.latestCheckpoint(id);
    // That step is in the checkpoint: its result is in the conversation and no longer pending.
    const callId = (before.payload as Payload).toolCallId;
    expect(JSON.stringify(cp?.state.messages.at(-1))).toContain(callId);
    expect(cp?.state.pending.map((p) => p.toolCallId)).not.toContain(callId);
    expect(effects(root)).toBe("one\n");
    expect(payloads(events, "run.control")).toEqual([{ action: "pause", by: "user-test", byName: "Tess Tester" }]);

    expect(await pool.resume(id, TESTER)).toEqual({ ok: true });
    await waitFor(async () => (await k.store.getRun(id))?.status === "succeeded", "the resumed run to succeed");
    await pool.whenIdle();
    events = await k.events(id);
    expectSoundLog(events, memoryKeys(events));
    expect(effects(root)).toBe("one\ntwo\n");
    const shellResults = payloads(events, "tool.result").filter((p) => p.tool === "shell");
    expect(shellResults).toHaveLength(2);
    expect(shellResults.every((p) => p.ok && !p.cached)).toBe(true);
    expect(payloads(events, "run.state").map((p) => p.to)).toEqual(["running", "paused", "queued", "running", "succeeded"]);
  });

  it("cancels a run during `sleep 30`: it ends canceled and the sleep is killed", async () => {
    const k = memoryKernel();
    const id = k.addRun({
      scenario: SHELL_SCENARIO("sleep 30 >/dev/null 2>&1 & echo $! > sleep.pid; wait; echo finished >> effects.log"),
    });
    const root = k.deps.workspaceFor(id).root;
    const pool = new WorkerPool(k.deps, { concurrency: 1 });
    pool.enqueue(id);
    const pid = await waitFor(() => {
      const f = path.join(root, "sleep.pid");
      const text = fs.existsSync(f) ? fs.readFileSync(f, "utf8").trim() : "";
      return text ? Number(text) : 0;
    }, "the sleep to start");
    try {
      expect(await pool.cancel(id, TESTER)).toEqual({ ok: true });
      expect((await k.store.getRun(id))?.status).toBe("canceled");
      await waitFor(() => processGone(pid), `sleep ${pid} to be killed`, { limitMs: 5_000 });
      expect(effects(root)).toBe(""); // the command did not go on after the sleep
      const events = await k.events(id);
      expect(payloads(events, "tool.result")).toEqual([
        expect.objectContaining({ tool: "shell", ok: false, error: expect.objectContaining({ code: "ABORTED" }) }),
      ]);
      expect(ofType(events, "model.turn")).toHaveLength(1);
      expect(lastState(events)).toMatchObject({ from: "running", to: "canceled" });
    } finally {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* gone, as it should be */
      }
    }
  });

  it("resumes a recovered run from its checkpoint: run.resumed, no duplicate events, nothing run twice", async () => {
    let stop = false;
    const k = memoryKernel({
      onEvents: (_id, events) => {
        // The server "stops" right after the first model turn that asks for tools.
        if (events.some((e) => e.type === "model.turn" && (e.payload as Payload).toolCalls.length > 0)) stop = true;
      },
    });
    const id = k.addRun({ scenario: SHELL_SCENARIO("echo one >> effects.log") });
    const root = k.deps.workspaceFor(id).root;
    expect(await driveRun(id, k.deps, plainControl({ stopping: () => stop }))).toBe("stopped");
    expect((await k.store.getRun(id))?.status).toBe("running");
    const cp = await k.store.latestCheckpoint(id);
    expect(cp?.state.pending).toHaveLength(1);
    expect(effects(root)).toBe("");

    expect(await driveRun(id, k.deps, plainControl({ recovered: true }))).toBe("succeeded");
    const events = await k.events(id);
    expectSoundLog(events, memoryKeys(events));
    expect(payloads(events, "run.resumed")).toEqual([expect.objectContaining({ fromCheckpoint: cp!.seq, step: 1 })]);
    expect(effects(root)).toBe("one\ntwo\n");
    expect(payloads(events, "run.state").map((p) => p.to)).toEqual(["running", "succeeded"]);
  });

  it("after a crash between a tool's result and its checkpoint, resume takes the cached result and logs it once", async () => {
    const k = memoryKernel();
    const abort = new AbortController();
    let crashed = false;
    const crashing = wrapStore(k.store, {
      async commitStep(runId, step) {
        if (!crashed && step.events.some((e) => e.type === "tool.result")) {
          crashed = true; // the process dies before the step is committed
          abort.abort(new Error("crash"));
          throw new Error("simulated crash");
        }
        return k.store.commitStep(runId, step);
      },
    });
    const id = k.addRun({ scenario: SHELL_SCENARIO("echo one >> effects.log") });
    const root = k.deps.workspaceFor(id).root;
    const outcome = await driveRun(id, { ...k.deps, store: crashing }, plainControl({ signal: abort.signal, stopping: () => crashed }));
    expect(outcome).toBe("stopped");
    expect(effects(root)).toBe("one\n");
    expect(ofType(await k.events(id), "tool.result")).toHaveLength(0);

    expect(await driveRun(id, k.deps, plainControl({ recovered: true }))).toBe("succeeded");
    const events = await k.events(id);
    expectSoundLog(events, memoryKeys(events));
    expect(effects(root)).toBe("one\ntwo\n"); // the first command did not run again
    const shells = payloads(events, "tool.result").filter((p) => p.tool === "shell");
    expect(shells.map((p) => p.cached)).toEqual([true, false]);
    expect(shells[0].output).toMatchObject({ exitCode: 0 });
  });

  it("after a crash while an unsafe tool ran (intent, no result), resume does not run it again", async () => {
    const abort = new AbortController();
    let crashed = false;
    const base = createMemoryKernel();
    kernels.push(base);
    const cache: ReplayCache = {
      get: (key) => base.cache.get(key),
      writeIntent: (key, rc) => base.cache.writeIntent(key, rc),
      async writeResult(key, rc, outcome) {
        if (!crashed) {
          crashed = true; // the process dies after the command, before its result is recorded
          abort.abort(new Error("crash"));
          throw new Error("simulated crash");
        }
        return base.cache.writeResult(key, rc, outcome);
      },
    };
    const k = memoryKernel({ cache });
    const id = k.addRun({ scenario: SHELL_SCENARIO("echo one >> effects.log") });
    const root = k.deps.workspaceFor(id).root;
    expect(await driveRun(id, k.deps, plainControl({ signal: abort.signal, stopping: () => crashed }))).toBe("stopped");
    expect(effects(root)).toBe("one\n");

    const outcome = await driveRun(id, k.deps, plainControl({ recovered: true }));
    expect(effects(root)).toBe("one\n"); // unknown whether it happened: not run again
    expect(outcome).not.toBe("succeeded");
    const events = await k.events(id);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const keys = memoryKeys(events).filter(Boolean);
    expect(new Set(keys).size).toBe(keys.length);
    expect(ofType(events, "tool.call")).toHaveLength(1); // logged once, before the crash
    expect(ofType(events, "tool.result")).toHaveLength(0);
    const end = lastState(events)!;
    expect(["failed", "waiting_human"]).toContain(end.to);
    expect(JSON.stringify(end)).toContain("shell");
    expect(payloads(events, "run.resumed")).toHaveLength(1);
  });

  it("skips a run that is not queued or running, and one that does not exist", async () => {
    const k = memoryKernel();
    const id = k.addRun();
    await k.store.transition(id, ["queued"], "canceled");
    expect(await driveRun(id, k.deps, plainControl())).toBe("skipped");
    expect(await driveRun("no-such-run", k.deps, plainControl())).toBe("skipped");
    expect(ofType(await k.events(id), "model.turn")).toHaveLength(0);
  });
});

describe("exportScenario (createKernel on a test database)", () => {
  it("replays a finished run, as a new run with that scenario, into the same tool calls", async () => {
    const tk = await testKernel();
    const actor = tk.actors.operator;
    const original = await createRun(tk.kernel, { goal: "Write fizzbuzz", agent: "demo-coder" }, actor);
    expect(await tk.settle(original.id)).toBe("succeeded");
    const scenario = await exportScenario(tk.kernel, original.id, actor);
    expect(scenario.turns).toHaveLength(6);

    const replay = await createRun(tk.kernel, { goal: "Write fizzbuzz again", agent: "demo-coder", scenario }, actor);
    expect(replay.scenarioGiven).toBe(true);
    expect(await tk.settle(replay.id)).toBe("succeeded");

    const calls = async (runId: string) =>
      payloads(await tk.kernel.store.listEvents(runId, 0, 10_000), "tool.call").map((p) => ({ tool: p.tool, args: p.args }));
    const originalCalls = await calls(original.id);
    expect(originalCalls.length).toBeGreaterThan(5);
    expect(await calls(replay.id)).toEqual(originalCalls);
    expect(await exportScenario(tk.kernel, replay.id, actor)).toEqual(scenario);
  });
});
