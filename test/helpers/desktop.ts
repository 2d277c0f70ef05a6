// A real X desktop for tests of the VNC proxy: Xvfb on a display it picks
// itself and x11vnc on 127.0.0.1 with a password, as the desktop tier runs
// them. The pointer is read with xdotool. Missing programs fail the test with
// the packages to install (CI installs them); nothing is skipped.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "./db";
import { freePort } from "./server-process";

const PROGRAMS = { Xvfb: "xvfb", x11vnc: "x11vnc", xdotool: "xdotool" } as const;

export interface TestDesktop {
  display: string;
  vncPort: number;
  vncPassword: string;
  width: number;
  height: number;
  /** Where the X pointer is now. */
  pointer(): { x: number; y: number };
  movePointer(x: number, y: number): void;
  /** Stops x11vnc only (the desktop's VNC server going away). */
  stopVnc(): Promise<void>;
  stop(): Promise<void>;
}

export function requirePrograms() {
  const missing = Object.keys(PROGRAMS).filter((p) => spawnSync("sh", ["-c", `command -v ${p}`]).status !== 0);
  if (missing.length) {
    throw new Error(
      `These tests need ${missing.join(", ")} (Debian packages: ${missing.map((m) => PROGRAMS[m as keyof typeof PROGRAMS]).join(" ")})`,
    );
  }
}

function startProcess(command: string, args: string[], stdio: Array<"ignore" | "pipe">) {
  // Its own process group, so stop() ends it with anything it started.
  return spawn(command, args, { detached: true, stdio });
}

/**
 * x11vnc gets SIGTERM first: killed outright it leaves its shared memory
 * segments behind, and enough of those stop any new x11vnc on the machine.
 * Xvfb is killed outright: on SIGTERM it removes its socket, which with
 * -displayfd may already belong to the next Xvfb that took the same number.
 */
async function stopProcess(child: ChildProcess, gentle = false) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, s);
    } catch {
      /* gone already */
    }
  };
  signal(gentle ? "SIGTERM" : "SIGKILL");
  const force = gentle ? setTimeout(() => signal("SIGKILL"), 3_000) : null;
  await exited;
  if (force) clearTimeout(force);
}

function waitForOutput(child: ChildProcess, stream: NodeJS.ReadableStream, pattern: RegExp, what: string): Promise<RegExpExecArray> {
  let text = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start within 20 s: ${text}`)), 20_000);
    stream.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const match = pattern.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code}) while starting: ${text}`));
    });
  });
}

export async function startTestDesktop({ width = 800, height = 600, password = "Pa55w0rd" } = {}): Promise<TestDesktop> {
  requirePrograms();
  const dir = makeTempDir("rein-test-desktop-");
  const xvfb = startProcess(
    "Xvfb",
    ["-displayfd", "3", "-screen", "0", `${width}x${height}x24`, "-nolisten", "tcp", "-noreset"],
    ["ignore", "ignore", "pipe", "pipe"],
  );
  let vnc: ChildProcess | null = null;
  try {
    const number = (await waitForOutput(xvfb, xvfb.stdio[3] as NodeJS.ReadableStream, /^(\d+)\n/, "Xvfb"))[1];
    const display = `:${number}`;
    const vncPort = await freePort();
    const passwordFile = path.join(dir, "vnc-password");
    fs.writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
    vnc = startProcess(
      "x11vnc",
      [
        "-display",
        display,
        "-rfbport",
        String(vncPort),
        "-localhost",
        "-no6",
        "-forever",
        "-shared",
        "-passwdfile",
        `rm:${passwordFile}`,
        "-nocmds",
        "-norc",
        "-quiet",
      ],
      ["ignore", "pipe", "pipe"],
    );
    vnc.stderr!.resume();
    await waitForOutput(vnc, vnc.stdout!, /PORT=(\d+)/, "x11vnc");
    const xdotool = (...args: string[]) => {
      const r = spawnSync("xdotool", args, { env: { ...process.env, DISPLAY: display }, encoding: "utf8" });
      if (r.status !== 0) throw new Error(`xdotool ${args.join(" ")} failed: ${r.stderr}`);
      return r.stdout;
    };
    const stopVnc = async () => {
      if (vnc) await stopProcess(vnc, true);
    };
    return {
      display,
      vncPort,
      vncPassword: password,
      width,
      height,
      pointer() {
        const out = xdotool("getmouselocation", "--shell");
        return { x: Number(/X=(\d+)/.exec(out)?.[1]), y: Number(/Y=(\d+)/.exec(out)?.[1]) };
      },
      movePointer: (x, y) => void xdotool("mousemove", String(x), String(y)),
      stopVnc,
      async stop() {
        await stopVnc();
        await stopProcess(xvfb);
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    if (vnc) await stopProcess(vnc, true);
    await stopProcess(xvfb);
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
