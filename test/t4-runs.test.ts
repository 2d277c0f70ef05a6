// A run moves to T4, a person's own device (docs/devices.md#a-run-on-a-device):
// the real rein-device agent in a network namespace of its own, paired by the
// operator who launches the run. An admin consents in Rein and the owner on
// the device; the run lists, reads and edits files in the owner's folder and
// is refused a path outside it (a symlink included), its commands run in the
// device's terminal, streamed to the Terminal's watchers; a device that goes
// offline mid-command and comes back within the grace period lets the run go
// on without running the command again; gone for longer, the run pauses and
// goes on when resumed. No device online: NO_DEVICE before anyone is asked.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, PodPool, probeSandbox } from "@/server/compute";
import { createRun, type RunEventRecord } from "@/server/kernel";
import type { Scenario } from "@/server/models";
import { DeviceRuns, defaultTierSettings, saveTierSettings } from "@/server/tiers";
import { createTestKernel, type TestKernel } from "./helpers/kernel";
import { callerFor } from "./helpers/services";
import { startDeviceServer, type DeviceServer } from "./helpers/device";
import { deviceAgentRunner, makeDeviceNetns, type AgentProcess, type DeviceAgentRunner, type DeviceNetns } from "./helpers/device-agent";
import { attachTiers } from "./helpers/tiers";
import { waitFor } from "./helpers/wait";

/** How long Rein waits for a device that went offline (60 s by default). */
const GRACE_MS = 3_000;
let tk: TestKernel;
let ns: DeviceNetns;
let server: DeviceServer;
let agent: DeviceAgentRunner;
let running: AgentProcess | null = null;
let pods: PodPool;
let dataDir: string;
let base: string;
let folder: string;
let outside: string;
let deviceId: string;
let stream = "";

const upgrade = { tool: "upgrade_tier", args: { tier: "T4", reason: "The files are on my laptop" } };
const events = (runId: string) => tk.kernel.store.listEvents(runId, 0, 10_000);
const ofType = (all: RunEventRecord[], type: string) => all.filter((e) => e.type === type).map((e) => e.payload as Record<string, any>);
const runRow = (runId: string) => tk.t.db.run.findUniqueOrThrow({ where: { id: runId } });
const online = () => waitFor(() => server.hub.isOnline(deviceId), "the device to be online", { limitMs: 15_000 });

async function launch(scenario: Scenario) {
  return (await createRun(tk.kernel, { goal: "Tidy my notes", agent: "demo-browser", scenario, complexity: 0.9 }, tk.actors.operator)).id;
}

/** The admin's consent in Rein's Inbox. */
async function approveInRein(runId: string) {
  await waitFor(async () => (await runRow(runId)).status === "waiting_human", "the run to ask for consent", { limitMs: 20_000 });
  const [request] = await tk.t.db.humanRequest.findMany({ where: { runId, state: "PENDING" } });
  const a = tk.actors.admin;
  await tk.hitl!.broker.decide(request.id, { id: a.userId, name: a.name, role: a.role }, { decision: "approve" }, "inbox");
  return request;
}

const status = (runId: string, want: string[]) =>
  waitFor(
    async () => {
      const s = (await runRow(runId)).status;
      return want.includes(s) ? s : null;
    },
    `run ${runId} to be ${want.join(" or ")}`,
    { limitMs: 30_000 },
  );

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  ns = makeDeviceNetns();
  server = await startDeviceServer(tk.t.db, { host: ns.hostAddress });
  agent = await deviceAgentRunner(ns.netns);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-t4-runs-"));
  pods = new PodPool({ dataDir, size: 0, limits: DEFAULT_LIMITS, sandbox: probeSandbox(), allowUnsandboxed: true });
  await pods.start();
  pods.onChange((_runId, pod) => void pod?.onData((chunk) => (stream += chunk), { replay: true }));
  tk.kernel.deps.terminals = pods;
  const devices = new DeviceRuns({
    db: tk.t.db,
    hub: server.hub,
    terminals: pods,
    workspaceFor: tk.kernel.deps.workspaceFor,
    graceMs: GRACE_MS,
  });
  attachTiers(tk, { terminals: pods, devices });
  const s = defaultTierSettings();
  s.T4.enabled = true;
  await saveTierSettings(tk.t.db, s, { userId: tk.users.admin, name: "Admin" });

  base = fs.mkdtempSync(path.join(os.tmpdir(), "rein-t4-folder-"));
  folder = path.join(base, "notes");
  outside = path.join(base, "private");
  fs.mkdirSync(folder);
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(folder, "todo.txt"), "buy milk\n");
  fs.writeFileSync(path.join(outside, "diary.txt"), "not for Rein\n");
  fs.symlinkSync(path.join(outside, "diary.txt"), path.join(folder, "diary-link.txt"));
}, 60_000);

