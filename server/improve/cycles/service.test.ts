// The hack-cycle service on a real SQLite database: the attempt limit, the
// time box, at most 2 deployments per session, and a restart in each state
// (resume, wait, gate, or abandon with a reason; never half-deployed).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, SILENT_LOG, type TestKernel } from "@/test/helpers/kernel";
import { Improve, MAX_DEPLOYS_PER_SESSION, type FrictionKind, type SessionRun } from "../index";

let tk: TestKernel;
let improve: Improve;
let seq = 0;

const TOOL = (name: string, total = 1) => ({
  name,
  description: "Returns a fixed total, for the cycle tests.",
  argsSchema: { type: "object", properties: { n: { type: "number" } } },
  source: "function run(args) { return { total: 1 }; }",
  replayClass: "pure",
  cases: [{ name: "one", args: { n: 1 }, expect: { ok: true, output: { total } } }],
});

/** A cycle as a given state leaves it: rows only, the improver run with `status` (or none). */
async function cycleIn(state: string, opts: { status?: string | null; deadlineMs?: number; session?: string } = {}) {
  const n = ++seq;
  const runId = `cycle-improver-${n}`;
  const session = opts.session ?? `cycle-session-${n}`;
  if (!(await tk.t.db.run.findUnique({ where: { id: session } }))) {
    await tk.t.db.run.create({
      data: {
        id: session,
        goal: "add up a column",
        agentName: "demo-csv",
        agentVersion: 1,
        model: "scripted/demo-csv",
        createdById: tk.actors.operator.userId,
        status: "succeeded",
      },
    });
  }
  const friction = await tk.t.db.friction.create({
    data: {
      kind: "repeated_failure",
      signature: `cycle-sig-${n}`,
      agentName: "demo-csv",
      title: "shell failed 3 times",
      tool: "shell",
      state: "improving",
    },
  });
  if (opts.status !== null) {
    await tk.t.db.run.create({
      data: {
        id: runId,
        goal: "improve",
        agentName: "improver",
        agentVersion: 1,
        model: "scripted/improver",
        createdById: tk.actors.operator.userId,
        status: opts.status ?? "running",
        workflow: "improve",
      },
    });
  }
  return tk.t.db.hackCycle.create({
    data: {
      frictionId: friction.id,
      agentName: "demo-csv",
      sessionRunId: session,
      state,
      improverRunId: opts.status === null ? null : runId,
      deadlineAt: new Date(Date.now() + (opts.deadlineMs ?? 600_000)),
    },
  });
}

const stateOf = async (id: string) => (await tk.t.db.hackCycle.findUniqueOrThrow({ where: { id } })).state;

beforeAll(async () => {
  tk = await createTestKernel();
  improve = new Improve({ db: tk.t.db, kernel: tk.kernel, log: SILENT_LOG });
  await improve.start({ sweepMs: 60_000 });
}, 60_000);

afterAll(async () => {
  await improve?.stop();
  await tk?.cleanup();
});

describe("attempts", () => {
  it("takes 3 proposals; the 4th abandons the cycle", async () => {
    const cycle = await cycleIn("ISOLATE");
    const runId = cycle.improverRunId!;
    for (let i = 1; i <= 3; i++) {
      const r = await improve.cycles.propose(runId, TOOL(`attempt_tool_${i}`));
      expect(r).toMatchObject({ attempt: i, attemptsLeft: 3 - i });
      await improve.cycles.test(runId, `attempt_tool_${i}`);
      expect(await stateOf(cycle.id)).toBe("TEST");
    }
    await expect(improve.cycles.propose(runId, TOOL("attempt_tool_4"))).rejects.toMatchObject({ code: "ATTEMPTS_USED" });
    const after = await tk.t.db.hackCycle.findUniqueOrThrow({ where: { id: cycle.id } });
    expect(after).toMatchObject({ state: "ABANDONED", attempts: 3 });
    expect(after.reason).toMatch(/3 attempts/);
    // Nothing of it went live; its last proposal is rejected with the reason.
    expect(await tk.t.db.improvement.count({ where: { cycleId: cycle.id, state: { not: "rejected" } } })).toBe(0);
  });

  it("the same proposal sent again (a retried call) is the stored one, not a new attempt", async () => {
    const cycle = await cycleIn("ISOLATE");
    const a = await improve.cycles.propose(cycle.improverRunId!, TOOL("retried_tool"));
    const b = await improve.cycles.propose(cycle.improverRunId!, TOOL("retried_tool"));
    expect(b.improvementId).toBe(a.improvementId);
    expect((await tk.t.db.hackCycle.findUniqueOrThrow({ where: { id: cycle.id } })).attempts).toBe(1);
  });
});

