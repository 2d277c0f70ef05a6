// A run moves to T3 and back (docs/desktops-and-tiers.md#t3-remote-machines), with a
// real OpenSSH server in a network namespace (test/helpers/sshd.ts): consent
// asked of an admin naming the machine; the workspace pushed; the shell on the
// machine streamed to the Terminal's watchers with a secret redacted; what a
// command wrote copied back; at the run's end the run's folder on the machine
// is gone; the run's commands see nothing of the machine's user. A connection
// that drops mid-command is made again within the grace period and the run
// goes on; a machine gone for longer pauses the run with the reason and the
// resume reconnects; either way the command is not run again. No machine:
// NO_MACHINE.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, PodPool, probeSandbox } from "@/server/compute";
import { createRun, type RunEventRecord } from "@/server/kernel";
import type { Scenario } from "@/server/models";
import { putSecret, setSecretScope } from "@/server/secrets";
import { MachineRuns, defaultTierSettings, saveTierSettings } from "@/server/tiers";
import { createTestKernel, type TestKernel } from "./helpers/kernel";
import { callerFor } from "./helpers/services";
import { startTestSshd, type TestSshd } from "./helpers/sshd";
import { attachTiers } from "./helpers/tiers";
import { waitFor } from "./helpers/wait";

const SECRET = "t3-7Hq2zX9vLm4K-s3cr3t-0077";
/** How long Rein retries a dropped connection here (60 s by default). */
const GRACE_MS = 2_000;
let tk: TestKernel;
let sshd: TestSshd;
let pods: PodPool;
let dataDir: string;
let machineId: string;
let home: string;
let stream = "";

beforeAll(async () => {
  [tk, sshd] = await Promise.all([createTestKernel({ hitl: true, secrets: true }), startTestSshd()]);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-t3-runs-"));
  pods = new PodPool({ dataDir, size: 0, limits: DEFAULT_LIMITS, sandbox: probeSandbox(), allowUnsandboxed: true });
  await pods.start();
  pods.onChange((_runId, pod) => void pod?.onData((chunk) => (stream += chunk), { replay: true }));
  tk.kernel.deps.terminals = pods;
  const remote = new MachineRuns({
    db: tk.t.db,
    keyring: tk.keyring!,
    terminals: pods,
    workspaceFor: tk.kernel.deps.workspaceFor,
    graceMs: GRACE_MS,
  });
  attachTiers(tk, { terminals: pods, remote });
  const s = defaultTierSettings();
  s.T3.enabled = true;
  await saveTierSettings(tk.t.db, s, { userId: tk.users.admin, name: "Admin" });
  await putSecret(tk.t.db, tk.keyring!, { name: "DEPLOY_TOKEN", value: SECRET, actor: tk.users.admin });
  await setSecretScope(
    tk.t.db,
    { name: "DEPLOY_TOKEN", scope: { agents: ["*"], teams: ["*"], callerCommands: true } },
    { userId: tk.users.admin, name: "admin", channel: "test" },
  );
  home = execFileSync("getent", ["passwd", sshd.user]).toString().split(":")[5];
}, 60_000);

