// The desktop's programs run in process groups of their own, so stopping a
// desktop ends each program with everything it started (Chromium's helpers
// included); and they die with the server even when it is killed, because
// setpriv gives each one a parent-death signal.
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import fs from "node:fs";

export interface GroupProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Also the process group id: every program is the leader of its own group. */
  readonly pid: number;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive(): boolean;
}

export function spawnGroup(
  name: string,
  command: string,
  args: string[],
  options: { env: Record<string, string>; stdio?: StdioOptions; cwd?: string },
): GroupProcess {
  // detached: setsid(), a new session and process group led by the program.
  const child = spawn("setpriv", ["--pdeathsig", "SIGKILL", "--", command, ...args], {
    detached: true,
    env: options.env as NodeJS.ProcessEnv,
    cwd: options.cwd,
    stdio: options.stdio ?? ["ignore", "ignore", "pipe"],
  });
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
    child.once("error", () => {
      done = true;
      resolve({ code: null, signal: null });
    });
  });
  if (!child.pid) {
    // spawn failed synchronously (no pid): the error event follows.
    return { name, child, pid: -1, exited, alive: () => false };
  }
  return { name, child, pid: child.pid, exited, alive: () => !done };
}

/** Signals the whole group; quiet when it is gone already. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  if (pgid <= 0) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    /* no such group: already gone */
  }
}

/** Ends a program and its group: `signal` first, SIGKILL after `graceMs`; waits for the leader to exit. */
export async function stopGroup(
  p: GroupProcess,
  { signal = "SIGKILL", graceMs = 1000 }: { signal?: NodeJS.Signals; graceMs?: number } = {},
): Promise<void> {
  signalGroup(p.pid, signal);
  if (signal !== "SIGKILL") {
    const timer = setTimeout(() => signalGroup(p.pid, "SIGKILL"), graceMs);
    await p.exited;
    clearTimeout(timer);
  } else {
    await p.exited;
  }
  // Members that outlived the leader (Chromium's helpers, briefly).
  signalGroup(p.pid, "SIGKILL");
  await waitGroupGone(p.pid, 2000);
}

/** Pids of the live (not zombie) processes in a process group, read from /proc. */
export function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the command name, which is in parentheses and may hold spaces.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] !== "Z" && Number(fields[2]) === pgid) members.push(Number(entry));
    } catch {
      /* exited while we looked */
    }
  }
  return members;
}

/**
 * Live processes whose command line mentions `needle` (a desktop's directory).
 * Chromium's crash handler starts a session of its own, outside the browser's
 * group; it is found this way.
 */
export function processesMentioning(needle: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (!fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(needle)) continue;
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z") found.push(Number(entry));
    } catch {
      /* exited while we looked */
    }
  }
  return found;
}

/** SIGKILLs every process whose command line mentions `needle`; returns how many. */
export function killMentioning(needle: string): number {
  const pids = processesMentioning(needle);
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      /* gone */
    }
  }
  return pids.length;
}

/** Kills whatever still mentions `needle` until nothing does (processes that left their group take a moment to die). */
export async function killMentioningUntilGone(needle: string, limitMs = 5_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (killMentioning(needle) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

async function waitGroupGone(pgid: number, limitMs: number) {
  const deadline = Date.now() + limitMs;
  while (groupMembers(pgid).length && Date.now() < deadline) {
    signalGroup(pgid, "SIGKILL");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Is the process running? A zombie (ended, not yet reaped; where init does not reap, forever) is not. */
export function processRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** How a program ended, in words. */
export function describeExit({ code, signal }: { code: number | null; signal: NodeJS.Signals | null }): string {
  if (signal) return `killed by ${signal}`;
  if (code === null) return "could not be started";
  return `exited with code ${code}`;
}
