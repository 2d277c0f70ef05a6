// npm run bench:tiers — how long each compute tier takes to give a run its
// environment, in one run:
//   T1: a terminal pod's start, cold (no warm pool), the baseline.
//   T2: upgrade_tier T1 → T2 (a real desktop: Xvfb, openbox, Chromium,
//       x11vnc), cold and from the warm pool: the migration itself (provision,
//       join the workspace, probe) and the whole call (the tier state
//       machine's facts, the move, the records). Skipped, saying why, where
//       desktops cannot run.
//   T3: a remote machine over SSH, against a real sshd in a network namespace
//       of its own (test/helpers/sshd.ts, root only): connecting (handshake and
//       login with the pinned host key), pushing a 10 MiB workspace there and
//       pulling it back, a terminal pod's start on the machine, and the whole
//       upgrade_tier T1 → T3 call (connect, push, pod), the run's end apart.
//   T4: a person's own device: the real rein-device agent (packages/device)
//       in a network namespace of its own (test/helpers/device-agent.ts, root
//       only), talking to a Rein HTTP server with the device endpoints and a
//       DeviceHub (test/helpers/device.ts): pairing (a code made by the
//       service to the device's token, the agent's own `pair` process),
//       pairing to a first command (the code made to `echo`'s output arriving
//       through the hub: pair, `run` started and online, openShell, `echo`
//       typed), and a reconnect (the agent killed and started again, until
//       online again). Pairing is not rate-limited here (1 a second per
//       address in server.ts): every sample pairs.
// The run already has its workspace, as every run the kernel drives does.
// Consent is not asked (a person's time, not the machine's). BENCH_N samples
// of each (default 5). Prints figures; asserts nothing. bench:desktop calls
// benchUpgrade() too.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DEFAULT_LIMITS, DesktopPool, PodPool, probeSandbox } from "@/server/compute";
import type { Db } from "@/server/db";
import { createPairingCode, type DeviceHub, type DeviceShell } from "@/server/devices";
import { createUser, type Acting } from "@/server/identity";
import { PrismaRunStore, PrismaSpecSource, seedBuiltinSpecs } from "@/server/kernel";
import { Budgets } from "@/server/limits";
import {
  RemotePod,
  confirmHostKey,
  contactMachine,
  openMachine,
  pullWorkspace,
  pushWorkspace,
  registerMachine,
  removeRunFolder,
  testMachine,
  type MachineConnection,
  type MachineDeps,
} from "@/server/machines";
import { memoryKeyring } from "@/server/secrets";
import { MachineRuns, TierController, defaultTierSettings, saveTierSettings } from "@/server/tiers";
import { workspaceFor } from "@/server/tools";
import { startTestSshd, type TestSshd } from "../test/helpers/sshd";
import { startDeviceServer, type DeviceServer } from "../test/helpers/device";
import {
  deviceAgentRunner,
  makeDeviceNetns,
  type AgentProcess,
  type DeviceAgentRunner,
  type DeviceNetns,
} from "../test/helpers/device-agent";
import { migratedDb, summary } from "./bench-stats";

const N = Number(process.env.BENCH_N ?? 5);

const fmt = (xs: number[]) => {
  if (!xs.length) return "no samples";
  const s = summary(xs);
  return `p50 ${s.p50.toFixed(0).padStart(5)} ms   p95 ${s.p95.toFixed(0).padStart(5)} ms   (n=${s.n})`;
};
const p50 = (xs: number[]) => (xs.length ? summary(xs).p50 : NaN);

/** Desktops cannot run on this machine: the T2 figures are skipped, not the bench. */
export class NoDesktops extends Error {
  override name = "NoDesktops";
}

export interface UpgradeFigures {
  cold: { migrationMs: number[]; callMs: number[] };
  warm: { migrationMs: number[]; callMs: number[] };
}

