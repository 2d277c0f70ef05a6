// A real OpenSSH server for the machine tests (docs/desktops-and-tiers.md#t3-remote-machines):
// Debian's /usr/sbin/sshd in a network namespace this helper makes, with an
// address of its own on a veth pair (host 10.201.X.1/30, sshd 10.201.X.2/30),
// its own config and host key in a temporary directory, key logins only, as
// the dedicated non-root user rein-t3. X is claimed by creating the namespace
// (an atomic `ip netns add`), so parallel test files never share one; a
// namespace left by a test process that died is taken back.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export const SSHD = "/usr/sbin/sshd";
export const T3_USER = "rein-t3";

export interface TestSshd {
  /** The address Rein connects to: 10.201.X.2 */
  host: string;
  port: number;
  user: string;
  /** The namespace's name, to run commands in it (ip netns exec). */
  netns: string;
  /** `ssh-keygen -lf` of the host key sshd presents now: "SHA256:…" */
  fingerprint(): string;
  /** Lets a public key ("ssh-ed25519 AAAA… comment") log in as the user. */
  authorize(publicKey: string): void;
  /** Restarts sshd with a freshly generated host key (a reinstalled machine). */
  replaceHostKey(): Promise<void>;
  /** Ends every connection (each session's processes, and what they started), sshd still listening. */
  dropConnections(): void;
  /** Stops (SIGSTOP) every connection's processes, sshd still listening: the machine goes quiet. Returns what wakes them. */
  freezeConnections(): () => void;
  /** Stops sshd without removing the namespace (connections are then refused). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** What sshd wrote to stderr (its log). */
  log(): string;
  /** Kills sshd, removes the namespace, the veth pair and the temporary directory. */
  cleanup(): Promise<void>;
}

const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"] }).toString();

function tryRun(cmd: string, args: string[]): boolean {
  try {
    run(cmd, args);
    return true;
  } catch {
    return false;
  }
}

const ownerFile = (slot: number) => path.join(os.tmpdir(), `rein-t3-netns-${slot}.owner`);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function removeSlot(slot: number) {
  // What still runs in the namespace (sshd's sessions outlive its listener, and what they started) goes with it.
  let pids: string[] = [];
  try {
    pids = run("ip", ["netns", "pids", `rein-t3-${slot}`])
      .split(/\s+/)
      .filter((p) => /^\d+$/.test(p));
  } catch {
    /* no namespace */
  }
  for (const pid of pids) {
    try {
      process.kill(Number(pid), "SIGKILL");
    } catch {
      /* gone meanwhile */
    }
  }
  tryRun("ip", ["link", "del", `rt3h${slot}`]);
  tryRun("ip", ["netns", "del", `rein-t3-${slot}`]);
  fs.rmSync(ownerFile(slot), { force: true });
}

/** A free slot X, claimed by creating its namespace. */
function claimSlot(): number {
  const start = (process.pid * 7 + Math.floor(Math.random() * 256)) % 250;
  for (let i = 0; i < 250; i++) {
    const slot = ((start + i) % 250) + 1;
    if (tryRun("ip", ["netns", "add", `rein-t3-${slot}`])) {
      fs.writeFileSync(ownerFile(slot), String(process.pid));
      return slot;
    }
    // Taken: by a live test process, or left behind by one that died.
    let owner = 0;
    try {
      owner = Number(fs.readFileSync(ownerFile(slot), "utf8"));
    } catch {
      /* no owner file: being claimed right now, or very old; leave it */
      continue;
    }
    if (owner && !alive(owner)) removeSlot(slot);
  }
  throw new Error("No free 10.201.X.0/30 slot for a test sshd (ip netns list shows them)");
}

/** The dedicated non-root account the test sshd logs in as; made once, shared by every test file. */
function ensureUser() {
  if (tryRun("id", ["-u", T3_USER])) return;
  // "*" as the password: no password login, but not a locked account (sshd refuses those without PAM).
  if (!tryRun("useradd", ["--create-home", "--shell", "/bin/sh", "--password", "*", T3_USER]) && !tryRun("id", ["-u", T3_USER]))
    throw new Error(`Could not create the user ${T3_USER} (useradd needs root)`);
}

async function listening(host: string, port: number, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host, port });
      s.setTimeout(500);
      s.once("connect", () => (s.destroy(), resolve(true)));
      s.once("error", () => resolve(false));
      s.once("timeout", () => (s.destroy(), resolve(false)));
    });
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

