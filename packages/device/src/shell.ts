// The device's terminal (docs/devices.md#the-terminal): a shell in the
// owner's folder with a clean environment, given a PTY by the system's
// `script` (no native modules). On Linux with a working bubblewrap it is
// confined: the system read-only, the home hidden, only the folder writable.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { StringDecoder } from "node:string_decoder";
import { DEVICE_MAX_SHELL_CHUNK } from "../../../lib/device-protocol";
import { workingBwrap } from "./capabilities";

export interface ShellSink {
  data(session: string, data: string): void;
  exit(session: string, code: number | null): void;
  /** Whether the connection has room for more output; the shell's output waits while it has not. */
  roomFor(): boolean;
}

const MAX_SHELLS = 8;

/** PATH, HOME, LANG and TERM only: nothing the agent was started with (tokens, keys) reaches the shell. */
function cleanEnv(cols: number, rows: number): NodeJS.ProcessEnv {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: os.homedir(),
    LANG: process.env.LANG ?? "C.UTF-8",
    TERM: "xterm-256color",
    COLUMNS: String(cols),
    LINES: String(rows),
  };
  return env as NodeJS.ProcessEnv;
}

// bash without start-up files: the owner's prompt and aliases do not change what Rein's commands see or how it reads their ends.
function command(folder: string, cols: number, rows: number): { file: string; args: string[] } {
  if (process.platform === "darwin") return { file: "script", args: ["-q", "/dev/null", "bash", "--noprofile", "--norc", "-i"] };
  // util-linux script runs the command with /bin/sh -c; the numbers were checked to be integers.
  const inner = ["script", "-qfec", `stty cols ${cols} rows ${rows} 2>/dev/null; exec bash --noprofile --norc -i`, "/dev/null"];
  const bwrap = workingBwrap();
  if (!bwrap) return { file: inner[0], args: inner.slice(1) };
  const home = os.homedir();
  return {
    file: bwrap,
    args: [
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--tmpfs",
      "/tmp",
      "--tmpfs",
      home,
      "--bind",
      folder,
      folder,
      "--chdir",
      folder,
      "--unshare-pid",
      "--die-with-parent",
      "--",
      ...inner,
    ],
  };
}

/** The process below `pid` whose input is a terminal: the shell whose window size a resize sets (Linux). */
function terminalOf(pid: number): string | null {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      /* gone meanwhile */
    }
  }
  const queue = [pid];
  let found: string | null = null;
  while (queue.length) {
    const p = queue.shift()!;
    try {
      if (fs.readlinkSync(`/proc/${p}/fd/0`).startsWith("/dev/pts/")) found = `/proc/${p}/fd/0`;
    } catch {
      /* not ours to read, or gone */
    }
    queue.push(...(children.get(p) ?? []));
  }
  return found;
}

export class Shells {
  private readonly sessions = new Map<string, ChildProcess>();

  constructor(
    private readonly folder: string,
    private readonly sink: ShellSink,
  ) {}

  get confined(): boolean {
    return process.platform === "linux" && workingBwrap() !== null;
  }

  /** `env`: Rein's variables (checked by the agent: allowed names only), under the clean environment's. */
  open(session: string, cols: number, rows: number, env: Record<string, string> = {}): void {
    if (this.sessions.has(session)) throw new Error(`Terminal ${session} is open already`);
    if (this.sessions.size >= MAX_SHELLS) throw new Error(`${MAX_SHELLS} terminals are open on this device; close one first`);
    const { file, args } = command(this.folder, cols, rows);
    const child = spawn(file, args, {
      cwd: this.folder,
      env: { ...env, ...cleanEnv(cols, rows) },
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    this.sessions.set(session, child);
    child.stdin!.on("error", () => {});
    const decoder = new StringDecoder("utf8");
    const forward = (chunk: Buffer) => {
      const text = decoder.write(chunk);
      for (let i = 0; i < text.length; i += DEVICE_MAX_SHELL_CHUNK) this.sink.data(session, text.slice(i, i + DEVICE_MAX_SHELL_CHUNK));
      // Output waits while the connection is full: nothing queues without bound.
      if (!this.sink.roomFor()) {
        child.stdout!.pause();
        child.stderr!.pause();
        const wait = setInterval(() => {
          if (!this.sink.roomFor() && this.sessions.get(session) === child) return;
          clearInterval(wait);
          child.stdout!.resume();
          child.stderr!.resume();
        }, 50);
      }
    };
    child.stdout!.on("data", forward);
    child.stderr!.on("data", forward);
    child.on("error", () => undefined);
    child.on("exit", (code) => {
      if (this.sessions.get(session) !== child) return;
      this.sessions.delete(session);
      this.sink.exit(session, code);
    });
  }

  write(session: string, data: string): void {
    const child = this.sessions.get(session);
    if (!child) throw new Error(`No terminal ${session} is open`);
    child.stdin!.write(data);
  }

  /** Sets the terminal's size where the system lets a program outside it do so (Linux); false elsewhere. */
  resize(session: string, cols: number, rows: number): boolean {
    const child = this.sessions.get(session);
    if (!child?.pid) throw new Error(`No terminal ${session} is open`);
    if (process.platform !== "linux") return false;
    const tty = terminalOf(child.pid);
    if (!tty) return false;
    return spawnSync("stty", ["-F", tty, "cols", String(cols), "rows", String(rows)], { stdio: "ignore", timeout: 2_000 }).status === 0;
  }

  close(session: string): void {
    const child = this.sessions.get(session);
    if (!child) return;
    this.kill(child);
  }

  closeAll(): void {
    for (const child of this.sessions.values()) this.kill(child);
  }

  private kill(child: ChildProcess) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      child.kill("SIGKILL");
    }
  }
}
