// The real device agent (packages/device) for tests: built into one file by
// the package's own build, run as `node rein-device.js` in a network
// namespace of its own (host 10.202.X.1/30, device 10.202.X.2/30), with its
// own HOME. X is claimed by creating the namespace (an atomic `ip netns
// add`); a namespace left by a test process that died is taken back.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildDeviceAgent } from "@/packages/device/build";

const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"] }).toString();
const tryRun = (cmd: string, args: string[]) => {
  try {
    run(cmd, args);
    return true;
  } catch {
    return false;
  }
};
const ownerFile = (slot: number) => path.join(os.tmpdir(), `rein-t4-netns-${slot}.owner`);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function removeSlot(slot: number) {
  let pids: string[] = [];
  try {
    pids = run("ip", ["netns", "pids", `rein-t4-${slot}`])
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
  tryRun("ip", ["link", "del", `rt4h${slot}`]);
  tryRun("ip", ["netns", "del", `rein-t4-${slot}`]);
  fs.rmSync(ownerFile(slot), { force: true });
}

function claimSlot(): number {
  const start = (process.pid * 7 + Math.floor(Math.random() * 256)) % 250;
  for (let i = 0; i < 250; i++) {
    const slot = ((start + i) % 250) + 1;
    if (tryRun("ip", ["netns", "add", `rein-t4-${slot}`])) {
      fs.writeFileSync(ownerFile(slot), String(process.pid));
      return slot;
    }
    let owner = 0;
    try {
      owner = Number(fs.readFileSync(ownerFile(slot), "utf8"));
    } catch {
      continue;
    }
    if (owner && !alive(owner)) removeSlot(slot);
  }
  throw new Error("No free 10.202.X.0/30 slot for a test device (ip netns list shows them)");
}

export interface DeviceNetns {
  netns: string;
  /** Where Rein listens, seen from the device: 10.202.X.1 */
  hostAddress: string;
  /** The device's own address: 10.202.X.2 */
  deviceAddress: string;
  cleanup(): void;
}

export function makeDeviceNetns(): DeviceNetns {
  if (process.getuid?.() !== 0) throw new Error("The device tests make a network namespace: they run as root");
  const slot = claimSlot();
  const netns = `rein-t4-${slot}`;
  const hostSide = `rt4h${slot}`;
  const nsSide = `rt4n${slot}`;
  const hostAddress = `10.202.${slot}.1`;
  const deviceAddress = `10.202.${slot}.2`;
  try {
    run("ip", ["link", "add", hostSide, "type", "veth", "peer", "name", nsSide]);
    run("ip", ["link", "set", nsSide, "netns", netns]);
    run("ip", ["addr", "add", `${hostAddress}/30`, "dev", hostSide]);
    run("ip", ["link", "set", hostSide, "up"]);
    run("ip", ["netns", "exec", netns, "ip", "addr", "add", `${deviceAddress}/30`, "dev", nsSide]);
    run("ip", ["netns", "exec", netns, "ip", "link", "set", nsSide, "up"]);
    run("ip", ["netns", "exec", netns, "ip", "link", "set", "lo", "up"]);
  } catch (err) {
    removeSlot(slot);
    throw err;
  }
  return { netns, hostAddress, deviceAddress, cleanup: () => removeSlot(slot) };
}

export interface AgentProcess {
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Types a line into its terminal (the consent question's answer). */
  answer(line: string): void;
  exited: Promise<number | null>;
  kill(): Promise<void>;
}

export interface DeviceAgentRunner {
  bundle: string;
  home: string;
  /** `rein-device <args>` in the namespace, to its end: its exit code and output. */
  cli(args: string[]): Promise<{ code: number | null; output: string }>;
  /** `rein-device run` in the namespace, left running. */
  start(extraEnv?: Record<string, string>): AgentProcess;
  cleanup(): void;
}

/** Builds the agent into a temporary directory and runs it in `netns` with a HOME of its own. */
export async function deviceAgentRunner(netns: string): Promise<DeviceAgentRunner> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-device-agent-"));
  const bundle = await buildDeviceAgent(path.join(dir, "rein-device.js"));
  const home = path.join(dir, "home");
  fs.mkdirSync(home);
  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
    const vars: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8", ...extra };
    return vars as NodeJS.ProcessEnv;
  };
  const spawnAgent = (args: string[], extra?: Record<string, string>) =>
    spawn("ip", ["netns", "exec", netns, process.execPath, bundle, ...args], { env: env(extra), stdio: ["pipe", "pipe", "pipe"] });
  const children = new Set<ChildProcess>();
  return {
    bundle,
    home,
    cli: (args) =>
      new Promise((resolve) => {
        const child = spawnAgent(args);
        let output = "";
        child.stdout.on("data", (d: Buffer) => (output += d.toString()));
        child.stderr.on("data", (d: Buffer) => (output += d.toString()));
        child.stdin.end();
        child.on("exit", (code) => resolve({ code, output }));
      }),
    start(extraEnv) {
      const child = spawnAgent(["run"], extraEnv);
      children.add(child);
      let output = "";
      child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
      child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
      child.stdin!.on("error", () => {});
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => (children.delete(child), resolve(code))));
      return {
        child,
        output: () => output,
        answer: (line) => void child.stdin!.write(`${line}\n`),
        exited,
        async kill() {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
          await exited;
        },
      };
    },
    cleanup() {
      for (const c of children) c.kill("SIGKILL");
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