afterAll(async () => {
  await pods?.stop();
  await sshd?.cleanup();
  await tk?.cleanup();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

const admin = () => callerFor(tk, tk.actors.admin);
const events = (runId: string) => tk.kernel.store.listEvents(runId, 0, 10_000);
const ofType = (all: RunEventRecord[], type: string) => all.filter((e) => e.type === type).map((e) => e.payload as Record<string, any>);
const runRow = (runId: string) => tk.t.db.run.findUniqueOrThrow({ where: { id: runId } });
const hostFolder = (runId: string) => path.join(home, "rein-runs", runId);
const upgrade = { tool: "upgrade_tier", args: { tier: "T3", reason: "The build needs the big machine" } };

async function launch(scenario: Scenario) {
  return (
    await createRun(
      tk.kernel,
      { goal: "Build", agent: "demo-browser", scenario, complexity: 0.8, secrets: ["DEPLOY_TOKEN"] },
      tk.actors.operator,
    )
  ).id;
}

async function approveConsent(runId: string) {
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

describe("no machine", () => {
  it("NO_MACHINE before anyone is asked, in words naming the team", async () => {
    const runId = await launch({ stopOnError: true, turns: [{ toolCalls: [upgrade] }] });
    expect(await status(runId, ["failed", "succeeded", "canceled"])).toBe("failed");
    const [refused] = ofType(await events(runId), "tier.refused");
    expect(refused).toMatchObject({ to: "T3", code: "NO_MACHINE" });
    expect(refused.message).toMatch(/^No machine is ready for team .+; an admin adds one in Settings › Machines$/);
    expect(await tk.t.db.humanRequest.count({ where: { runId } })).toBe(0);
  });
});

describe("a run on a machine", () => {
  beforeAll(async () => {
    const m = await admin().machines.register({ name: "build-box", host: sshd.host, user: sshd.user, concurrency: 2 });
    machineId = m.id;
    sshd.authorize(m.publicKey);
    await admin().machines.contact({ id: machineId });
    await admin().machines.confirmKey({ id: machineId, fingerprint: sshd.fingerprint() });
    await admin().machines.test({ id: machineId });
  }, 30_000);

  it("moves to T3 with an admin's consent naming the machine, runs its shell there with the secret redacted, gets its files back, and leaves nothing on the machine", async () => {
    stream = "";
    const runId = await launch({
      stopOnError: true,
      turns: [
        { toolCalls: [{ tool: "write_file", args: { path: "in.txt", content: "from Rein\n" } }] },
        { toolCalls: [upgrade] },
        { toolCalls: [{ tool: "write_file", args: { path: "later.txt", content: "written on T3\n" } }] },
        {
          toolCalls: [
            {
              tool: "shell",
              args: {
                command: `cat later.txt; cat in.txt > out.txt; uname -n >> out.txt; echo token=$DEPLOY_TOKEN; ls ${home}/.ssh ${home}/rein-runs 2>/dev/null | wc -l | sed 's/^/outside=/'`,
              },
            },
          ],
        },
        { toolCalls: [{ tool: "read_file", args: { path: "out.txt" } }] },
        { text: "Built." },
      ],
    });
    const request = await approveConsent(runId);
    expect(request.title).toBe("Let demo-browser move to T3 (remote machine) on build-box?");
    expect(request.requiredRole).toBe("admin");
    expect(request.detail).toContain("build-box");
    expect(await status(runId, ["succeeded", "failed", "canceled"])).toBe("succeeded");
    const changes = await waitFor(async () => {
      const found = ofType(await events(runId), "tier.changed");
      return found.length >= 2 ? found : null;
    }, "the run to leave T3");
    expect(changes[0]).toMatchObject({ from: "T1", to: "T3", trigger: "upgrade", machineId, machineName: "build-box" });
    expect(changes[0].sync).toMatchObject({ direction: "push" });
    expect(changes[1]).toMatchObject({ from: "T3", to: "T1", trigger: "run_end", machineId });
    expect(changes[1].costUsd).toBeGreaterThanOrEqual(0);
    const all = await events(runId);
    const [shell] = ofType(all, "tool.result").filter((p) => p.tool === "shell");
    expect(shell.ok).toBe(true);
    expect(shell.output.output).toContain("token=[secret:DEPLOY_TOKEN]");
    // Bubblewrap on the machine: its user's keys and the other runs' folders are not there for the command.
    expect(shell.output.output).toContain("outside=0");
    // The file the agent wrote after the move went to the machine before the command, and stayed after it.
    expect(shell.output.output).toContain("written on T3");
    expect(ofType(all, "tier.synced").map((p) => [p.direction, p.toolCallId])).toEqual([
      ["push", shell.toolCallId],
      ["pull", shell.toolCallId],
    ]);
    expect(fs.readFileSync(path.join(tk.t.dir, "workspaces", runId, "later.txt"), "utf8")).toBe("written on T3\n");
    // The file the command wrote on the machine is in the run's workspace, and the file tools read it.
    const out = fs.readFileSync(path.join(tk.t.dir, "workspaces", runId, "out.txt"), "utf8");
    expect(out.startsWith("from Rein\n")).toBe(true);
    const [read] = ofType(all, "tool.result").filter((p) => p.tool === "read_file");
    expect(JSON.stringify(read.output)).toContain("from Rein");
    // The Terminal's watchers saw the command, and never the secret's value.
    expect(stream).toContain("cat in.txt > out.txt");
    expect(stream).toContain("token=[secret:DEPLOY_TOKEN]");
    expect(stream).not.toContain(SECRET);
    expect(JSON.stringify(all)).not.toContain(SECRET);
    // Nothing is left on the machine.
    expect(fs.existsSync(hostFolder(runId))).toBe(false);
    expect((await runRow(runId)).tier).toBe("T1");
  }, 60_000);

  it("a connection that drops mid-command is made again within the grace period: the run goes on, the command is not run again", async () => {
    await tk.t.db.machine.update({ where: { id: machineId }, data: { confinement: "user" } });
    const counter = path.join(home, `t3-counter-${Date.now()}`);
    const runId = await launch({
      stopOnError: false,
      turns: [
        { toolCalls: [upgrade] },
        { toolCalls: [{ tool: "shell", args: { command: `echo ran >> ${counter}; echo partial > partial.txt; sleep 20; echo done` } }] },
        { toolCalls: [{ tool: "shell", args: { command: "cat partial.txt; echo next > next.txt" } }] },
        { text: "Done." },
      ],
    });
    await approveConsent(runId);
    await waitFor(() => fs.existsSync(counter), "the command to start on the machine", { limitMs: 20_000 });
    // The connection goes (its session's processes killed); sshd still listens.
    sshd.dropConnections();
    expect(await status(runId, ["succeeded", "failed", "canceled", "paused"])).toBe("succeeded");
    const all = await events(runId);
    const shells = ofType(all, "tool.result").filter((p) => p.tool === "shell");
    expect(shells[0]).toMatchObject({ ok: false, error: { code: "MACHINE_DROPPED" } });
    expect(shells[0].error.message).toContain("it is not run again");
    // What the command did before the drop came back with the machine's workspace, and the next command saw it.
    expect(shells[1], JSON.stringify(shells[1])).toMatchObject({ ok: true });
    expect(shells[1].output.output).toContain("partial");
    const [restored] = ofType(all, "tier.restored");
    expect(restored).toMatchObject({ tier: "T3", machineId });
    expect(restored.reason).toMatch(/^The connection to the machine build-box dropped: Rein reconnected after [\d.]+ s/);
    expect(ofType(all, "run.state").map((p) => p.to)).not.toContain("paused");
    expect(fs.readFileSync(counter, "utf8")).toBe("ran\n");
    expect(fs.readFileSync(path.join(tk.t.dir, "workspaces", runId, "next.txt"), "utf8")).toBe("next\n");
    await waitFor(() => !fs.existsSync(hostFolder(runId)), "the run's folder on the machine to go");
    fs.rmSync(counter, { force: true });
  }, 60_000);

  it("a machine gone for longer than the grace period pauses the run with the reason; the resume reconnects and the command is not run again", async () => {
    // The side-effect counter lives outside the run's folder: the machine's user confinement lets the command reach it.
    await tk.t.db.machine.update({ where: { id: machineId }, data: { confinement: "user" } });
    const counter = path.join(home, `t3-counter-${Date.now()}`);
    const runId = await launch({
      stopOnError: false,
      turns: [
        { toolCalls: [upgrade] },
        { toolCalls: [{ tool: "shell", args: { command: `echo ran >> ${counter}; sleep 20; echo done` } }] },
        { toolCalls: [{ tool: "shell", args: { command: "echo after-resume > after.txt" } }] },
        { text: "Done." },
      ],
    });
    await approveConsent(runId);
    await waitFor(() => fs.existsSync(counter), "the command to start on the machine", { limitMs: 20_000 });
    // The machine goes away: sshd and every session of it (processes in the test's namespace only).
    await sshd.stop();
    sshd.dropConnections();
    expect(await status(runId, ["paused", "failed", "succeeded"])).toBe("paused");
    const row = await runRow(runId);
    expect(row.tier).toBe("T3");
    const paused = ofType(await events(runId), "run.state").at(-1);
    expect(paused?.reason).toMatch(
      /^The connection to the machine build-box dropped and Rein could not reconnect within \d+ s \(.+\); it resumes on the machine when a person resumes it$/,
    );
    const [cut] = ofType(await events(runId), "tool.result").filter((p) => p.tool === "shell");
    expect(cut).toMatchObject({ ok: false, error: { code: "MACHINE_LOST" } });

    await sshd.start();
    await tk.kernel.pool.resume(runId, { id: tk.users.operator, name: "Operator" });
    expect(await status(runId, ["succeeded", "failed", "canceled"])).toBe("succeeded");
    const all = await events(runId);
    expect(ofType(all, "tier.restored")).toEqual([expect.objectContaining({ tier: "T3", machineId })]);
    // The interrupted command ran once; the next one ran on the machine and came back.
    expect(fs.readFileSync(counter, "utf8")).toBe("ran\n");
    const shells = ofType(all, "tool.result").filter((p) => p.tool === "shell");
    expect(shells, JSON.stringify(shells)).toHaveLength(2);
    expect(shells[1], JSON.stringify(all.map((e) => [e.type, e.payload]).slice(-14))).toMatchObject({ ok: true });
    expect(fs.readFileSync(path.join(tk.t.dir, "workspaces", runId, "after.txt"), "utf8")).toBe("after-resume\n");
    await waitFor(() => !fs.existsSync(hostFolder(runId)), "the run's folder on the machine to go");
    fs.rmSync(counter, { force: true });
  }, 60_000);
});
