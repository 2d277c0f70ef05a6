// Attack suite: self-improvement (docs/security.md#the-attack-suite). The
// improver is an agent and everything it writes is hostile: it cannot shadow a
// built-in tool, smuggle a state, trust or use count into its proposal, take a
// capability no admin allowed, get a proposal past the gate by claiming its
// cases passed, or use a pattern that backtracks. An agent that is not an
// improver of a cycle cannot propose at all. A runtime tool reaches nothing of
// the host, and workspace:read reads only its own run's workspace. People of
// another team neither see nor switch off a team's improvements.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor } from "@/test/helpers/services";
import { ToolError, workspaceFor } from "@/server/tools";
import {
  Improve,
  mineRun,
  recordFriction,
  runRuntimeTool,
  saveImproveSettings,
  signalOnlyBecause,
  type SessionRun,
} from "@/server/improve";
import { createTestKernel, SILENT_LOG, type TestKernel } from "../helpers/kernel";
import { rejection } from "../helpers/rejects";
import { agentPeople, type AgentPeople } from "../helpers/agents";
import { trpcError } from "../helpers/trpc";

let tk: TestKernel;
let p: AgentPeople;
let improve: Improve;
let dataDir: string;

const GOOD = {
  name: "csv_column_sum",
  description: "Adds up one numeric column of CSV text with quoted fields.",
  argsSchema: { type: "object", properties: { csv: { type: "string" }, column: { type: "string" } }, required: ["csv", "column"] },
  source: "function run(args) { return { total: 1 }; }",
  replayClass: "pure",
  capabilities: [],
  cases: [{ name: "one", args: { csv: "a\n1\n", column: "a" }, expect: { ok: true, output: { total: 1 } } }],
};

/** A cycle in ISOLATE whose improver run is `runId`, as ISOLATE leaves it (rows only). */
async function cycleFor(runId: string, status = "running") {
  const friction = await tk.t.db.friction.create({
    data: { kind: "repeated_failure", signature: `sig-${runId}`, agentName: "demo-csv", title: "shell failed 3 times", tool: "shell" },
  });
  await tk.t.db.run.create({
    data: {
      id: runId,
      goal: "improve",
      agentName: "improver",
      agentVersion: 1,
      model: "scripted/improver",
      createdById: tk.actors.operator.userId,
      status,
      workflow: "improve",
    },
  });
  return tk.t.db.hackCycle.create({
    data: {
      frictionId: friction.id,
      agentName: "demo-csv",
      sessionRunId: `session-${runId}`,
      state: "ISOLATE",
      improverRunId: runId,
      deadlineAt: new Date(Date.now() + 600_000),
    },
  });
}

const refused = (p: Promise<unknown>) => rejection(p, ToolError);

beforeAll(async () => {
  tk = await createTestKernel();
  p = await agentPeople(tk);
  improve = new Improve({ db: tk.t.db, kernel: tk.kernel, log: SILENT_LOG });
  await improve.start({ sweepMs: 60_000 });
  dataDir = path.dirname(tk.kernel.deps.workspaceFor("x").root);
}, 60_000);

afterAll(async () => {
  await improve?.stop();
  await tk?.cleanup();
});

