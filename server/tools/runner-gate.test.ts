// The ToolRunner and its CallGate (docs/runs.md#replay-safety,
// docs/human-requests-and-policy.md#how-a-call-is-decided): what each verdict
// does to a call, and how an unsafe call left as a bare intent goes to a person
// (replayUnknown) instead of running again. The tools count their executions,
// so a test fails if a gated call runs.
import os from "node:os";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  MemoryReplayCache,
  ReplayUnsafeError,
  ToolRegistry,
  ToolRunner,
  Workspace,
  inputHash,
  type CacheKey,
  type CallAddress,
  type CallGate,
  type GateCall,
  type GateVerdict,
  type ReplayCache,
  type ReplayClass,
  type ToolContext,
  type ToolDefinition,
} from "./index";

type Args = { n: number; tag?: string };

const ADDRESS: CallAddress = { runId: "run-gate", nodeId: "3:call_2_0", checkpointId: "checkpoint-5" };

function countingTool(name: string, replayClass: ReplayClass) {
  const executions: Args[] = [];
  const tool: ToolDefinition<Args> = {
    name,
    description: `test tool (${replayClass})`,
    args: z.object({ n: z.number().int(), tag: z.string().optional() }).strict(),
    replayClass,
    persistence: "none",
    ...(replayClass === "idempotent_with_key" ? { idempotencyKey: (a: Args) => `key-${a.n}` } : {}),
    async execute(args) {
      executions.push(args);
      return { doubled: args.n * 2, tag: args.tag ?? null };
    },
  };
  return { tool, executions };
}

/** A gate whose answers the test sets; it records what it was asked. */
class FakeGate implements CallGate {
  checks: GateCall[] = [];
  replays: GateCall[] = [];
  constructor(
    public onCheck: (call: GateCall) => GateVerdict = (call) => ({ kind: "proceed", args: call.args, note: { policy: POLICY_NOTE } }),
    public onReplay: (call: GateCall) => GateVerdict = () => {
      throw new Error("replayUnknown was not expected here");
    },
  ) {}
  async check(call: GateCall) {
    this.checks.push(call);
    return this.onCheck(call);
  }
  async replayUnknown(call: GateCall) {
    this.replays.push(call);
    return this.onReplay(call);
  }
}

const POLICY_NOTE = { effect: "allow", level: "tool", rule: 2, reason: "built-in tools", version: 1 };
const WAITING = { id: "req-1", kind: "approve", title: "Call t?", requiredRole: "approver", expiresAt: "2030-01-01T00:00:00.000Z" };

/** Records cache writes, so a test can tell a reused intent row from a new one. */
function recording(inner: ReplayCache) {
  const intents: CacheKey[] = [];
  const results: CacheKey[] = [];
  const cache: ReplayCache = {
    get: (key) => inner.get(key),
    async writeIntent(key, rc) {
      intents.push({ ...key });
      return inner.writeIntent(key, rc);
    },
    async writeResult(key, rc, outcome) {
      results.push({ ...key });
      return inner.writeResult(key, rc, outcome);
    },
  };
  return { cache, intents, results };
}

function keyOf(tool: ToolDefinition<Args>, args: Args): CacheKey {
  return { ...ADDRESS, toolName: tool.name, inputHash: inputHash(args, tool.idempotencyKey?.(args)) };
}

function ctx(): ToolContext {
  return {
    runId: ADDRESS.runId,
    workspace: new Workspace(os.tmpdir()),
    agent: { name: "tester", handoffs: [] },
    actorId: "user-test",
    signal: new AbortController().signal,
  };
}

let memory: ReplayCache;
let rec: ReturnType<typeof recording>;

beforeEach(() => {
  memory = new MemoryReplayCache();
  rec = recording(memory);
});

function runnerFor(tool: ToolDefinition<Args>, gate?: CallGate) {
  const runner = new ToolRunner(new ToolRegistry([tool]), rec.cache, gate);
  return (args: unknown) => runner.run({ toolCallId: "call_2_0", toolName: tool.name, args }, ADDRESS, ctx(), [tool.name]);
}

