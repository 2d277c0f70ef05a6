// Attack suite: a run's terminal on a remote machine and what Rein does there
// for it (docs/desktops-and-tiers.md#a-runs-terminal-on-a-machine). The agent
// controls what its commands do on the machine; without bubblewrap there they
// run as the machine's user. Against a real sshd in a network namespace
// (test/helpers/sshd.ts). Each of these failed before its fix:
// - the run stops the SFTP server of its pod's connection (the connection still
//   answers keepalives): a command given a secret waited for good, past its
//   own time limit and a cancel;
// - a pod.pid whose session number the machine has given to another run's
//   shell since (a dropped connection, a restart): clearing the first run's
//   leftovers killed the other run's shell;
// - a run leaving its machine while Rein reconnects to it: the reconnect made
//   the run's session, shell and folder on the machine again afterwards;
// - a file written with the file tools after the run's last command was lost
//   when the run paused or left its machine (the copy back replaced it).
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, PodPool, probeSandbox } from "@/server/compute";
import {
  RemotePod,
  connectMachine,
  ed25519KeyPair,
  pushWorkspace,
  removeRunFolder,
  type MachineCandidate,
  type MachineConnection,
} from "@/server/machines";
import { MachineRuns } from "@/server/tiers";
import { createTestKernel } from "../helpers/kernel";
import { callerFor } from "../helpers/services";
import { startTestSshd, type TestSshd } from "../helpers/sshd";

let sshd: TestSshd;
let conn: MachineConnection;
let dir: string;
const id = crypto.randomBytes(4).toString("hex");
const runs: string[] = [];

async function sh(command: string) {
  const r = await conn.exec(command, { signal: AbortSignal.timeout(20_000) });
  if (r.code !== 0) throw new Error(`${command}: ${r.stderr}`);
  return r.stdout;
}

async function newRun(name: string): Promise<{ runId: string; ws: string }> {
  const runId = `atk-${name}-${id}`;
  runs.push(runId);
  const ws = path.join(dir, name);
  fs.mkdirSync(ws, { recursive: true });
  await pushWorkspace(conn, ws, runId);
  return { runId, ws };
}

async function waitForExit(pod: RemotePod) {
  const until = Date.now() + 5_000;
  while (pod.alive() && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  expect(pod.alive()).toBe(false);
}

/** What a promise came to within `ms`: its value, its error, or "still waiting". */
async function within<T>(p: Promise<T>, ms: number): Promise<T | Error | "still waiting"> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"still waiting">((r) => (timer = setTimeout(() => r("still waiting"), ms)));
  try {
    return await Promise.race([p.catch((err: Error) => err), late]);
  } finally {
    clearTimeout(timer);
  }
}

beforeAll(async () => {
  sshd = await startTestSshd();
  const pair = ed25519KeyPair();
  sshd.authorize(pair.public);
  conn = await connectMachine(
    { name: "runs-attack-box", host: sshd.host, port: sshd.port, user: sshd.user },
    { privateKey: pair.private, pinnedFingerprint: sshd.fingerprint() },
  );
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-runs-attack-"));
}, 60_000);