describe("a cycle answered with a skill", () => {
  it("ends in DEPLOY when the skill passed its review, linked to the friction", async () => {
    const cycle = await cycleIn("ISOLATE");
    const runId = cycle.improverRunId!;
    const skillMd = [
      "---",
      "name: csv-with-quotes",
      "description: How to add up a CSV column whose fields may be quoted and hold commas. Use it for CSV sums and totals.",
      "scope: { agents: [demo-csv] }",
      "tags: [csv]",
      "---",
      "Never split CSV rows on commas with awk or cut: quoted fields hold commas. Parse the CSV (a small parser or a CSV tool) and sum the column.",
      "",
    ].join("\n");
    const tool = tk.kernel.deps.registry.get("propose_skill")!;
    const ctx = {
      runId,
      toolCallId: "skill-call",
      workspace: tk.kernel.deps.workspaceFor(runId),
      agent: { name: "improver", handoffs: [] },
      actorId: tk.actors.operator.userId,
      signal: new AbortController().signal,
    };
    const proposed = (await tool.execute({ skillMd }, ctx)) as { state: string };
    expect(proposed.state).toBe("active");
    await tk.t.db.run.update({ where: { id: runId }, data: { status: "succeeded" } });
    await improve.cycles.improverEnded(runId);
    const after = await tk.t.db.hackCycle.findUniqueOrThrow({ where: { id: cycle.id } });
    expect(after.state).toBe("DEPLOY");
    const skill = await tk.t.db.improvement.findUniqueOrThrow({ where: { id: after.improvementId! } });
    expect(skill).toMatchObject({
      kind: "skill",
      name: "csv-with-quotes",
      state: "active",
      frictionId: cycle.frictionId,
      cycleId: cycle.id,
    });
    expect((await tk.t.db.friction.findUniqueOrThrow({ where: { id: cycle.frictionId } })).state).toBe("addressed");
  });
});

describe("the time box", () => {
  it("abandons a cycle past its deadline and stops its improver run", async () => {
    const cycle = await cycleIn("MODIFY", { deadlineMs: -1 });
    expect(await improve.cycles.tick()).toBeGreaterThanOrEqual(1);
    const after = await tk.t.db.hackCycle.findUniqueOrThrow({ where: { id: cycle.id } });
    expect(after.state).toBe("ABANDONED");
    expect(after.reason).toMatch(/time box/);
    expect((await tk.t.db.friction.findUniqueOrThrow({ where: { id: cycle.frictionId } })).state).toBe("open");
  });

  it("does not count time its improver spends waiting for a person", async () => {
    const cycle = await cycleIn("ISOLATE", { deadlineMs: -1, status: "waiting_human" });
    await improve.cycles.tick();
    const after = await tk.t.db.hackCycle.findUniqueOrThrow({ where: { id: cycle.id } });
    expect(after.state).toBe("ISOLATE");
    expect(after.deadlineAt.getTime()).toBeGreaterThan(Date.now());
  });
});

describe("at most 2 deployments per session", () => {
  it("the third gate of one session is refused, and no new cycle starts for it", async () => {
    const session = "cycle-session-busy";
    for (let i = 0; i < MAX_DEPLOYS_PER_SESSION + 1; i++) {
      const cycle = await cycleIn("ISOLATE", { session });
      await improve.cycles.propose(cycle.improverRunId!, TOOL(`session_tool_${i}`));
      await tk.t.db.run.update({ where: { id: cycle.improverRunId! }, data: { status: "succeeded" } });
      await improve.cycles.improverEnded(cycle.improverRunId!);
      const after = await tk.t.db.hackCycle.findUniqueOrThrow({ where: { id: cycle.id } });
      if (i < MAX_DEPLOYS_PER_SESSION) expect(after.state).toBe("DEPLOY");
      else expect(after).toMatchObject({ state: "ABANDONED", reason: expect.stringMatching(/already had 2/) });
    }
    const friction = await tk.t.db.friction.create({
      data: { kind: "repeated_failure", signature: "cycle-busy-again", agentName: "demo-csv", title: "again", tool: "shell" },
    });
    const run = (await tk.t.db.run.findUniqueOrThrow({ where: { id: session } })) as unknown as SessionRun;
    const started = await improve.cycles.detect(
      friction.id,
      { kind: "repeated_failure", signature: "cycle-busy-again", title: "again", tool: "shell", count: 3, evidence: [] },
      run,
    );
    expect(started).toBeNull();
  });
});