describe("the gate before a call", () => {
  it("proceed: the tool runs once with the checked arguments, and the result carries the gate's note", async () => {
    const { tool, executions } = countingTool("t", "unsafe_on_replay");
    const gate = new FakeGate();
    const result = await runnerFor(tool, gate)({ n: 2 });
    expect(result).toMatchObject({ outcome: { ok: true, output: { doubled: 4 } }, cached: false, gate: { policy: POLICY_NOTE } });
    expect(executions).toEqual([{ n: 2 }]);
    expect(gate.checks).toHaveLength(1);
    expect(gate.checks[0]).toMatchObject({ tool: { name: "t" }, args: { n: 2 }, address: ADDRESS });
    expect(gate.replays).toHaveLength(0);
    expect(await memory.get(keyOf(tool, { n: 2 }))).toEqual({ status: "done", outcome: result.outcome });
  });

  it("is asked only after the arguments are valid: invalid ones never reach it", async () => {
    const { tool, executions } = countingTool("t", "pure");
    const gate = new FakeGate();
    const result = await runnerFor(tool, gate)({ n: "two" });
    expect(result.outcome).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENTS" } });
    expect(gate.checks).toHaveLength(0);
    expect(executions).toHaveLength(0);
  });

  it("proceed with edited arguments: the tool runs with them, cached under them", async () => {
    const { tool, executions } = countingTool("t", "unsafe_on_replay");
    const gate = new FakeGate(() => ({ kind: "proceed", args: { n: 5, tag: "edited" } }));
    const result = await runnerFor(tool, gate)({ n: 2 });
    expect(result.outcome).toEqual({ ok: true, output: { doubled: 10, tag: "edited" } });
    expect(executions).toEqual([{ n: 5, tag: "edited" }]);
    expect(rec.intents.map((k) => k.inputHash)).toEqual([keyOf(tool, { n: 5, tag: "edited" }).inputHash]);
    expect(await memory.get(keyOf(tool, { n: 2 }))).toBeNull();
  });

  it("proceed with edited arguments: the result's gate note names the arguments the call ran with", async () => {
    const { tool } = countingTool("t", "pure");
    const gate = new FakeGate(() => ({ kind: "proceed", args: { n: 5, tag: "edited" }, note: { requestId: "req-1" } }));
    const result = await runnerFor(tool, gate)({ n: 2 });
    expect(result.gate).toEqual({ requestId: "req-1", args: { n: 5, tag: "edited" } });
  });

  it("proceed with the call's own arguments: the gate note carries no arguments", async () => {
    const { tool } = countingTool("t", "pure");
    const result = await runnerFor(tool, new FakeGate())({ n: 2 });
    expect(result.gate).not.toHaveProperty("args");
  });

  it("proceed with invalid edited arguments: INVALID_ARGUMENTS naming the problem; the tool does not run and nothing is cached", async () => {
    const { tool, executions } = countingTool("t", "unsafe_on_replay");
    const gate = new FakeGate(() => ({ kind: "proceed", args: { n: 1.5, extra: true }, note: { requestId: "req-9" } }));
    const result = await runnerFor(tool, gate)({ n: 2 });
    expect(result.outcome).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENTS" } });
    const message = (result.outcome as { error: { message: string } }).error.message;
    expect(message).toContain("The edited arguments for t are not valid");
    expect(message).toMatch(/n: /);
    expect(result.gate).toEqual({ requestId: "req-9" });
    expect(executions).toHaveLength(0);
    expect(rec.intents).toHaveLength(0);
    expect(rec.results).toHaveLength(0);
  });

  it("result: the model sees the gate's outcome, the tool never runs, nothing is cached", async () => {
    const { tool, executions } = countingTool("t", "unsafe_on_replay");
    const outcome = { ok: false as const, error: { code: "POLICY_DENIED", message: "Policy does not allow t here" } };
    const gate = new FakeGate(() => ({ kind: "result", outcome, note: { policy: { ...POLICY_NOTE, effect: "deny" } } }));
    const run = runnerFor(tool, gate);
    for (let i = 0; i < 3; i++) {
      const result = await run({ n: 2 });
      expect(result).toMatchObject({ outcome, cached: false, replayClass: "unsafe_on_replay", gate: { policy: { effect: "deny" } } });
      expect(result.waitingFor).toBeUndefined();
      expect(result.cancelRun).toBeUndefined();
    }
    expect(executions).toHaveLength(0);
    expect(rec.intents).toHaveLength(0);
    expect(rec.results).toHaveLength(0);
  });

  it("result with a person's answer (ask_human): the answer is the output; execute is not called", async () => {
    const { tool, executions } = countingTool("ask", "pure");
    const gate = new FakeGate(() => ({ kind: "result", outcome: { ok: true, output: { optionId: "short" } } }));
    const result = await runnerFor(tool, gate)({ n: 1 });
    expect(result.outcome).toEqual({ ok: true, output: { optionId: "short" } });
    expect(executions).toHaveLength(0);
  });

  it("wait: waitingFor names the request, the tool never runs, no intent is written", async () => {
    const { tool, executions } = countingTool("t", "unsafe_on_replay");
    const gate = new FakeGate(() => ({ kind: "wait", request: WAITING, created: true, note: { requestId: WAITING.id } }));
    const result = await runnerFor(tool, gate)({ n: 2 });
    expect(result.waitingFor).toEqual(WAITING);
    expect(result.outcome).toMatchObject({ ok: false, error: { code: "WAITING_FOR_HUMAN" } });
    expect(result.gate).toEqual({ requestId: WAITING.id });
    expect(result.cancelRun).toBeUndefined();
    expect(executions).toHaveLength(0);
    expect(rec.intents).toHaveLength(0);
    expect(await memory.get(keyOf(tool, { n: 2 }))).toBeNull();
  });

  it("cancel: cancelRun carries the reason and the tool never runs", async () => {
    const { tool, executions } = countingTool("t", "pure");
    const gate = new FakeGate(() => ({ kind: "cancel", reason: "Ada canceled the run" }));
    const result = await runnerFor(tool, gate)({ n: 2 });
    expect(result.cancelRun).toBe("Ada canceled the run");
    expect(result.outcome).toMatchObject({ ok: false, error: { code: "CANCELED_BY_HUMAN", message: "Ada canceled the run" } });
    expect(executions).toHaveLength(0);
  });

  it("is asked before the cache: a cached result is returned only after the gate lets the call through", async () => {
    const { tool, executions } = countingTool("t", "pure");
    await memory.writeResult(keyOf(tool, { n: 2 }), "pure", { ok: true, output: "from the cache" });
    const gate = new FakeGate(() => ({ kind: "wait", request: WAITING, created: false }));
    const waiting = await runnerFor(tool, gate)({ n: 2 });
    expect(waiting.waitingFor).toEqual(WAITING);
    gate.onCheck = (call) => ({ kind: "proceed", args: call.args });
    const cached = await runnerFor(tool, gate)({ n: 2 });
    expect(cached).toMatchObject({ outcome: { ok: true, output: "from the cache" }, cached: true });
    expect(executions).toHaveLength(0);
  });
});