describe("what the improver proposes", () => {
  it("cannot take the name of a built-in tool; nothing is stored and no attempt is used", async () => {
    const cycle = await cycleFor("imp-shadow");
    for (const name of ["shell", "write_file", "load_skill", "propose_runtime_tool"]) {
      const err = await refused(improve.cycles.propose("imp-shadow", { ...GOOD, name }));
      expect(err.code).toBe("INVALID_PROPOSAL");
      expect(err.message).toContain(`${name} is the name of a built-in tool`);
    }
    expect(await tk.t.db.improvement.count({ where: { cycleId: cycle.id } })).toBe(0);
    expect((await tk.t.db.hackCycle.findUniqueOrThrow({ where: { id: cycle.id } })).attempts).toBe(0);
  });

  it("cannot set its own state, trust, uses, scope or results", async () => {
    await cycleFor("imp-smuggle");
    for (const extra of [
      { state: "active" },
      { uses: 100, successes: 100 },
      { scopeAgents: ["*"] },
      { caseResults: { passed: 1, failed: 0 } },
      { promoted: true },
    ]) {
      const err = await refused(improve.cycles.propose("imp-smuggle", { ...GOOD, ...extra }));
      expect(err.code).toBe("INVALID_PROPOSAL");
    }
    expect(await tk.t.db.improvement.count({ where: { authorRunId: "imp-smuggle" } })).toBe(0);
  });

  it("cannot take a capability no admin allowed", async () => {
    await cycleFor("imp-capability");
    const err = await refused(improve.cycles.propose("imp-capability", { ...GOOD, capabilities: ["workspace:read"] }));
    expect(err.message).toContain("capability workspace:read is not allowed");
  });

  it("cannot use a pattern that is not linear, and a nested quantifier runs in linear time", async () => {
    await cycleFor("imp-pattern");
    const backref = {
      ...GOOD,
      argsSchema: { type: "object", properties: { csv: { type: "string", pattern: "^(a)\\1$" }, column: { type: "string" } } },
    };
    expect((await refused(improve.cycles.propose("imp-pattern", backref))).message).toMatch(/pattern .* cannot be used/);
    const nested = {
      ...GOOD,
      argsSchema: { type: "object", properties: { csv: { type: "string", pattern: "^(a+)+$" }, column: { type: "string" } } },
      cases: [{ name: "evil", args: { csv: "a".repeat(5_000) + "!", column: "a" }, expect: { ok: false } }],
    };
    const err = await refused(improve.cycles.propose("imp-pattern", nested));
    expect(err.message).toContain("its args do not match argsSchema");
  });

  it("is refused outside an improver run of a cycle", async () => {
    const err = await refused(improve.cycles.propose("some-other-run", GOOD));
    expect(err.code).toBe("NO_CYCLE");
    expect(await refused(improve.cycles.test("some-other-run", "csv_column_sum"))).toMatchObject({ code: "NO_CYCLE" });
  });

  it("does not get past the gate by ending its run: the gate runs the stored cases itself", async () => {
    const cycle = await cycleFor("imp-liar");
    // Its cases expect 2; the code returns 1. The agent never tests and says it is done.
    await improve.cycles.propose("imp-liar", {
      ...GOOD,
      name: "liar_tool",
      cases: [{ name: "claims", args: { csv: "a\n1\n", column: "a" }, expect: { ok: true, output: { total: 2 } } }],
    });
    await tk.t.db.run.update({ where: { id: "imp-liar" }, data: { status: "succeeded" } });
    await improve.cycles.improverEnded("imp-liar");
    const after = await tk.t.db.hackCycle.findUniqueOrThrow({ where: { id: cycle.id } });
    expect(after.state).toBe("ABANDONED");
    expect(after.reason).toContain("The gate failed");
    expect((await tk.t.db.improvement.findFirstOrThrow({ where: { cycleId: cycle.id } })).state).toBe("rejected");
    expect(tk.kernel.deps.registry.get("liar_tool")).toBeUndefined();
  });
});

