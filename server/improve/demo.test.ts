// Self-improvement end to end on a real SQLite database with the default
// kernel and real terminal pods: demo-csv struggles (awk splits a quoted
// comma three times the same way), Rein records the friction and starts the
// improver, whose runtime tool passes its trigger cases in the QuickJS
// sandbox and is hot-loaded; the next demo-csv run uses it in fewer steps.
// Then: the tool's trust, the promotion proposal at its threshold, TTL expiry
// from a running server, people switching it off and on, and a restart.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, PodPool, probeSandbox } from "@/server/compute";
import { createRun } from "@/server/kernel";
import { createTestKernel, SILENT_LOG, type TestKernel } from "@/test/helpers/kernel";
import { makeTempDir } from "@/test/helpers/db";
import { waitFor } from "@/test/helpers/wait";
import { DEMO_CSV_GOAL } from "@/server/models";
import { Improve, actOnImprovement, getImprovement, listImprovements } from "./index";

let tk: TestKernel;
let pods: PodPool;
let podsDir: string;
let improve: Improve;
let firstRunId: string;
let secondRunId: string;
let toolId: string;

const team = () => tk.actors.operator.teamIds[0] ?? null;
const launch = async () => (await createRun(tk.kernel, { goal: DEMO_CSV_GOAL, agent: "demo-csv" }, tk.actors.operator)).id;
const eventsOf = (runId: string) => tk.kernel.store.listEvents(runId, 0, 1000);
const actionDeps = () => ({
  db: tk.t.db,
  unload: (name: string) => improve.live.unload(name),
  load: (id: string) => improve.reload(id),
  promote: (id: string, by: { id: string; name: string }, ch: string) => improve.promote(id, by, ch),
});

beforeAll(async () => {
  podsDir = makeTempDir("rein-test-improve-pods-");
  pods = new PodPool({
    dataDir: podsDir,
    size: 0,
    limits: { ...DEFAULT_LIMITS, wallTimeSec: 300 },
    sandbox: probeSandbox(),
    allowUnsandboxed: true,
  });
  await pods.start();
  // The server's wiring: the policy gate decides every call (the improver's tools and the runtime tool too).
  tk = await createTestKernel({ terminals: pods, telemetry: true, hitl: true });
  improve = new Improve({ db: tk.t.db, kernel: tk.kernel, log: SILENT_LOG });
  await improve.start({ sweepMs: 200 });

  firstRunId = await launch();
  expect(await tk.settle(firstRunId)).toBe("succeeded");
  await improve.idle();
  const cycle = await waitFor(
    async () => {
      const c = await tk.t.db.hackCycle.findFirst({ where: { sessionRunId: firstRunId } });
      return c && (c.state === "DEPLOY" || c.state === "ABANDONED") ? c : null;
    },
    "the hack cycle to end",
    { limitMs: 60_000 },
  );
  expect(cycle.reason ?? "").not.toMatch(/abandon/i);
  expect(cycle.state).toBe("DEPLOY");
  toolId = cycle.improvementId!;

  secondRunId = await launch();
  expect(await tk.settle(secondRunId)).toBe("succeeded");
  await improve.idle();
}, 180_000);

afterAll(async () => {
  await improve?.stop();
  await tk?.cleanup();
  await pods?.stop();
  fs.rmSync(podsDir, { recursive: true, force: true });
});