describe("an unsafe call with an intent and no result", () => {
  async function interrupted(args: Args = { n: 2 }) {
    const made = countingTool("send", "unsafe_on_replay");
    await memory.writeIntent(keyOf(made.tool, args), "unsafe_on_replay");
    rec.intents.length = 0;
    return made;
  }

  it("asks replayUnknown once (check is not asked twice) and waits while nobody has answered", async () => {
    const { tool, executions } = await interrupted();
    const gate = new FakeGate(undefined, () => ({
      kind: "wait",
      request: { ...WAITING, kind: "choose" },
      created: true,
      note: { requestId: "req-replay" },
    }));
    const result = await runnerFor(tool, gate)({ n: 2 });
    expect(gate.checks).toHaveLength(1);
    expect(gate.replays).toHaveLength(1);
    expect(gate.replays[0]).toMatchObject({ tool: { name: "send" }, args: { n: 2 }, address: ADDRESS });
    expect(result.waitingFor).toMatchObject({ kind: "choose" });
    expect(result.gate).toEqual({ requestId: "req-replay" });
    expect(executions).toHaveLength(0);
    expect(await memory.get(keyOf(tool, { n: 2 }))).toEqual({ status: "intent" });
  });

  it("retry with the same arguments: runs once and completes the existing intent row", async () => {
    const { tool, executions } = await interrupted();
    const gate = new FakeGate(undefined, (call) => ({
      kind: "proceed",
      args: call.args,
      note: { requestId: "req-replay", decidedBy: "user-ada" },
    }));
    const run = runnerFor(tool, gate);
    const result = await run({ n: 2 });
    expect(result).toMatchObject({
      outcome: { ok: true, output: { doubled: 4 } },
      cached: false,
      gate: { requestId: "req-replay", decidedBy: "user-ada" },
    });
    expect(executions).toEqual([{ n: 2 }]);
    expect(rec.intents).toHaveLength(0); // the intent row is reused
    expect(rec.results).toEqual([keyOf(tool, { n: 2 })]);
    expect(await memory.get(keyOf(tool, { n: 2 }))).toEqual({ status: "done", outcome: result.outcome });

    // Resumed again: the result is cached; nobody is asked and nothing runs.
    const again = await run({ n: 2 });
    expect(again).toMatchObject({ outcome: result.outcome, cached: true });
    expect(gate.replays).toHaveLength(1);
    expect(executions).toHaveLength(1);
  });

  it("retry with new arguments: runs once with them, under an intent row of their own; the old one stays", async () => {
    const { tool, executions } = await interrupted();
    const gate = new FakeGate(undefined, () => ({ kind: "proceed", args: { n: 3, tag: "fixed" } }));
    const result = await runnerFor(tool, gate)({ n: 2 });
    expect(result.outcome).toEqual({ ok: true, output: { doubled: 6, tag: "fixed" } });
    expect(executions).toEqual([{ n: 3, tag: "fixed" }]);
    const fresh = keyOf(tool, { n: 3, tag: "fixed" });
    expect(rec.intents).toEqual([fresh]);
    expect(rec.results).toEqual([fresh]);
    expect(await memory.get(fresh)).toEqual({ status: "done", outcome: result.outcome });
    expect(await memory.get(keyOf(tool, { n: 2 }))).toEqual({ status: "intent" });
  });

  it("retry with invalid new arguments: INVALID_ARGUMENTS; nothing runs or is written", async () => {
    const { tool, executions } = await interrupted();
    const gate = new FakeGate(undefined, () => ({ kind: "proceed", args: { n: "three" } }));
    const result = await runnerFor(tool, gate)({ n: 2 });
    expect(result.outcome).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENTS" } });
    expect((result.outcome as { error: { message: string } }).error.message).toContain("The new arguments for send are not valid");
    expect(executions).toHaveLength(0);
    expect(rec.intents).toHaveLength(0);
    expect(rec.results).toHaveLength(0);
  });

  it("a retry with new arguments that was itself interrupted is not run a third time without a person", async () => {
    const { tool, executions } = await interrupted();
    await memory.writeIntent(keyOf(tool, { n: 3 }), "unsafe_on_replay");
    const gate = new FakeGate(undefined, () => ({ kind: "proceed", args: { n: 3 } }));
    await expect(runnerFor(tool, gate)({ n: 2 })).rejects.toBeInstanceOf(ReplayUnsafeError);
    expect(executions).toHaveLength(0);
  });

  it("skip: the tool does not run; the model is told it was skipped", async () => {
    const { tool, executions } = await interrupted();
    const outcome = { ok: false as const, error: { code: "SKIPPED_BY_HUMAN", message: "A person chose to skip send" } };
    const gate = new FakeGate(undefined, () => ({ kind: "result", outcome }));
    const result = await runnerFor(tool, gate)({ n: 2 });
    expect(result.outcome).toEqual(outcome);
    expect(result.cancelRun).toBeUndefined();
    expect(executions).toHaveLength(0);
    expect(rec.results).toHaveLength(0);
    expect(await memory.get(keyOf(tool, { n: 2 }))).toEqual({ status: "intent" });
  });

  it("cancel: cancelRun is set and the tool does not run", async () => {
    const { tool, executions } = await interrupted();
    const gate = new FakeGate(undefined, () => ({
      kind: "cancel",
      reason: "Ada canceled the run after an interrupted send call",
      note: { requestId: "req-replay" },
    }));
    const result = await runnerFor(tool, gate)({ n: 2 });
    expect(result.cancelRun).toBe("Ada canceled the run after an interrupted send call");
    expect(result.outcome).toMatchObject({ ok: false, error: { code: "CANCELED_BY_HUMAN" } });
    expect(result.gate).toEqual({ requestId: "req-replay" });
    expect(executions).toHaveLength(0);
  });

  it("is not asked when the gate stops the call first", async () => {
    const { tool, executions } = await interrupted();
    const gate = new FakeGate(() => ({ kind: "result", outcome: { ok: false, error: { code: "POLICY_DENIED", message: "no" } } }));
    const result = await runnerFor(tool, gate)({ n: 2 });
    expect(result.outcome).toMatchObject({ ok: false, error: { code: "POLICY_DENIED" } });
    expect(gate.replays).toHaveLength(0);
    expect(executions).toHaveLength(0);
  });

  it("without a gate, still throws ReplayUnsafeError and runs nothing", async () => {
    const { tool, executions } = await interrupted();
    const err = await runnerFor(tool)({ n: 2 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReplayUnsafeError);
    expect(err).toMatchObject({ toolName: "send", address: ADDRESS });
    expect(executions).toHaveLength(0);
    expect(await memory.get(keyOf(tool, { n: 2 }))).toEqual({ status: "intent" });
  });

  it.each(["pure", "idempotent_with_key"] as ReplayClass[])(
    "a %s tool with a leftover intent runs again without asking anyone",
    async (replayClass) => {
      const { tool, executions } = countingTool("safe", replayClass);
      await memory.writeIntent(keyOf(tool, { n: 4 }), replayClass);
      const gate = new FakeGate();
      const result = await runnerFor(tool, gate)({ n: 4 });
      expect(result.outcome).toMatchObject({ ok: true, output: { doubled: 8 } });
      expect(executions).toEqual([{ n: 4 }]);
      expect(gate.replays).toHaveLength(0);
    },
  );
});