describe("what the improver is asked to answer", () => {
  // A rule a person wrote is not friction to engineer around: a run its policy keeps denying must not start a cycle whose
  // improver would be asked to reach the same effect another way (docs/improvements.md#friction).
  it("a call the policy denies again and again starts no hack cycle, though it is recorded as a signal", async () => {
    const session = await tk.t.db.run.create({
      data: {
        goal: "clean up",
        agentName: "demo-csv",
        agentVersion: 1,
        model: "scripted/demo-csv",
        createdById: tk.actors.operator.userId,
        status: "running",
      },
    });
    const denied = (seq: number, step: number) => [
      {
        runId: session.id,
        seq,
        type: "tool.call",
        payload: { step, tool: "shell", toolCallId: `c${seq}`, args: { command: "rm -rf /data" } },
      },
      {
        runId: session.id,
        seq: seq + 1,
        type: "tool.result",
        payload: {
          step,
          tool: "shell",
          toolCallId: `c${seq}`,
          ok: false,
          error: { code: "POLICY_DENIED", message: "rule 2 denies rm -rf" },
        },
      },
    ];
    const events = [...denied(1, 1), ...denied(3, 2), ...denied(5, 3)].map((e) => ({ ...e, at: new Date(), actor: "agent" }));
    const [observation] = mineRun(events as unknown as Parameters<typeof mineRun>[0], { repeatThreshold: 3 });
    expect(observation).toMatchObject({ kind: "repeated_failure", count: 3 });
    const recorded = await recordFriction(tk.t.db, observation, { id: session.id, agentName: "demo-csv", teamId: null });
    expect(await improve.cycles.detect(recorded.id, observation, session as unknown as SessionRun)).toBeNull();
    expect(await tk.t.db.hackCycle.count({ where: { frictionId: recorded.id } })).toBe(0);
    expect(signalOnlyBecause(observation.kind, observation.signature)).toMatch(/policy rule/);
    // The same failures for a reason of the agent's own do start one: the refusal above is the rule's, not a switch left off.
    const struggle = { ...observation, signature: "repeated_failure|shell|exit:1|rm: cannot remove <path>" };
    const own = await recordFriction(tk.t.db, struggle, { id: session.id, agentName: "demo-csv", teamId: null });
    expect(await improve.cycles.detect(own.id, struggle, session as unknown as SessionRun)).not.toBeNull();
  });
});

describe("a runtime tool's reach", () => {
  it("finds nothing of the host: no require, process, fetch, or a way out through Function or eval", async () => {
    const source = `function run() {
      const probe = (f) => { try { return f(); } catch (e) { return "threw"; } };
      return {
        require: typeof require, process: typeof process, fetch: typeof fetch, xhr: typeof XMLHttpRequest,
        viaFunction: probe(() => Function("return typeof process")()),
        viaEval: probe(() => (0, eval)("typeof require")),
        viaConstructor: probe(() => ({}).constructor.constructor("return typeof process")()),
        env: probe(() => JSON.stringify(Object.keys(globalThis))),
      };
    }`;
    const out = await runRuntimeTool(source, {}, {});
    expect(out.ok).toBe(true);
    const o = (out as { output: Record<string, string> }).output;
    expect([o.require, o.process, o.fetch, o.xhr, o.viaFunction, o.viaEval, o.viaConstructor]).toEqual(Array(7).fill("undefined"));
    expect(o.env).not.toMatch(/process|require|Buffer|__dirname/);
  });

  it("with workspace:read allowed, reads its own run's files and nothing of another run", async () => {
    await saveImproveSettings(tk.t.db, { allowedCapabilities: ["workspace:read"] }, { id: tk.actors.admin.userId, name: "admin" });
    const mine = workspaceFor(dataDir, "attack-mine");
    const other = workspaceFor(dataDir, "attack-other");
    await mine.ensure();
    await other.ensure();
    fs.writeFileSync(path.join(other.root, "secret.txt"), "OTHER-RUN-SECRET\n");
    fs.writeFileSync(path.join(mine.root, "data.csv"), "a\n1\n");
    fs.symlinkSync(path.join(other.root, "secret.txt"), path.join(mine.root, "link.txt"));
    const ctx = { runId: "attack-mine", workspace: mine } as never;
    const host = await improve.live.hostFor(["workspace:read"], ctx);
    const source = `async function run(args, rein) { try { return { text: await rein.readFile(args.path) }; } catch (e) { return { refused: String(e && e.message || e) }; } }`;
    const own = await runRuntimeTool(source, { path: "data.csv" }, host);
    expect(own).toMatchObject({ ok: true, output: { text: "a\n1\n" } });
    for (const p of ["../attack-other/secret.txt", path.join(other.root, "secret.txt"), "link.txt"]) {
      const out = await runRuntimeTool(source, { path: p }, host);
      expect(JSON.stringify(out)).not.toContain("OTHER-RUN-SECRET");
    }
  });
});