async function upgradeOnce(db: Db, tiers: TierController, dataDir: string, userId: string, i: number) {
  const spec = (await db.agentSpec.findFirst({ where: { name: "demo-browser" }, orderBy: { version: "desc" } }))!;
  const run = await db.run.create({
    data: { goal: `bench ${i}`, agentName: spec.name, agentVersion: spec.version, model: spec.model, tier: "T1", createdById: userId },
    select: { id: true },
  });
  // A run on T1 has its workspace: the kernel makes it before the run's first step.
  await workspaceFor(dataDir, run.id).ensure();
  const t0 = performance.now();
  const out = await tiers.upgrade({ runId: run.id, toolCallId: `bench-${i}`, tier: "T2", reason: "benchmark" });
  const callMs = performance.now() - t0;
  await tiers.runEnded(run.id, "succeeded");
  return { migrationMs: out.durationMs, callMs, fromPool: !!out.fromPool };
}

/** `n` moves to T2 with no warm desktop, then `n` with one waiting. */
export async function benchUpgrade(n = N): Promise<UpgradeFigures> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-tiers-"));
  const db = await migratedDb(`file:${path.join(tmp, "rein.db")}`);
  const desktops = new DesktopPool({ dataDir: tmp, size: 0 });
  try {
    const why = desktops.unavailable();
    if (why) throw new NoDesktops(`No desktops on this machine: ${why}`);
    await seedBuiltinSpecs(db);
    const userId = await createUser(db, { email: "bench@rein.local", password: "bench-password", role: "operator" });
    // Consent is a person's time, not the machine's: nobody is asked here.
    const settings = defaultTierSettings({ desktop: 0 });
    settings.T2.consentRole = null;
    await saveTierSettings(db, settings, { userId, name: "bench" });
    await desktops.start();
    const tiers = new TierController({
      db,
      runs: new PrismaRunStore(db, () => {}),
      specs: new PrismaSpecSource(db),
      budgets: new Budgets({ db, flush: async () => {} }),
      desktops,
      workspaceFor: (runId) => workspaceFor(tmp, runId),
      log: { info() {}, error: (m, e) => console.error(m, e) },
    });
    const figures: UpgradeFigures = { cold: { migrationMs: [], callMs: [] }, warm: { migrationMs: [], callMs: [] } };
    for (let i = 0; i < n; i++) {
      const r = await upgradeOnce(db, tiers, tmp, userId, i);
      figures.cold.migrationMs.push(r.migrationMs);
      figures.cold.callMs.push(r.callMs);
    }
    desktops.setSize(1);
    for (let i = 0; i < n; i++) {
      const deadline = Date.now() + 60_000;
      while (desktops.stats().warm < 1) {
        if (Date.now() > deadline) throw new Error("No warm desktop started within 60 s");
        await new Promise((r) => setTimeout(r, 20));
      }
      // A warm desktop connects its browser over CDP once started; give it the moment a waiting desktop has had.
      await new Promise((r) => setTimeout(r, 1500));
      const r = await upgradeOnce(db, tiers, tmp, userId, n + i);
      if (!r.fromPool) continue;
      figures.warm.migrationMs.push(r.migrationMs);
      figures.warm.callMs.push(r.callMs);
    }
    return figures;
  } finally {
    await desktops.stop();
    await db.$disconnect();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export function printUpgrade(f: UpgradeFigures) {
  console.log(`\nUpgrade T1 → T2 (upgrade_tier, no consent asked)`);
  console.log(`migration, cold (desktop started, workspace joined, probed)  ${fmt(f.cold.migrationMs)}`);
  console.log(`migration, from the warm pool                              ${fmt(f.warm.migrationMs)}`);
  console.log(`whole upgrade_tier call, cold                              ${fmt(f.cold.callMs)}`);
  console.log(`whole upgrade_tier call, from the warm pool                ${fmt(f.warm.callMs)}`);
  const ratio = p50(f.cold.migrationMs) / Math.max(1, p50(f.warm.migrationMs));
  console.log(`warm pool speed-up (p50 migration, cold / warm)            ${ratio.toFixed(1)}×`);
}

/** `n` terminal pods started cold (no warm pool), each attached to a fresh workspace: attach() returns once the shell is ready. */
export async function benchT1Pod(n = N): Promise<{ startMs: number[]; sandbox: string }> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-t1-"));
  const sandbox = probeSandbox();
  const pods = new PodPool({ dataDir: tmp, size: 0, limits: DEFAULT_LIMITS, sandbox, allowUnsandboxed: true });
  const startMs: number[] = [];
  try {
    await pods.start();
    for (let i = 0; i < n; i++) {
      const runId = `bench-t1-${i}`;
      const t0 = performance.now();
      await pods.attach(runId, path.join(tmp, "workspaces", runId));
      startMs.push(performance.now() - t0);
      await pods.release(runId);
    }
    return { startMs, sandbox: sandbox.ok ? "bubblewrap" : "none" };
  } finally {
    await pods.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export interface T3Figures {
  confinement: string;
  workspaceBytes: number;
  workspaceFiles: number;
  connectMs: number[];
  pushMs: number[];
  pullMs: number[];
  podStartMs: number[];
  /** The tier controller's own measure of the move (connect, push, pod). */
  migrationMs: number[];
  callMs: number[];
  /** runEnded: the workspace pulled back, the pod stopped, the run's folder removed, the connection closed. */
  endMs: number[];
}

const BIG_FILE_BYTES = 8 * 1024 * 1024;
const SMALL_FILES = 200;
const SMALL_FILE_BYTES = 10 * 1024;

/** A 10 MiB workspace: one 8 MiB file of random bytes and 200 files of 10 KiB in 10 folders. */
function fillWorkspace(dir: string) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "data.bin"), crypto.randomBytes(BIG_FILE_BYTES));
  for (let i = 0; i < SMALL_FILES; i++) {
    const folder = path.join(dir, "src", `part-${i % 10}`);
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, `file-${i}.txt`), crypto.randomBytes(SMALL_FILE_BYTES / 2).toString("hex"));
  }
}