afterAll(async () => {
  await running?.kill();
  await pods?.stop();
  agent?.cleanup();
  await server?.close();
  ns?.cleanup();
  await tk?.cleanup();
  for (const dir of [dataDir, base]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("no device", () => {
  it("NO_DEVICE before anyone is asked, in words naming the person", async () => {
    const runId = await launch({ stopOnError: true, turns: [{ toolCalls: [upgrade] }] });
    expect(await status(runId, ["failed", "succeeded", "canceled"])).toBe("failed");
    const [refused] = ofType(await events(runId), "tier.refused");
    expect(refused).toMatchObject({ to: "T4", code: "NO_DEVICE" });
    expect(refused.message).toMatch(
      /^No device of .+ is online for team .+; pair one in Settings › Devices and start it with rein-device run$/,
    );
    expect(await tk.t.db.humanRequest.count({ where: { runId } })).toBe(0);
  });
});

describe("a run on the operator's device", () => {
  beforeAll(async () => {
    const { code } = await callerFor(tk, tk.actors.operator).devices.createPairing({});
    const paired = await agent.cli(["pair", server.url, code, "--folder", folder, "--name", "ada-laptop", "--commands", "any"]);
    expect(paired.code, paired.output).toBe(0);
    deviceId = JSON.parse(fs.readFileSync(path.join(agent.home, ".config", "rein-device", "config.json"), "utf8")).deviceId;
    running = agent.start();
    await online();
  }, 60_000);

  it("moves with both consents; lists, reads and edits the owner's files, is refused a path outside, and runs its commands in the device's terminal", async () => {
    stream = "";
    const runId = await launch({
      stopOnError: false,
      turns: [
        { toolCalls: [upgrade] },
        { toolCalls: [{ tool: "list_files", args: {} }] },
        { toolCalls: [{ tool: "edit_file", args: { path: "todo.txt", oldString: "buy milk", newString: "buy oat milk" } }] },
        { toolCalls: [{ tool: "read_file", args: { path: "diary-link.txt" } }] },
        { toolCalls: [{ tool: "read_file", args: { path: `${outside}/diary.txt` } }] },
        { toolCalls: [{ tool: "shell", args: { command: "cat todo.txt; echo from-the-shell > shell.txt; pwd" } }] },
        { text: "Tidied." },
      ],
    });
    const request = await approveInRein(runId);
    expect(request.title).toBe("Let demo-browser move to T4 (local device) on ada-laptop?");
    // The owner is asked on the device too.
    await waitFor(() => running!.output().includes("Allow it? [y/N]"), "the question on the device");
    running!.answer("y");
    expect(await status(runId, ["succeeded", "failed", "canceled"])).toBe("succeeded");

    const all = await events(runId);
    const [moved] = ofType(all, "tier.changed");
    expect(moved).toMatchObject({ from: "T1", to: "T4", deviceId, deviceName: "ada-laptop" });
    const results = ofType(all, "tool.result");
    const of = (tool: string) => results.filter((r) => r.tool === tool);
    expect(JSON.stringify(of("list_files")[0].output)).toContain("todo.txt");
    expect(of("edit_file")[0].ok).toBe(true);
    expect(fs.readFileSync(path.join(folder, "todo.txt"), "utf8")).toBe("buy oat milk\n");
    // Outside the owner's folder: refused by the device, through a symlink or by path.
    const [viaLink, byPath] = of("read_file");
    expect(viaLink).toMatchObject({ ok: false, error: { code: "OUTSIDE_WORKSPACE" } });
    expect(byPath).toMatchObject({ ok: false, error: { code: "OUTSIDE_WORKSPACE" } });
    expect(JSON.stringify(all)).not.toContain("not for Rein");
    // The command ran in the owner's folder on the device, and the Terminal's watchers saw it.
    const [shell] = of("shell");
    expect(shell.ok, JSON.stringify(shell)).toBe(true);
    expect(shell.output.output).toContain("buy oat milk");
    expect(shell.output.output).toContain(folder);
    expect(fs.readFileSync(path.join(folder, "shell.txt"), "utf8")).toBe("from-the-shell\n");
    expect(stream).toContain("echo from-the-shell > shell.txt");
    // The run left the device at its end; the owner's files stay.
    await waitFor(async () => ofType(await events(runId), "tier.changed").length >= 2 || null, "the run to leave the device");
    const down = ofType(await events(runId), "tier.changed")[1];
    expect(down).toMatchObject({ from: "T4", to: "T1", trigger: "run_end", deviceId });
    // Its time on the device at T4's price (0 USD an hour by default).
    expect(down.costUsd).toBe(0);
    expect(fs.readFileSync(path.join(outside, "diary.txt"), "utf8")).toBe("not for Rein\n");
  }, 60_000);

  it("a device offline mid-command and back within the grace period: the run goes on, the command is not run again", async () => {
    await callerFor(tk, tk.actors.operator).devices.setAutoConsent({ id: deviceId, teamIds: [tk.actors.operator.teamIds[0]] });
    const counter = path.join(folder, `count-${Date.now()}.txt`);
    const runId = await launch({
      stopOnError: false,
      turns: [
        { toolCalls: [upgrade] },
        { toolCalls: [{ tool: "shell", args: { command: `echo ran >> ${path.basename(counter)}; sleep 20; echo done` } }] },
        { toolCalls: [{ tool: "shell", args: { command: "echo after > after.txt" } }] },
        { text: "Done." },
      ],
    });
    await approveInRein(runId);
    await waitFor(() => fs.existsSync(counter), "the command to start on the device", { limitMs: 20_000 });
    await running!.kill();
    await waitFor(() => !server.hub.isOnline(deviceId), "the device to be offline");
    running = agent.start();
    expect(await status(runId, ["succeeded", "failed", "canceled", "paused"])).toBe("succeeded");
    const shells = ofType(await events(runId), "tool.result").filter((p) => p.tool === "shell");
    expect(shells[0]).toMatchObject({ ok: false, error: { code: "DEVICE_DROPPED" } });
    expect(shells[1], JSON.stringify(shells[1])).toMatchObject({ ok: true });
    expect(fs.readFileSync(counter, "utf8")).toBe("ran\n");
    expect(fs.readFileSync(path.join(folder, "after.txt"), "utf8")).toBe("after\n");
  }, 60_000);

  it("a device gone for longer pauses the run with the reason; resumed once it is back, the run goes on there", async () => {
    stream = "";
    const runId = await launch({
      stopOnError: false,
      turns: [
        { toolCalls: [upgrade] },
        { toolCalls: [{ tool: "shell", args: { command: "sleep 21" } }] },
        { toolCalls: [{ tool: "shell", args: { command: "echo resumed > resumed.txt" } }] },
        { text: "Done." },
      ],
    });
    await approveInRein(runId);
    await waitFor(() => stream.includes("sleep 21"), "the command to start on the device", { limitMs: 20_000 });
    await running!.kill();
    running = null;
    expect(await status(runId, ["paused", "failed", "succeeded"])).toBe("paused");
    const paused = ofType(await events(runId), "run.state").at(-1);
    expect(paused?.reason).toMatch(/^The device ada-laptop went offline while a command ran; it goes on there when a person resumes it/);
    running = agent.start();
    await online();
    await tk.kernel.pool.resume(runId, { id: tk.users.operator, name: "Operator" });
    expect(await status(runId, ["succeeded", "failed", "canceled"])).toBe("succeeded");
    expect(fs.readFileSync(path.join(folder, "resumed.txt"), "utf8")).toBe("resumed\n");
  }, 60_000);
});