describe("people of another team", () => {
  it("neither see nor switch off a team's improvement, over tRPC", async () => {
    const row = await tk.t.db.improvement.create({
      data: {
        tier: 1,
        kind: "runtime_tool",
        name: "beta_tool",
        version: 1,
        state: "active",
        source: "function run(){return 1}",
        argsSchema: '{"type":"object"}',
        scopeAgents: "[]",
        scopeTeams: JSON.stringify([p.betaId]),
      },
    });
    const alpha = callerFor(tk, p.alphaOperator, { improve });
    const list = await alpha.improvements.list({});
    expect(list.improvements.map((i) => i.id)).not.toContain(row.id);
    expect((await trpcError(alpha.improvements.get({ id: row.id }))).code).toBe("NOT_FOUND");
    expect((await trpcError(alpha.improvements.disable({ id: row.id }))).code).toBe("NOT_FOUND");
    const beta = callerFor(tk, p.betaOperator, { improve });
    expect((await beta.improvements.get({ id: row.id })).name).toBe("beta_tool");
    expect((await tk.t.db.improvement.findUniqueOrThrow({ where: { id: row.id } })).state).toBe("active");
  });

  it("see no other team's runs, goals or evidence through an improvement or skill made for everyone", async () => {
    const betaRun = await tk.t.db.run.create({
      data: {
        goal: "BETA-SECRET-GOAL",
        agentName: "demo-csv",
        agentVersion: 1,
        model: "scripted/demo-csv",
        teamId: p.betaId,
        createdById: p.betaOperator.userId,
        status: "succeeded",
      },
    });
    const tool = await tk.t.db.improvement.create({
      data: {
        tier: 1,
        kind: "runtime_tool",
        name: "shared_tool",
        version: 1,
        state: "active",
        source: "function run(){return 1}",
        argsSchema: '{"type":"object"}',
        scopeAgents: '["demo-csv"]',
        scopeTeams: "[]",
      },
    });
    const friction = await tk.t.db.friction.create({
      data: {
        kind: "repeated_failure",
        signature: "shared-sig",
        agentName: "demo-csv",
        title: "shell failed",
        tool: "shell",
        teamId: null,
      },
    });
    await tk.t.db.frictionOccurrence.create({
      data: {
        frictionId: friction.id,
        runId: betaRun.id,
        count: 3,
        evidence: JSON.stringify([{ runId: betaRun.id, seq: 4, excerpt: "BETA-SECRET-EXCERPT" }]),
      },
    });
    await tk.t.db.improvement.update({ where: { id: tool.id }, data: { frictionId: friction.id } });
    await tk.t.db.improvementUse.create({ data: { improvementId: tool.id, runId: betaRun.id, toolCallId: "c1", ok: true } });
    const skill = await tk.t.db.improvement.create({
      data: {
        tier: 3,
        kind: "skill",
        name: "shared-skill",
        version: 1,
        state: "active",
        description: "A skill for everyone, for the attack test.",
        source: "---\nname: shared-skill\n---\nbody\n",
      },
    });
    await tk.t.db.improvementUse.create({ data: { improvementId: skill.id, runId: betaRun.id, toolCallId: "c2", ok: true } });

    const alpha = callerFor(tk, p.alphaOperator, { improve });
    const seen = JSON.stringify([
      await alpha.improvements.get({ id: tool.id }),
      await alpha.improvements.friction({}),
      await alpha.improvements.dashboard({ days: 30 }),
      await alpha.skills.get({ name: "shared-skill" }),
      await alpha.skills.list(),
    ]);
    for (const secret of [betaRun.id, "BETA-SECRET-GOAL", "BETA-SECRET-EXCERPT"]) expect(seen).not.toContain(secret);
    // The team that ran it sees its own run there.
    const beta = callerFor(tk, p.betaOperator, { improve });
    expect(JSON.stringify(await beta.improvements.get({ id: tool.id }))).toContain("BETA-SECRET-EXCERPT");
    expect(JSON.stringify(await beta.skills.get({ name: "shared-skill" }))).toContain("BETA-SECRET-GOAL");
  });
});