describe("the demo: friction -> cycle -> tool -> uses", () => {
  it("recorded the first run's struggle as friction with evidence, once, and told its timeline", async () => {
    const friction = await tk.t.db.friction.findMany({ include: { items: true } });
    expect(friction).toHaveLength(1);
    const [f] = friction;
    expect(f).toMatchObject({ kind: "repeated_failure", agentName: "demo-csv", tool: "shell", state: "addressed", runCount: 1 });
    expect(f.items).toHaveLength(1);
    const evidence = JSON.parse(f.items[0].evidence) as Array<{ runId: string; toolCallId: string; spanId: string }>;
    expect(evidence.length).toBeGreaterThanOrEqual(3);
    expect(evidence.every((e) => e.runId === firstRunId && e.toolCallId && e.spanId)).toBe(true);
    const recorded = (await eventsOf(firstRunId)).filter((e) => e.type === "friction.recorded");
    expect(recorded.length).toBeGreaterThanOrEqual(1);
    expect(recorded[0].payload).toMatchObject({ kind: "repeated_failure", count: 3 });
  });

  it("ran the improver as a normal run under the improve workflow, every cycle move on its timeline", async () => {
    const cycle = await tk.t.db.hackCycle.findFirstOrThrow({ where: { sessionRunId: firstRunId } });
    const improver = await tk.t.db.run.findUniqueOrThrow({ where: { id: cycle.improverRunId! } });
    expect(improver).toMatchObject({
      agentName: "improver",
      workflow: "improve",
      status: "succeeded",
      createdById: tk.actors.operator.userId,
    });
    const moves = (await eventsOf(improver.id)).filter((e) => e.type === "improve.cycle").map((e) => (e.payload as { to: string }).to);
    expect(moves).toEqual(["DETECT", "ISOLATE", "MODIFY", "TEST", "GATE", "DEPLOY"]);
    // The improver was given the evidence: the failing awk commands and their error.
    expect(improver.goal).toContain("expected 3 fields, found 4");
    await tk.telemetry!.sink.flush();
    const spans = await tk.t.db.span.findMany({ where: { runId: improver.id }, select: { name: true, kind: true, workflowId: true } });
    expect(new Set(spans.filter((s) => s.kind === "improve").map((s) => s.name))).toEqual(
      new Set([
        "improve start→DETECT",
        "improve DETECT→ISOLATE",
        "improve ISOLATE→MODIFY",
        "improve MODIFY→TEST",
        "improve TEST→GATE",
        "improve GATE→DEPLOY",
      ]),
    );
    // Traces and Costs count it under the improve workflow.
    expect(new Set(spans.map((s) => s.workflowId))).toEqual(new Set(["improve"]));
  });

  it("deployed csv_column_sum v1 after its trigger cases passed, scoped to demo-csv, with a 7-day TTL", async () => {
    const tool = await tk.t.db.improvement.findUniqueOrThrow({ where: { id: toolId } });
    expect(tool).toMatchObject({ kind: "runtime_tool", tier: 1, name: "csv_column_sum", version: 1, state: "active", replayClass: "pure" });
    expect(JSON.parse(tool.scopeAgents)).toEqual(["demo-csv"]);
    // Made for the team whose run struggled: another team's demo-csv does not get it.
    expect(JSON.parse(tool.scopeTeams)).toEqual([team()]);
    expect(improve.live.toolsFor({ agentName: "demo-csv", teamId: "another-team" })).not.toContain("csv_column_sum");
    const results = JSON.parse(tool.caseResults!) as { passed: number; failed: number };
    expect(results).toMatchObject({ passed: 3, failed: 0 });
    const ttl = tool.expiresAt!.getTime() - tool.createdAt.getTime();
    expect(ttl).toBeGreaterThan(6.9 * 86_400_000);
    expect(improve.live.toolsFor({ agentName: "demo-csv", teamId: team() })).toContain("csv_column_sum");
    expect(improve.live.toolsFor({ agentName: "demo-coder", teamId: team() })).not.toContain("csv_column_sum");
  });

  it("the second run used the tool, wrote the same total, and took fewer steps", async () => {
    const [first, second] = await Promise.all([firstRunId, secondRunId].map((id) => tk.t.db.run.findUniqueOrThrow({ where: { id } })));
    expect(second.stepCount).toBeLessThan(first.stepCount);
    const calls = (await eventsOf(secondRunId))
      .filter((e) => e.type === "tool.result")
      .map((e) => e.payload as { tool: string; ok: boolean; output?: unknown });
    const used = calls.find((c) => c.tool === "csv_column_sum");
    expect(used).toMatchObject({ ok: true, output: { column: "amount", rows: 5, total: 400 } });
    expect(calls.some((c) => c.tool === "shell")).toBe(false);
    for (const id of [firstRunId, secondRunId]) {
      const total = await tk.kernel.deps.workspaceFor(id).readFile("total.txt");
      expect(total.data.toString("utf8").trim()).toBe("400");
    }
    const uses = await tk.t.db.improvementUse.findMany({ where: { improvementId: toolId } });
    expect(uses.map((u) => [u.runId, u.ok])).toEqual([[secondRunId, true]]);
    const view = await getImprovement(tk.t.db, tk.actors.viewer, toolId);
    expect(view).toMatchObject({ useCount: 1, successes: 1, trust: 0.5 });
    expect(view.uses.map((u) => u.runId)).toEqual([secondRunId]);
  });

  it("lists it for people who may see it", async () => {
    const list = await listImprovements(tk.t.db, tk.actors.viewer, { state: "active" });
    expect(list.improvements.map((i) => i.name)).toEqual(["csv_column_sum"]);
  });
});

