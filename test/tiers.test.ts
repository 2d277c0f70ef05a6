// Compute tiers through the kernel (docs/desktops-and-tiers.md) with real
// desktops (Xvfb, openbox, Chromium, x11vnc), the HITL broker and a real
// database: consent asked, approved and rejected; every other refusal before
// anyone is asked; the workspace kept across the move; the idle downgrade on a
// fake clock; a desktop lost to a restart; T0 without a sandbox.
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, DesktopPool, PodPool, probeSandbox } from "@/server/compute";
import { createRun, event, type RunEventRecord } from "@/server/kernel";
import type { Scenario } from "@/server/models";
import { defaultTierSettings, saveTierSettings } from "@/server/tiers";
import { createTestKernel, type TestKernel } from "./helpers/kernel";
import { makeTempDir } from "./helpers/db";
import { attachTiers, fakeClock, startDemoSite } from "./helpers/tiers";
import { waitFor } from "./helpers/wait";

const MIN = 60_000;
let desktops: DesktopPool;
let desktopDir: string;
let site: Awaited<ReturnType<typeof startDemoSite>>;
let tk: TestKernel;

beforeAll(async () => {
  desktopDir = makeTempDir("rein-test-tiers-");
  // No warm desktops: every move to T2 starts one, so a test sees exactly its own.
  desktops = new DesktopPool({ dataDir: desktopDir, size: 0 });
  await desktops.start();
  site = await startDemoSite({
    "/download-page": (res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<!doctype html><title>Report</title><a id="dl" href="/report.txt" download>Download the report</a>`);
    },
    "/report.txt": (res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-disposition": 'attachment; filename="report.txt"' });
      res.end("quarterly report: 42 stickers\n");
    },
  });
}, 60_000);
afterAll(async () => {
  await desktops?.stop();
  await site?.close();
  fs.rmSync(desktopDir, { recursive: true, force: true });
});
beforeEach(async () => {
  tk = await createTestKernel({ hitl: true });
});
afterEach(async () => {
  await tk.cleanup();
});

const upgrade = { tool: "upgrade_tier", args: { tier: "T2", reason: "The shop is a web page" } };
const hold = { tool: "ask_human", args: { kind: "approve", question: "Hold on" } };

async function launch(scenario: Scenario, opts: { complexity?: number; budgetUsd?: number; agent?: string } = {}) {
  const { agent = "demo-browser", ...rest } = opts;
  return (await createRun(tk.kernel, { goal: "Order stickers", agent, scenario, ...rest }, tk.actors.operator)).id;
}

const events = (runId: string) => tk.kernel.store.listEvents(runId, 0, 10_000);
const ofType = (all: RunEventRecord[], type: string) => all.filter((e) => e.type === type).map((e) => e.payload as Record<string, any>);
const toolResult = async (runId: string, tool: string) => ofType(await events(runId), "tool.result").filter((p) => p.tool === tool);
const runRow = (runId: string) => tk.t.db.run.findUniqueOrThrow({ where: { id: runId } });

async function openRequest(runId: string) {
  await waitFor(async () => (await runRow(runId)).status === "waiting_human", `run ${runId} to wait for a person`, { limitMs: 60_000 });
  const rows = await tk.t.db.humanRequest.findMany({ where: { runId, state: "PENDING" } });
  expect(rows).toHaveLength(1);
  return rows[0];
}

const operator = () => ({ id: tk.actors.operator.userId, name: tk.actors.operator.name, role: tk.actors.operator.role });
const settle = (runId: string) =>
  waitFor(
    async () => {
      const { status } = await runRow(runId);
      return ["succeeded", "failed", "canceled"].includes(status) ? status : null;
    },
    `run ${runId} to finish`,
    { limitMs: 90_000 },
  );

async function consentNotNeeded() {
  const s = defaultTierSettings();
  s.T2.consentRole = null;
  await saveTierSettings(tk.t.db, s, { userId: tk.users.admin, name: "Admin" });
}

describe("consent", () => {
  it("asks an operator before the move, and once approved the run moves to T2 with its workspace: a file of T1 is read, a download lands beside it", async () => {
    attachTiers(tk, { desktops });
    const runId = await launch({
      stopOnError: true,
      turns: [
        { toolCalls: [{ tool: "write_file", args: { path: "notes/t1.txt", content: "written on T1\n" } }] },
        { toolCalls: [upgrade] },
        {
          toolCalls: [
            { tool: "read_file", args: { path: "notes/t1.txt" } },
            { tool: "browser_navigate", args: { url: `${site.url}/download-page` } },
            { tool: "browser_click", args: { selector: "#dl" } },
          ],
        },
        {
          toolCalls: [
            {
              tool: "shell",
              args: { command: "for i in $(seq 100); do [ -f report.txt ] && break; sleep 0.1; done; cat report.txt notes/t1.txt" },
            },
          ],
        },
        { text: "Done." },
      ],
    });
    const request = await openRequest(runId);
    expect(request).toMatchObject({ slot: "consent", kind: "approve", requiredRole: "operator" });
    expect(request.title).toBe("Let demo-browser move to T2 (desktop)?");
    expect(request.detail).toContain("The agent asks: The shop is a web page");
    // Nothing moved yet: no desktop, still T1.
    expect(desktops.get(runId)).toBeUndefined();
    expect((await runRow(runId)).tier).toBe("T1");

    await tk.hitl!.broker.decide(request.id, operator(), { decision: "approve" }, "inbox");
    expect(await settle(runId)).toBe("succeeded");

    // Leaving T2 follows the run's end.
    const changes = await waitFor(async () => {
      const found = ofType(await events(runId), "tier.changed");
      return found.length >= 2 ? found : null;
    }, "the run to leave T2");
    const all = await events(runId);
    expect(ofType(all, "tier.requested")).toEqual([expect.objectContaining({ from: "T1", to: "T2", reason: "The shop is a web page" })]);
    expect(changes).toHaveLength(2);
    expect(changes[0]).toMatchObject({ from: "T1", to: "T2", trigger: "upgrade", fromPool: false, reason: "The shop is a web page" });
    expect(changes[0].durationMs).toBeGreaterThan(0);
    expect(changes[1]).toMatchObject({ from: "T2", to: "T1", trigger: "run_end", reason: "The run ended (succeeded)" });
    const [moved] = await toolResult(runId, "upgrade_tier");
    expect(moved).toMatchObject({ ok: true, output: { tier: "T2", from: "T1" }, gate: { requestId: request.id } });
    // The agent was told where it is now, before its next turn.
    const cp = await tk.kernel.store.latestCheckpoint(runId);
    const told = cp!.state.messages.filter((m) => m.role === "user").map((m) => m.content as string);
    expect(told.some((t) => t.startsWith("[Rein] Your run moved from T1 (terminal) to T2 (desktop)") && t.includes("browser_*"))).toBe(
      true,
    );
    // The workspace came along: T1's file read after the move, and the browser's download is in it.
    const [read] = await toolResult(runId, "read_file");
    expect(JSON.stringify(read.output)).toContain("written on T1");
    const [shell] = await toolResult(runId, "shell");
    expect(shell.output.output).toBe("quarterly report: 42 stickers\nwritten on T1\n");
    expect(fs.readFileSync(path.join(tk.t.dir, "workspaces", runId, "report.txt"), "utf8")).toBe("quarterly report: 42 stickers\n");
    // The run ended: back on T1, its desktop gone.
    expect((await runRow(runId)).tier).toBe("T1");
    expect(desktops.get(runId)).toBeUndefined();
  }, 120_000);

  it("a rejection refuses the move with CONSENT_REJECTED and the person's words; no desktop is started; the run ends stopped by a reviewer", async () => {
    attachTiers(tk, { desktops });
    const started = desktops.stats();
    const runId = await launch({
      stopOnError: true,
      turns: [{ toolCalls: [upgrade] }, { toolCalls: [{ tool: "browser_read", args: { mode: "text" } }] }],
    });
    const request = await openRequest(runId);
    await tk.hitl!.broker.decide(request.id, operator(), { decision: "reject", comment: "use the API instead" }, "inbox");
    // A person declined: the run was stopped by a reviewer, not a failure.
    expect(await settle(runId)).toBe("canceled");
    const name = tk.actors.operator.name;
    const [refused] = await toolResult(runId, "upgrade_tier");
    expect(refused.error).toEqual({
      code: "CONSENT_REJECTED",
      message: `${name} did not consent to T2 (desktop): use the API instead`,
      reviewer: { by: name, verb: "declined", comment: "use the API instead" },
    });
    const row = await runRow(runId);
    expect(row.errorCode).toBe("STOPPED_BY_REVIEWER");
    expect(row.errorMessage).toBe(`Stopped by a reviewer — ${name}: use the API instead`);
    expect(ofType(await events(runId), "tier.refused")).toEqual([
      expect.objectContaining({ from: "T1", to: "T2", code: "CONSENT_REJECTED" }),
    ]);
    expect(ofType(await events(runId), "tier.changed")).toEqual([]);
    expect(await toolResult(runId, "browser_read")).toEqual([]);
    expect((await runRow(runId)).tier).toBe("T1");
    expect(desktops.stats().attached).toBe(started.attached);
  }, 60_000);
});

describe("refusals before anyone is asked", () => {
  async function refusedWith(runId: string) {
    expect(await settle(runId)).toBe("failed");
    expect(await tk.t.db.humanRequest.count({ where: { runId } })).toBe(0);
    expect((await runRow(runId)).tier).toBe("T1");
    const [result] = await toolResult(runId, "upgrade_tier");
    const [refused] = ofType(await events(runId), "tier.refused");
    expect(refused).toMatchObject({ code: result.error.code, message: result.error.message });
    return result.error as { code: string; message: string };
  }

  it("COMPLEXITY_BELOW_THRESHOLD: a run launched with complexity 0.3 may not have T2 (threshold 0.55)", async () => {
    attachTiers(tk, { desktops });
    const runId = await launch({ stopOnError: true, turns: [{ toolCalls: [upgrade] }] }, { complexity: 0.3 });
    expect(await refusedWith(runId)).toEqual({
      code: "COMPLEXITY_BELOW_THRESHOLD",
      message: "The task's complexity score 0.30 (given at launch) is below T2 (desktop)'s threshold of 0.55",
    });
  }, 60_000);

  it("BUDGET_EXCEEDED: T2's estimate for its idle timeout does not fit a $0.001 run budget", async () => {
    attachTiers(tk, { desktops });
    const runId = await launch({ stopOnError: true, turns: [{ toolCalls: [upgrade] }] }, { budgetUsd: 0.001 });
    const error = await refusedWith(runId);
    expect(error.code).toBe("BUDGET_EXCEEDED");
    expect(error.message).toBe("The run has spent $0 of its $0.001 budget; T2 (desktop) for 10 min (about $0.0083) would exceed it");
  }, 60_000);

  it("TIER_DISABLED when an admin turned T2 off, and for T3, off until an admin turns it on", async () => {
    attachTiers(tk, { desktops });
    const s = defaultTierSettings();
    s.T2.enabled = false;
    await saveTierSettings(tk.t.db, s, { userId: tk.users.admin, name: "Admin" });
    const off = await launch({ stopOnError: true, turns: [{ toolCalls: [upgrade] }] });
    expect((await refusedWith(off)).code).toBe("TIER_DISABLED");
    const t3 = await launch({
      stopOnError: true,
      turns: [{ toolCalls: [{ tool: "upgrade_tier", args: { tier: "T3", reason: "more cores" } }] }],
    });
    expect(await refusedWith(t3)).toEqual({
      code: "TIER_DISABLED",
      message: "T3 (remote machine) is turned off on this server (Settings › Tiers)",
    });
  }, 60_000);

  it("TIER_UNAVAILABLE when the desktop programs are missing, with the pool's reason", async () => {
    const empty = makeTempDir("rein-test-nopath-");
    const missing = new DesktopPool({ dataDir: empty, size: 0, searchPath: empty });
    try {
      attachTiers(tk, { desktops: missing });
      const runId = await launch({ stopOnError: true, turns: [{ toolCalls: [upgrade] }] });
      const error = await refusedWith(runId);
      expect(error.code).toBe("TIER_UNAVAILABLE");
      expect(error.message).toContain(`T2 (desktop) is not available on this server: ${missing.unavailable()}`);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("leaving T2", () => {
  it("after the idle timeout with no browser tool call the desktop goes and the run is back on T1; its next browser call says why", async () => {
    await consentNotNeeded();
    const clock = fakeClock();
    const { tiers } = attachTiers(tk, { desktops, now: clock.now });
    const runId = await launch({
      turns: [
        { toolCalls: [upgrade] },
        { toolCalls: [{ tool: "browser_navigate", args: { url: `${site.url}/demo-site/form` } }] },
        { toolCalls: [hold] },
        { toolCalls: [{ tool: "browser_read", args: { mode: "text" } }] },
        { text: "Done." },
      ],
    });
    const request = await openRequest(runId);
    expect(desktops.get(runId)).toBeDefined();
    expect((await runRow(runId)).tier).toBe("T2");

    clock.advance(9 * MIN + 59_000);
    expect(await tiers.tick()).toBe(0);
    expect(desktops.get(runId)).toBeDefined();
    clock.advance(1_000);
    expect(await tiers.tick()).toBe(1);
    expect(desktops.get(runId)).toBeUndefined();
    expect((await runRow(runId)).tier).toBe("T1");
    const [idle] = ofType(await events(runId), "tier.changed").filter((c) => c.trigger === "idle");
    expect(idle).toMatchObject({ from: "T2", to: "T1", reason: "No browser tool call for 10 min: the desktop was released" });

    await tk.hitl!.broker.decide(request.id, operator(), { decision: "approve" }, "inbox");
    expect(await settle(runId)).toBe("succeeded");
    const [read] = await toolResult(runId, "browser_read");
    expect(read.error.code).toBe("NO_DESKTOP");
    expect(read.error.message).toContain("The run is on T1 (terminal) (No browser tool call for 10 min: the desktop was released)");
    expect(read.error.message).toContain('Call upgrade_tier with tier "T2"');
    // Already on T1 when it ended: nothing more to leave.
    expect(ofType(await events(runId), "tier.changed").map((c) => c.trigger)).toEqual(["upgrade", "idle"]);
  }, 120_000);

  it("a desktop a person took over is not idle, however long they keep it; after the hand back the idle clock starts again", async () => {
    await consentNotNeeded();
    const clock = fakeClock();
    const { tiers } = attachTiers(tk, { desktops, now: clock.now });
    const runId = await launch({ turns: [{ toolCalls: [upgrade] }, { toolCalls: [hold] }, { text: "Done." }] });
    await openRequest(runId);
    const person = { by: tk.users.operator, byName: "Olga" };
    await tk.kernel.store.appendEvents(runId, [event("desktop.control", { action: "takeover", ...person })]);
    clock.advance(30 * MIN);
    expect(await tiers.tick()).toBe(0);
    expect(desktops.get(runId)).toBeDefined();
    await tk.kernel.store.appendEvents(runId, [event("desktop.control", { action: "handback", ...person })]);
    clock.advance(9 * MIN);
    expect(await tiers.tick()).toBe(0);
    clock.advance(MIN);
    expect(await tiers.tick()).toBe(1);
    expect(desktops.get(runId)).toBeUndefined();
    expect((await tk.kernel.pool.cancel(runId, { id: tk.users.operator, name: "Olga" })).ok).toBe(true);
  }, 120_000);

  it("the same upgrade_tier call replayed after a restart gets the answer it had, not NOT_AN_UPGRADE", async () => {
    await consentNotNeeded();
    const first = attachTiers(tk, { desktops });
    const runId = await launch({ turns: [{ toolCalls: [upgrade] }, { toolCalls: [hold] }, { text: "Done." }] });
    const request = await openRequest(runId);
    const [moved] = ofType(await events(runId), "tier.changed");
    expect(moved).toMatchObject({ from: "T1", to: "T2", trigger: "upgrade" });
    // A controller that knows nothing (the server restarted), asked by the same call again.
    first.disconnect();
    const second = attachTiers(tk, { desktops });
    const again = await second.tiers.upgrade({ runId, toolCallId: moved.toolCallId, tier: "T2", reason: "The shop is a web page" });
    expect(again).toMatchObject({
      tier: "T2",
      from: "T1",
      durationMs: moved.durationMs,
      summary: expect.stringContaining("moved from T1"),
    });
    // Another call asking for the tier the run is on is still refused.
    await expect(second.tiers.upgrade({ runId, toolCallId: "another-call", tier: "T2", reason: "again" })).rejects.toMatchObject({
      code: "NOT_AN_UPGRADE",
    });
    const all = await events(runId);
    expect(ofType(all, "tier.changed")).toHaveLength(1);
    await tk.hitl!.broker.decide(request.id, operator(), { decision: "approve" }, "inbox");
    expect(await settle(runId)).toBe("succeeded");
    second.disconnect();
  });

  it("a desktop lost to a restart: the agent is told before its next turn, and its next browser call gets a fresh desktop", async () => {
    await consentNotNeeded();
    const first = attachTiers(tk, { desktops });
    const runId = await launch({
      turns: [
        { toolCalls: [upgrade] },
        { toolCalls: [{ tool: "browser_navigate", args: { url: `${site.url}/demo-site/form` } }] },
        { toolCalls: [hold] },
        { toolCalls: [{ tool: "browser_read", args: { mode: "text" } }] },
        { text: "Done." },
      ],
    });
    const request = await openRequest(runId);
    const before = desktops.get(runId)!.id;
    // What a restart leaves: the run on T2 in the database, no desktop, a controller that knows nothing.
    first.disconnect();
    await desktops.release(runId, "the server is stopping");
    attachTiers(tk, { desktops });

    await tk.hitl!.broker.decide(request.id, operator(), { decision: "approve" }, "inbox");
    expect(await settle(runId)).toBe("succeeded");
    const all = await events(runId);
    expect(ofType(all, "tier.lost")).toEqual([expect.objectContaining({ tier: "T2" })]);
    const [restored] = ofType(all, "tier.restored");
    expect(restored).toMatchObject({ tier: "T2", fromPool: false });
    expect(restored.desktopId).not.toBe(before);
    await waitFor(async () => (await runRow(runId)).tier === "T1", "the run to leave T2 as it ends");
    const [read] = await toolResult(runId, "browser_read");
    expect(read.ok).toBe(true);
    const cp = await tk.kernel.store.latestCheckpoint(runId);
    const told = cp!.state.messages.filter((m) => m.role === "user").map((m) => m.content as string);
    expect(told.some((t) => t.includes("the desktop's browser state is gone"))).toBe(true);
    // The lost notice came before the fresh desktop.
    expect(all.findIndex((e) => e.type === "tier.lost")).toBeLessThan(all.findIndex((e) => e.type === "tier.restored"));
  }, 120_000);
});

describe("a desktop that stopped while its run waited", () => {
  it("the agent is told once, and its next browser call gets a fresh desktop", async () => {
    await consentNotNeeded();
    attachTiers(tk, { desktops });
    const runId = await launch({
      turns: [
        { toolCalls: [upgrade] },
        { toolCalls: [hold] },
        { toolCalls: [{ tool: "browser_read", args: { mode: "text" } }] },
        { text: "Done." },
      ],
    });
    const request = await openRequest(runId);
    // Not the tier controller's doing: the desktop ended (a crash) while the run waited for a person.
    await desktops.release(runId, "it crashed");
    await tk.hitl!.broker.decide(request.id, operator(), { decision: "approve" }, "inbox");
    expect(await settle(runId)).toBe("succeeded");
    const all = await events(runId);
    expect(ofType(all, "tier.lost")).toEqual([
      expect.objectContaining({ tier: "T2", reason: expect.stringMatching(/^The run's desktop stopped: /) }),
    ]);
    expect(ofType(all, "tier.restored")).toHaveLength(1);
    const [read] = await toolResult(runId, "browser_read");
    expect(read.ok).toBe(true);
    const cp = await tk.kernel.store.latestCheckpoint(runId);
    const told = cp!.state.messages.filter((m) => m.role === "user" && (m.content as string).includes("browser state is gone"));
    expect(told).toHaveLength(1);
    expect(told[0].content).toMatch(/^\[Rein\] The run's desktop stopped while your run was on T2/);
  }, 120_000);
});

describe("T0", () => {
  it("a T0 agent gets no terminal pod and no workspace tools; after upgrade_tier to T1 it has a shell in a pod", async () => {
    const pods = new PodPool({
      dataDir: tk.t.dir,
      size: 0,
      limits: { ...DEFAULT_LIMITS, wallTimeSec: 120 },
      sandbox: probeSandbox(),
      allowUnsandboxed: true,
    });
    await pods.start();
    try {
      tk.kernel.deps.terminals = pods;
      attachTiers(tk, { desktops, terminals: pods });
      await tk.t.db.agentSpec.create({
        data: {
          name: "gateway-agent",
          version: 1,
          description: "T0 test agent",
          instructions: "Answer.",
          model: "scripted/demo-coder",
          taskClass: "plan",
          tools: JSON.stringify(["shell", "read_file", "upgrade_tier"]),
          handoffs: "[]",
          guardrails: "{}",
          tier: "T0",
          builtIn: false,
        },
      });
      let podDuringT0: unknown = "unchecked";
      const runId = await launch(
        {
          turns: [
            {
              toolCalls: [
                { tool: "shell", args: { command: "echo hi" } },
                { tool: "read_file", args: { path: "x.txt" } },
              ],
            },
            { toolCalls: [{ tool: "upgrade_tier", args: { tier: "T1", reason: "I need a shell" } }] },
            { toolCalls: [{ tool: "shell", args: { command: "echo on-$((1+1))" } }] },
            { text: "Done." },
          ],
        },
        { agent: "gateway-agent" },
      );
      const off = tk.kernel.bus.onRun(runId, (evs) => {
        if (evs.some((e) => e.type === "tool.call" && (e.payload as { tool: string }).tool === "upgrade_tier"))
          podDuringT0 = pods.get(runId);
      });
      expect(await settle(runId)).toBe("succeeded");
      off();
      expect(podDuringT0).toBeUndefined();
      const all = await events(runId);
      const shells = ofType(all, "tool.result").filter((p) => p.tool === "shell");
      expect(shells[0].error.code).toBe("SANDBOX_UNAVAILABLE");
      expect(shells[0].error.message).toContain("T0 (gateway)");
      const [read] = ofType(all, "tool.result").filter((p) => p.tool === "read_file");
      expect(read.error.code).toBe("NO_SANDBOX");
      expect(ofType(all, "tier.changed")).toEqual([expect.objectContaining({ from: "T0", to: "T1", trigger: "upgrade" })]);
      expect(shells[1]).toMatchObject({ ok: true, output: { exitCode: 0, output: "on-2\n" } });
      // Only the move to T1 attached a pod, none at the start of the run.
      const attached = all.filter((e) => e.type === "terminal.attached");
      expect(attached).toHaveLength(1);
      expect(attached[0].seq).toBeGreaterThan(all.find((e) => e.type === "tier.requested")!.seq);
    } finally {
      await tk.kernel.pool.stop(5_000);
      await pods.stop();
    }
  }, 90_000);
});