export async function startTestSshd(): Promise<TestSshd> {
  if (process.getuid?.() !== 0) throw new Error("The machine tests make a network namespace and a user: they run as root");
  if (!fs.existsSync(SSHD)) throw new Error(`${SSHD} is missing: install openssh-server (bash scripts/ensure-deps.sh test)`);
  ensureUser();
  const slot = claimSlot();
  const netns = `rein-t3-${slot}`;
  const hostSide = `rt3h${slot}`;
  const nsSide = `rt3n${slot}`;
  const host = `10.201.${slot}.2`;
  const port = 22;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-sshd-"));
  // sshd reads authorized_keys as the user: the directory and the file are readable by all, writable by root.
  fs.chmodSync(dir, 0o755);
  const hostKey = path.join(dir, "host_ed25519");
  const authorized = path.join(dir, "authorized_keys");
  fs.writeFileSync(authorized, "", { mode: 0o644 });
  let child: ChildProcess | null = null;
  let stderr = "";
  try {
    run("ip", ["link", "add", hostSide, "type", "veth", "peer", "name", nsSide]);
    run("ip", ["link", "set", nsSide, "netns", netns]);
    run("ip", ["addr", "add", `10.201.${slot}.1/30`, "dev", hostSide]);
    run("ip", ["link", "set", hostSide, "up"]);
    run("ip", ["netns", "exec", netns, "ip", "addr", "add", `${host}/30`, "dev", nsSide]);
    run("ip", ["netns", "exec", netns, "ip", "link", "set", nsSide, "up"]);
    run("ip", ["netns", "exec", netns, "ip", "link", "set", "lo", "up"]);
    // The privilege separation directory sshd insists on.
    fs.mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
  } catch (err) {
    removeSlot(slot);
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  const newHostKey = () => {
    fs.rmSync(hostKey, { force: true });
    fs.rmSync(`${hostKey}.pub`, { force: true });
    run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "rein-test-host", "-f", hostKey]);
  };
  newHostKey();
  const config = path.join(dir, "sshd_config");
  fs.writeFileSync(
    config,
    [
      `ListenAddress ${host}`,
      `Port ${port}`,
      `HostKey ${hostKey}`,
      `PidFile ${path.join(dir, "sshd.pid")}`,
      `AuthorizedKeysFile ${authorized}`,
      `AllowUsers ${T3_USER}`,
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "PubkeyAuthentication yes",
      "PermitRootLogin no",
      "UsePAM no",
      // The temporary directory lives under the world-writable /tmp.
      "StrictModes no",
      "X11Forwarding no",
      "AllowTcpForwarding no",
      "Subsystem sftp internal-sftp",
      "LogLevel VERBOSE",
      "",
    ].join("\n"),
  );

  const start = async () => {
    child = spawn("ip", ["netns", "exec", netns, SSHD, "-D", "-e", "-f", config], { stdio: ["ignore", "ignore", "pipe"] });
    child.stderr?.on("data", (d: Buffer) => {
      if (stderr.length < 200_000) stderr += d.toString();
    });
    if (!(await listening(host, port, 10_000))) throw new Error(`The test sshd did not listen on ${host}:${port}:\n${stderr}`);
  };
  const stop = async () => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once("exit", r));
    c.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    if (c.exitCode === null) c.kill("SIGKILL");
  };

  const signal = (pid: number, sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch {
      /* it ended meanwhile */
    }
  };
  /** Every process in the namespace but sshd's listener (its sessions and what they started), signaled. */
  const signalSessions = (sig: NodeJS.Signals): number[] => {
    const listener = child?.pid;
    const pids = run("ip", ["netns", "pids", netns])
      .split(/\s+/)
      .filter(Boolean)
      .map(Number)
      .filter((pid) => pid !== listener);
    for (const pid of pids) signal(pid, sig);
    return pids;
  };

  try {
    await start();
  } catch (err) {
    await stop();
    removeSlot(slot);
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  return {
    host,
    port,
    user: T3_USER,
    netns,
    fingerprint: () => run("ssh-keygen", ["-lf", `${hostKey}.pub`]).split(" ")[1],
    authorize: (publicKey) => fs.appendFileSync(authorized, `${publicKey.trim()}\n`),
    async replaceHostKey() {
      await stop();
      newHostKey();
      await start();
    },
    dropConnections: () => void signalSessions("SIGKILL"),
    freezeConnections() {
      const frozen = signalSessions("SIGSTOP");
      return () => {
        for (const pid of frozen) signal(pid, "SIGCONT");
      };
    },
    stop,
    start,
    log: () => stderr,
    async cleanup() {
      await stop();
      removeSlot(slot);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