/** The test sshd in its namespace, a machine registered for it with its host key pinned, then each T3 figure `n` times. */
export async function benchT3(n = N): Promise<T3Figures> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-t3-"));
  let sshd: TestSshd | null = null;
  let db: Db | null = null;
  let conn: MachineConnection | null = null;
  let pods: PodPool | null = null;
  let remote: MachineRuns | null = null;
  const runIds: string[] = [];
  try {
    [sshd, db] = await Promise.all([startTestSshd(), migratedDb(`file:${path.join(tmp, "rein.db")}`)]);
    await seedBuiltinSpecs(db);
    const keyring = memoryKeyring();
    const deps: MachineDeps = { db, keyring };
    const userId = await createUser(db, { email: "bench@rein.local", password: "bench-password", role: "admin" });
    const by: Acting = {
      actor: { userId, email: "bench@rein.local", name: "Bench", role: "admin", via: "cli", teamIds: [] },
      channel: "bench",
    };
    const machine = await registerMachine(deps, by, {
      name: "bench-box",
      host: sshd.host,
      port: sshd.port,
      user: sshd.user,
      concurrency: 8,
    });
    sshd.authorize(machine.publicKey);
    await contactMachine(deps, by, machine.id);
    await confirmHostKey(deps, by, machine.id, sshd.fingerprint());
    const tested = await testMachine(deps, by, machine.id);
    if (!tested.ok) throw new Error(`The test machine did not pass its connection test: ${tested.words}`);
    const confinement = tested.machine.confinement === "bubblewrap" ? "bubblewrap" : "user";

    const source = path.join(tmp, "source");
    fillWorkspace(source);
    const figures: T3Figures = {
      confinement,
      workspaceBytes: BIG_FILE_BYTES + SMALL_FILES * SMALL_FILE_BYTES,
      workspaceFiles: 1 + SMALL_FILES,
      connectMs: [],
      pushMs: [],
      pullMs: [],
      podStartMs: [],
      migrationMs: [],
      callMs: [],
      endMs: [],
    };

    // (a) Connecting as a run does: the machine's row, its key opened, handshake, the pinned host key checked, login.
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const c = await openMachine(deps, machine.id);
      figures.connectMs.push(performance.now() - t0);
      c.close();
    }

    // (b) and (c) over one connection: the workspace pushed, a pod started on it and stopped, the workspace pulled back.
    conn = await openMachine(deps, machine.id);
    const local = path.join(tmp, "copy", "workspace");
    fs.cpSync(source, local, { recursive: true });
    for (let i = 0; i < n; i++) {
      const runId = `bench-t3-sync-${i}`;
      runIds.push(runId);
      let t0 = performance.now();
      await pushWorkspace(conn, local, runId);
      figures.pushMs.push(performance.now() - t0);
      t0 = performance.now();
      const pod = await RemotePod.open({ conn, runId, workspaceDir: local, confinement, limits: DEFAULT_LIMITS });
      figures.podStartMs.push(performance.now() - t0);
      await pod.dispose("the benchmark is done with it");
      t0 = performance.now();
      await pullWorkspace(conn, local, runId, { confinement });
      figures.pullMs.push(performance.now() - t0);
      await removeRunFolder(conn, runId);
    }

    // (d) upgrade_tier T1 → T3, the run's 10 MiB workspace in place; then the run's end.
    const settings = defaultTierSettings({ desktop: 0 });
    settings.T2.consentRole = null;
    settings.T3.enabled = true;
    settings.T3.consentRole = null;
    await saveTierSettings(db, settings, { userId, name: "bench" });
    pods = new PodPool({
      dataDir: path.join(tmp, "pods"),
      size: 0,
      limits: DEFAULT_LIMITS,
      sandbox: probeSandbox(),
      allowUnsandboxed: true,
    });
    await pods.start();
    const runsDb = db;
    remote = new MachineRuns({ db: runsDb, keyring, terminals: pods, workspaceFor: (runId) => workspaceFor(tmp, runId) });
    const tiers = new TierController({
      db: runsDb,
      runs: new PrismaRunStore(runsDb, () => {}),
      specs: new PrismaSpecSource(runsDb),
      budgets: new Budgets({ db: runsDb, flush: async () => {} }),
      terminals: pods,
      remote,
      workspaceFor: (runId) => workspaceFor(tmp, runId),
      log: { info() {}, error: (m, e) => console.error(m, e) },
    });
    const spec = (await runsDb.agentSpec.findFirst({ where: { name: "demo-browser" }, orderBy: { version: "desc" } }))!;
    for (let i = 0; i < n; i++) {
      const run = await runsDb.run.create({
        data: {
          goal: `bench T3 ${i}`,
          agentName: spec.name,
          agentVersion: spec.version,
          model: spec.model,
          tier: "T1",
          complexity: 0.8,
          createdById: userId,
        },
        select: { id: true },
      });
      runIds.push(run.id);
      const workspace = workspaceFor(tmp, run.id);
      await workspace.ensure();
      fs.cpSync(source, workspace.root, { recursive: true });
      const t0 = performance.now();
      const out = await tiers.upgrade({ runId: run.id, toolCallId: `bench-t3-${i}`, tier: "T3", reason: "benchmark" });
      figures.callMs.push(performance.now() - t0);
      figures.migrationMs.push(out.durationMs);
      const t1 = performance.now();
      await tiers.runEnded(run.id, "succeeded");
      figures.endMs.push(performance.now() - t1);
    }
    return figures;
  } finally {
    await remote?.stop().catch(() => undefined);
    await pods?.stop().catch(() => undefined);
    if (conn && !conn.isClosed) {
      for (const runId of runIds) await removeRunFolder(conn, runId).catch(() => undefined);
      // The folder of every run, when no other run (a test's) has one there.
      await conn.exec("rmdir rein-runs 2>/dev/null; true", { maxOutputBytes: 1024 }).catch(() => undefined);
      conn.close();
    }
    await sshd?.cleanup();
    await db?.$disconnect();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const mibPerSec = (bytes: number, ms: number[]) => (bytes / 1024 / 1024 / (p50(ms) / 1000)).toFixed(1);

const row = (label: string, figures: string) => `${label.padEnd(59)}${figures}`;

export function printT1(f: { startMs: number[]; sandbox: string }) {
  console.log(`\nT1: a terminal pod (sandbox: ${f.sandbox}), cold`);
  console.log(row("pod start (attach, shell ready)", fmt(f.startMs)));
}

export function printT3(f: T3Figures) {
  const mib = (f.workspaceBytes / 1024 / 1024).toFixed(1);
  console.log(`\nT3: a remote machine over SSH (the test sshd in its network namespace; confinement: ${f.confinement})`);
  console.log(row("connect (handshake, pinned host key, login)", fmt(f.connectMs)));
  console.log(
    row(
      `push of the workspace (${mib} MiB, ${f.workspaceFiles} files)`,
      `${fmt(f.pushMs)}   ${mibPerSec(f.workspaceBytes, f.pushMs)} MiB/s`,
    ),
  );
  console.log(row("pull of it back", `${fmt(f.pullMs)}   ${mibPerSec(f.workspaceBytes, f.pullMs)} MiB/s`));
  console.log(row("pod start on the machine (shell ready)", fmt(f.podStartMs)));
  console.log(`Upgrade T1 → T3 (upgrade_tier, no consent asked, the run's ${mib} MiB workspace)`);
  console.log(row("migration (connect, push, pod on the machine)", fmt(f.migrationMs)));
  console.log(row("whole upgrade_tier call", fmt(f.callMs)));
  console.log(row("run end (pull back, pod stopped, folder removed)", fmt(f.endMs)));
}

export interface T4Figures {
  /** Whether the device's terminal runs in bubblewrap (its capabilities say). */
  confined: boolean;
  /** (a) A code made by the service → the device's token stored (`rein-device pair` ended). */
  pairMs: number[];
  /** (b) A code made → the first command's output through the hub, and its three parts. */
  firstCommandMs: number[];
  firstPairMs: number[];
  /** `rein-device run` started → the hub has it online. */
  onlineMs: number[];
  /** openShell → `echo`'s output seen. */
  shellMs: number[];
  /** (c) The agent killed → online again (offline seen, `run` started again, hello). */
  reconnectMs: number[];
}

/** Resolves when `device` comes online (or goes offline) in `hub`; fails after `limitMs`, or when `agent` exits first. */
function hubEvent(hub: DeviceHub, event: "online" | "offline", deviceId: string, agent?: AgentProcess, limitMs = 20_000) {
  return new Promise<void>((resolve, reject) => {
    const done = (err?: Error) => {
      stop();
      clearTimeout(timer);
      if (err) reject(err);
      else resolve();
    };
    const stop = hub.on(event, (d) => void (d.id === deviceId && done()));
    const timer = setTimeout(
      () => done(new Error(`The device did not go ${event} within ${limitMs} ms${agent ? `:\n${agent.output()}` : ""}`)),
      limitMs,
    );
    void agent?.exited.then((code) => done(new Error(`The device agent ended (${code}) before going ${event}:\n${agent.output()}`)));
  });
}

/** A namespace, a device server on its host side, the agent built; then each T4 figure `n` times. */
export async function benchT4(by: Acting, db: Db, tmp: string, n = N): Promise<T4Figures> {
  let ns: DeviceNetns | null = null;
  let server: DeviceServer | null = null;
  let agent: DeviceAgentRunner | null = null;
  let running: AgentProcess | null = null;
  let shell: DeviceShell | null = null;
  // Interrupted (Ctrl-C): the agents, the namespace and its link go too, then the bench ends as the signal would end it.
  const onSignal = (signal: NodeJS.Signals) => {
    agent?.cleanup();
    ns?.cleanup();
    fs.rmSync(tmp, { recursive: true, force: true });
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    ns = makeDeviceNetns();
    server = await startDeviceServer(db, { host: ns.hostAddress, pairsPerSecond: 1_000_000 });
    agent = await deviceAgentRunner(ns.netns);
    const folder = path.join(tmp, "device-folder");
    fs.mkdirSync(folder);
    const hub = server.hub;
    const url = server.url;
    const runner = agent;
    const configFile = path.join(agent.home, ".config", "rein-device", "config.json");
    const figures: T4Figures = {
      confined: false,
      pairMs: [],
      firstCommandMs: [],
      firstPairMs: [],
      onlineMs: [],
      shellMs: [],
      reconnectMs: [],
    };

    /** A code made, the agent's `pair` run to its end: the device's id, its token stored on the device. */
    const pair = async (name: string) => {
      const { code } = await createPairingCode(db, by, {});
      const paired = await runner.cli(["pair", url, code, "--folder", folder, "--name", name, "--commands", "any"]);
      if (paired.code !== 0) throw new Error(`rein-device pair ended with ${paired.code}:\n${paired.output}`);
      const config = JSON.parse(fs.readFileSync(configFile, "utf8")) as { deviceId?: string; token?: string };
      if (!config.deviceId || !config.token?.startsWith("rdv_")) throw new Error(`rein-device pair stored no token:\n${paired.output}`);
      return config.deviceId;
    };
    /** `rein-device run` started, until the hub has it online. */
    const start = async (deviceId: string) => {
      const proc = runner.start();
      running = proc;
      await hubEvent(hub, "online", deviceId, proc);
      return proc;
    };

    // (a) Pairing.
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await pair(`bench-pair-${i}`);
      figures.pairMs.push(performance.now() - t0);
    }

    // (b) Pairing to the first command's output.
    let deviceId = "";
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      deviceId = await pair(`bench-device-${i}`);
      const t1 = performance.now();
      const proc = await start(deviceId);
      const t2 = performance.now();
      const marker = `bench-${i}-42`;
      let output = "";
      let seen = () => {};
      const echoed = new Promise<void>((resolve, reject) => {
        seen = resolve;
        setTimeout(() => reject(new Error(`No ${marker} from the device's terminal within 20 s:\n${output}`)), 20_000).unref();
      });
      echoed.catch(() => undefined);
      shell = await hub.openShell(
        deviceId,
        { cols: 100, rows: 30 },
        { onData: (d) => void ((output += d), output.includes(marker) && seen()), onExit: () => {} },
      );
      // The shell echoes what is typed: $((40+2)) is 42 only in what the command printed.
      await shell.write(`echo bench-${i}-$((40+2))\n`);
      await echoed;
      const t3 = performance.now();
      figures.firstCommandMs.push(t3 - t0);
      figures.firstPairMs.push(t1 - t0);
      figures.onlineMs.push(t2 - t1);
      figures.shellMs.push(t3 - t2);
      figures.confined = hub.online().find((d) => d.id === deviceId)?.capabilities.confined ?? false;
      await shell.close();
      shell = null;
      if (i < n - 1) await proc.kill();
    }

    // (c) A reconnect: the last device's agent killed and started again.
    for (let i = 0; i < n; i++) {
      const proc = running as AgentProcess | null;
      if (!proc) throw new Error("No device agent is running to kill");
      const t0 = performance.now();
      const offline = hubEvent(hub, "offline", deviceId);
      await proc.kill();
      await offline;
      await start(deviceId);
      figures.reconnectMs.push(performance.now() - t0);
    }
    return figures;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await (shell as DeviceShell | null)?.close().catch(() => undefined);
    await (running as AgentProcess | null)?.kill().catch(() => undefined);
    agent?.cleanup();
    await server?.close().catch(() => undefined);
    ns?.cleanup();
  }
}