describe("people and the clock", () => {
  it("a viewer cannot switch it off; an operator can, and it leaves the registry at once; an approver turns it back on", async () => {
    await expect(actOnImprovement(actionDeps(), tk.actors.viewer, toolId, "disable", "admin")).rejects.toThrow(
      /needs? the operator role|need the operator role/,
    );
    await actOnImprovement(actionDeps(), tk.actors.operator, toolId, "disable", "admin", "checking something");
    expect(improve.live.toolsFor({ agentName: "demo-csv", teamId: team() })).not.toContain("csv_column_sum");
    expect(tk.kernel.deps.registry.get("csv_column_sum")).toBeUndefined();
    await expect(actOnImprovement(actionDeps(), tk.actors.operator, toolId, "enable", "admin")).rejects.toThrow(/approver/);
    await actOnImprovement(actionDeps(), tk.actors.approver, toolId, "enable", "admin");
    expect(improve.live.toolsFor({ agentName: "demo-csv", teamId: team() })).toContain("csv_column_sum");
    const audit = await tk.t.db.auditEntry.findMany({ where: { kind: { in: ["improvement.disabled", "improvement.enabled"] } } });
    expect(audit).toHaveLength(2);
  });

  it("proposes promotion to an approver when trust passes 0.8 after 10 uses, and not before", async () => {
    const ctx = (i: number) => ({ runId: secondRunId, toolCallId: `synthetic_${i}` }) as never;
    for (let i = 0; i < 8; i++) await improve.live.recordUse(toolId, ctx(i), true, null, 1);
    // 9 uses, all fine: trust 0.9 but below 10 uses.
    expect(await tk.t.db.humanRequest.count({ where: { slot: "promote" } })).toBe(0);
    await improve.live.recordUse(toolId, ctx(8), true, null, 1);
    const request = await waitFor(() => tk.t.db.humanRequest.findFirst({ where: { slot: "promote" } }), "the promotion request");
    expect(request).toMatchObject({ kind: "approve", requiredRole: "approver", state: "PENDING" });
    expect(request.title).toContain("csv_column_sum");
    // A replayed call is not counted twice.
    await improve.live.recordUse(toolId, ctx(8), true, null, 1);
    expect((await tk.t.db.improvement.findUniqueOrThrow({ where: { id: toolId } })).uses).toBe(10);
  });

  it("expires from a running server when its TTL runs out, unless promoted", async () => {
    const soon = new Date(Date.now() + 300);
    await tk.t.db.improvement.update({ where: { id: toolId }, data: { expiresAt: soon } });
    await improve.reload(toolId);
    await waitFor(
      async () => (await tk.t.db.improvement.findUniqueOrThrow({ where: { id: toolId } })).state === "expired",
      "the tool to expire",
    );
    expect(tk.kernel.deps.registry.get("csv_column_sum")).toBeUndefined();
    expect(improve.live.toolsFor({ agentName: "demo-csv", teamId: team() })).toEqual([]);
  });

  it("an approver's yes in the Inbox promotes it: back in the registry, with no TTL", async () => {
    const request = await tk.t.db.humanRequest.findFirstOrThrow({ where: { slot: "promote" } });
    const decider = (a: typeof tk.actors.viewer) => ({
      id: a.userId,
      name: a.name,
      role: a.role,
      teamIds: a.teamIds,
      teamRoles: a.teamRoles,
    });
    await expect(tk.hitl!.broker.decide(request.id, decider(tk.actors.viewer), { decision: "approve" }, "inbox")).rejects.toThrow(
      /approver/,
    );
    await tk.hitl!.broker.decide(request.id, decider(tk.actors.approver), { decision: "approve" }, "inbox");
    await improve.onRequestChange({ requestId: request.id, runId: request.runId, state: "APPROVED", teamId: request.teamId });
    const row = await tk.t.db.improvement.findUniqueOrThrow({ where: { id: toolId } });
    expect(row).toMatchObject({ state: "active", promoted: true, expiresAt: null });
    expect(improve.live.toolsFor({ agentName: "demo-csv", teamId: team() })).toContain("csv_column_sum");
    const audit = await tk.t.db.auditEntry.findFirst({ where: { kind: "improvement.promoted" } });
    expect(audit?.actorId).toBe(tk.actors.approver.userId);
    // Promoted, it is proposed as an extension too: its tests pass, and it waits for an admin.
    const extension = await tk.t.db.extension.findFirstOrThrow({ where: { name: "csv-column-sum" } });
    expect(extension).toMatchObject({ version: "1.0.0", state: "awaiting_approval" });
    expect(JSON.parse(extension.testsResult!)).toMatchObject({ ok: true, failed: 0 });
  });

  it("a restarted server loads live tools again and finds nothing to resume", async () => {
    await improve.stop();
    improve = new Improve({ db: tk.t.db, kernel: tk.kernel, log: SILENT_LOG });
    const started = await improve.start({ sweepMs: 200 });
    expect(started).toEqual({ tools: 1, extensions: 0, cycles: { resumed: 0, abandoned: 0 }, changes: 0 });
    expect(tk.kernel.deps.registry.get("csv_column_sum")).toBeDefined();
    expect((await tk.t.db.improvement.findUniqueOrThrow({ where: { id: toolId } })).expiresAt).toBeNull();
  });
});