afterAll(async () => {
  if (conn && !conn.isClosed) {
    // Whatever a test stopped on the machine goes on again, so the folders can be removed.
    await conn.exec(`pkill -CONT -u "$(id -u)" -f internal-sftp; true`, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
    for (const run of runs) await removeRunFolder(conn, run).catch(() => undefined);
    conn.close();
  }
  await sshd?.cleanup();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("a machine step that never answers", () => {
  it("a command given a secret, with the pod's SFTP server stopped by the run, fails within its time limit instead of waiting for good", async () => {
    const { runId, ws } = await newRun("sftp-stop");
    const pod = await RemotePod.open({ conn, runId, workspaceDir: ws, confinement: "user", limits: DEFAULT_LIMITS, sftpTimeoutMs: 1500 });
    try {
      // The run (the machine's user, no bubblewrap) stops the SFTP server of the connection its shell came
      // by (only that one: other test files' sshds log in as the same user). The connection still answers
      // its keepalives; the pod's SFTP session never answers again.
      const stop = await pod.exec(
        `s=$(ps -o ppid= -p $PPID | tr -d ' '); pkill -STOP -P "$s" -u "$(id -u)" -f internal-sftp && echo stopped`,
        { timeoutMs: 10_000 },
      );
      expect(stop.output).toContain("stopped");
      const started = Date.now();
      const r = await within(pod.exec("echo token=$TOKEN", { timeoutMs: 2_000, env: { TOKEN: "t0ken" } }), 15_000);
      expect(r).not.toBe("still waiting");
      expect(r).toBeInstanceOf(Error);
      expect(String((r as Error).message)).toMatch(/within 1\.5 s/);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await sh(`pkill -CONT -u "$(id -u)" -f internal-sftp; true`);
      await pod.dispose().catch(() => undefined);
    }
  }, 40_000);
});

describe("what a pod left on the machine", () => {
  it("a pod.pid whose session number now names another run's shell (the number reused) kills nothing of that run", async () => {
    const a = await newRun("stale-pid");
    const b = await newRun("other-run");
    const podB = await RemotePod.open({ conn, runId: b.runId, workspaceDir: b.ws, confinement: "bubblewrap", limits: DEFAULT_LIMITS });
    try {
      const sidB = (await sh(`cat rein-runs/${b.runId}/pod.pid`)).trim().split(/\s+/)[0];
      expect(sidB).toMatch(/^\d+$/);
      // Run A's pod wrote its pod.pid, then its session ended with a connection that dropped (the file
      // stays: nothing could remove it). Its session's number is free again, and the machine gives it
      // to run B's new shell: here the number in A's file is made B's, all else of the file kept.
      const podA = await RemotePod.open({ conn, runId: a.runId, workspaceDir: a.ws, confinement: "bubblewrap", limits: DEFAULT_LIMITS });
      const written = await sh(`cat rein-runs/${a.runId}/pod.pid`);
      await podA.dispose();
      const sidA = written.trim().split(/\s+/)[0];
      const stale = written.replace(sidA, sidB);
      await sh(`printf '%s' '${stale}' > rein-runs/${a.runId}/pod.pid`);
      // Run A comes back (a reconnect, a resume): what its old pod left is cleared.
      await RemotePod.killLeftovers(conn, a.runId);
      const r = await within(podB.exec("echo still-here", { timeoutMs: 5_000 }), 8_000);
      expect(r).toMatchObject({ exitCode: 0 });
      expect((r as { output: string }).output).toContain("still-here");
      expect(await sh(`ps -o pid= -s ${sidB} | wc -l`)).not.toMatch(/^\s*0\s*$/);
    } finally {
      await podB.dispose().catch(() => undefined);
    }
  }, 40_000);

  it("the pod's own session, its file as the pod wrote it, is still killed: its shell and what it left running", async () => {
    const c = await newRun("own-pid");
    const pod = await RemotePod.open({ conn, runId: c.runId, workspaceDir: c.ws, confinement: "user", limits: DEFAULT_LIMITS });
    try {
      const mark = `77${crypto.randomInt(100_000, 999_999)}`;
      await pod.exec(`sleep ${mark} >/dev/null 2>&1 &`, { timeoutMs: 5_000 });
      expect(await sh(`pgrep -u "$(id -u)" -fx 'sleep ${mark}' | wc -l`)).toMatch(/^\s*1\s*$/);
      await RemotePod.killLeftovers(conn, c.runId);
      expect(await sh(`pgrep -u "$(id -u)" -fx 'sleep ${mark}' | wc -l`)).toMatch(/^\s*0\s*$/);
      await waitForExit(pod);
    } finally {
      await pod.dispose().catch(() => undefined);
    }
  }, 30_000);
});

/** A kernel, a machine of its own (a drop ends every connection to it) registered and Ready, and T3's runs over them. */
async function withMachine(
  fn: (t: {
    tk: Awaited<ReturnType<typeof createTestKernel>>;
    box: TestSshd;
    remote: MachineRuns;
    pods: PodPool;
    machine: MachineCandidate;
    onBox: (command: string) => Promise<string>;
  }) => Promise<void>,
) {
  const [tk, box] = await Promise.all([createTestKernel({ secrets: true }), startTestSshd()]);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-runs-attack-pods-"));
  const pods = new PodPool({ dataDir, size: 0, limits: DEFAULT_LIMITS, sandbox: probeSandbox(), allowUnsandboxed: true });
  await pods.start();
  const remote = new MachineRuns({
    db: tk.t.db,
    keyring: tk.keyring!,
    terminals: pods,
    workspaceFor: tk.kernel.deps.workspaceFor,
    graceMs: 10_000,
  });
  let check: MachineConnection | null = null;
  try {
    const admin = callerFor(tk, tk.actors.admin);
    const m = await admin.machines.register({ name: "runs-box", host: box.host, user: box.user, concurrency: 2 });
    box.authorize(m.publicKey);
    await admin.machines.contact({ id: m.id });
    await admin.machines.confirmKey({ id: m.id, fingerprint: box.fingerprint() });
    await admin.machines.test({ id: m.id });
    const choice = await remote.choose("run-x", { id: null, name: "(no team)" }, []);
    if (!choice.ok) throw new Error(choice.reason);
    const onBox = async (command: string) => {
      if (!check || check.isClosed) {
        const pair = ed25519KeyPair();
        box.authorize(pair.public);
        check = await connectMachine(
          { name: "runs-box", host: box.host, port: box.port, user: box.user },
          { privateKey: pair.private, pinnedFingerprint: box.fingerprint() },
        );
      }
      return (await check.exec(command, { signal: AbortSignal.timeout(10_000) })).stdout;
    };
    await fn({ tk, box, remote, pods, machine: choice.machine, onBox });
  } finally {
    (check as MachineConnection | null)?.close();
    await remote.stop();
    await pods.stop();
    await box.cleanup();
    await tk.cleanup();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

describe("a run that leaves its machine while Rein reconnects to it", () => {
  it("the reconnect in flight ends, and nothing of the run stays: no session, no shell, no folder on the machine", async () => {
    await withMachine(async ({ tk, box, remote, pods, machine, onBox }) => {
      const runId = `atk-leave-${id}`;
      const ws = tk.kernel.deps.workspaceFor(runId);
      await ws.ensure();
      fs.writeFileSync(path.join(ws.root, "a.txt"), "a");
      await remote.enter(runId, machine, () => undefined);
      box.dropConnections();
      const until = Date.now() + 10_000;
      while (!remote.dropped(runId) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(remote.dropped(runId)).toBe(true);
      // Rein reconnects (the drop noticed), and the run ends meanwhile: it leaves its machine.
      const regained = remote.regain(runId);
      const left = await remote.leave(runId);
      await regained;
      expect(left).not.toBeNull();
      // Give a reconnect that went on regardless the time to finish what it does.
      await new Promise((r) => setTimeout(r, 1500));
      expect(remote.session(runId)).toBeUndefined();
      expect(pods.get(runId)?.alive() ?? false).toBe(false);
      expect((await onBox(`test -e rein-runs/${runId} && echo there || echo gone`)).trim()).toBe("gone");
    });
  }, 60_000);
});

describe("changes the file tools made here that the machine has not", () => {
  it("are not lost when the run leaves its machine, or pauses, before its next command", async () => {
    await withMachine(async ({ tk, remote, machine }) => {
      const runId = `atk-unsent-${id}`;
      const ws = tk.kernel.deps.workspaceFor(runId);
      await ws.ensure();
      await remote.enter(runId, machine, () => undefined);
      // The agent's write_file on T3 (through MachineBoundWorkspace): the workspace here changes, marked unsent.
      remote.changedHere(runId);
      fs.writeFileSync(path.join(ws.root, "report.md"), "the run's result\n");
      // The run pauses (a person takes over): what the machine has is copied back.
      await remote.pull(runId);
      expect(fs.existsSync(path.join(ws.root, "report.md"))).toBe(true);
      remote.changedHere(runId);
      fs.writeFileSync(path.join(ws.root, "final.md"), "written last\n");
      // The run ends: it leaves its machine.
      await remote.leave(runId);
      expect(fs.readFileSync(path.join(ws.root, "final.md"), "utf8")).toBe("written last\n");
      expect(fs.existsSync(path.join(ws.root, "report.md"))).toBe(true);
    });
  }, 60_000);
});