/** T4 on a database and a folder of its own. */
async function benchT4Alone(n = N): Promise<T4Figures> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-t4-"));
  let db: Db | null = null;
  try {
    db = await migratedDb(`file:${path.join(tmp, "rein.db")}`);
    const userId = await createUser(db, { email: "bench@rein.local", password: "bench-password", role: "operator" });
    const by: Acting = {
      actor: { userId, email: "bench@rein.local", name: "Bench", role: "operator", via: "cli", teamIds: [] },
      channel: "bench",
    };
    return await benchT4(by, db, tmp, n);
  } finally {
    await db?.$disconnect();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export function printT4(f: T4Figures) {
  console.log(
    `\nT4: a device (the rein-device agent in its network namespace, over a websocket; terminal ${f.confined ? "confined by bubblewrap" : "not confined"})`,
  );
  console.log(row("pairing (code made → the device's token, its pair command)", fmt(f.pairMs)));
  console.log(row("pairing to first command (code made → echo's output)", fmt(f.firstCommandMs)));
  console.log(row("  of which pairing", fmt(f.firstPairMs)));
  console.log(row("  of which run started → online", fmt(f.onlineMs)));
  console.log(row("  of which openShell → echo's output", fmt(f.shellMs)));
  console.log(row("reconnect (agent killed, started again, online)", fmt(f.reconnectMs)));
}

async function main() {
  console.log(`bench:tiers — ${os.cpus().length} cores, n=${N} per figure`);
  const t1 = await benchT1Pod();
  printT1(t1);

  let t2: UpgradeFigures | null = null;
  try {
    t2 = await benchUpgrade();
    printUpgrade(t2);
  } catch (err) {
    if (!(err instanceof NoDesktops)) throw err;
    console.log(`\nT2: skipped — ${err.message}`);
  }

  let t3: T3Figures | null = null;
  if (process.getuid?.() !== 0) console.log("\nT3: skipped — the test sshd needs root (a network namespace and a user)");
  else {
    t3 = await benchT3();
    printT3(t3);
  }

  if (t3) {
    const call = p50(t3.callMs);
    const parts = [`a T1 pod's start ${p50(t1.startMs).toFixed(0)} ms: ${(call / p50(t1.startMs)).toFixed(1)}×`];
    if (t2) parts.unshift(`T2's cold call ${p50(t2.cold.callMs).toFixed(0)} ms: ${(call / p50(t2.cold.callMs)).toFixed(1)}×`);
    console.log(`\nT3's whole upgrade (p50 ${call.toFixed(0)} ms) against ${parts.join("; against ")}`);
  }

  let t4: T4Figures | null = null;
  if (process.getuid?.() !== 0) console.log("\nT4: skipped — the device agent's network namespace needs root");
  else {
    t4 = await benchT4Alone();
    printT4(t4);
  }

  if (t4) {
    const start = p50(t4.firstCommandMs);
    const vs = (what: string, ms: number) => `${what} ${ms.toFixed(0)} ms: ${(start / ms).toFixed(1)}×`;
    const parts = [vs("a T1 pod's start", p50(t1.startMs))];
    if (t3) {
      parts.unshift(vs("T3's connect + pod start", p50(t3.connectMs) + p50(t3.podStartMs)));
      parts.unshift(vs("T3's whole upgrade", p50(t3.callMs)));
    }
    console.log(`\nT4's start (p50 ${start.toFixed(0)} ms, code made → first command's output) against ${parts.join("; against ")}`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