describe("what people chose starts no cycle", () => {
  // A policy rule, a person's rejection or edit, a limit and a take-over are signals: the improver must not work around them.
  it("a repeated policy denial, a rejection, a take-over and a dismissed friction start none; the agent's own struggle does", async () => {
    const session = await tk.t.db.run.create({
      data: {
        goal: "add up a column",
        agentName: "demo-csv",
        agentVersion: 1,
        model: "scripted/demo-csv",
        createdById: tk.actors.operator.userId,
        status: "running",
      },
    });
    const run = session as unknown as SessionRun;
    const observe = async (kind: FrictionKind, signature: string, state = "open") => {
      const f = await tk.t.db.friction.create({
        data: { kind, signature, agentName: "demo-csv", title: signature, state, stateReason: "known" },
      });
      return improve.cycles.detect(f.id, { kind, signature, title: signature, tool: "shell", count: 3, evidence: [] }, run);
    };
    expect(await observe("repeated_failure", "repeated_failure|shell|POLICY_DENIED|rule 2 denies rm")).toBeNull();
    expect(await observe("human_rejected", "human_rejected|shell|rule 1")).toBeNull();
    expect(await observe("human_takeover", "human_takeover|terminal")).toBeNull();
    expect(await observe("budget_stop", "budget_stop|RUN_BUDGET_EXCEEDED")).toBeNull();
    expect(await observe("repeated_failure", "repeated_failure|shell|exit:1|awk: not a number", "dismissed")).toBeNull();
    expect(await tk.t.db.hackCycle.count({ where: { sessionRunId: session.id } })).toBe(0);
    expect(await observe("repeated_failure", "repeated_failure|shell|exit:2|awk: syntax error")).not.toBeNull();
    expect(await tk.t.db.hackCycle.count({ where: { sessionRunId: session.id } })).toBe(1);
  });
});

describe("a restart in each state", () => {
  it("resumes, waits, gates or abandons, and never leaves a half-deployed tool", async () => {
    const detect = await cycleIn("DETECT", { status: null });
    const waiting = await cycleIn("TEST", { status: "running" });
    const endedWell = await cycleIn("ISOLATE");
    await improve.cycles.propose(endedWell.improverRunId!, TOOL("restart_tool"));
    await tk.t.db.hackCycle.update({ where: { id: endedWell.id }, data: { state: "GATE" } });
    await tk.t.db.run.update({ where: { id: endedWell.improverRunId! }, data: { status: "succeeded" } });
    const failed = await cycleIn("MODIFY", { status: "failed" });
    const late = await cycleIn("TEST", { status: "running", deadlineMs: -1 });

    await improve.stop();
    improve = new Improve({ db: tk.t.db, kernel: tk.kernel, log: SILENT_LOG });
    const started = await improve.start({ sweepMs: 60_000 });
    expect(started.cycles.abandoned).toBe(2);

    // DETECT with no improver run: the evidence is gathered again and its improver run starts.
    const resumed = await tk.t.db.hackCycle.findUniqueOrThrow({ where: { id: detect.id } });
    expect(resumed.state).toBe("ISOLATE");
    expect(await tk.t.db.run.findUnique({ where: { id: resumed.improverRunId! } })).toMatchObject({
      agentName: "improver",
      workflow: "improve",
    });
    expect(await stateOf(waiting.id)).toBe("TEST");
    expect(await stateOf(endedWell.id)).toBe("DEPLOY");
    expect(tk.kernel.deps.registry.get("restart_tool")).toBeDefined();
    expect(await tk.t.db.hackCycle.findUniqueOrThrow({ where: { id: failed.id } })).toMatchObject({
      state: "ABANDONED",
      reason: expect.stringMatching(/ended without passing the gate/),
    });
    expect(await tk.t.db.hackCycle.findUniqueOrThrow({ where: { id: late.id } })).toMatchObject({
      state: "ABANDONED",
      reason: expect.stringMatching(/time box/),
    });
    // Every active tool row is in the registry, and every registered runtime tool has an active row.
    const active = await tk.t.db.improvement.findMany({ where: { kind: "runtime_tool", state: "active" }, select: { name: true } });
    expect(new Set(improve.live.list().map((t) => t.name))).toEqual(new Set(active.map((a) => a.name)));
  }, 60_000);
});
