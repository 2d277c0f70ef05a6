// Desktops left by a server that was killed: their programs die with it (a
// parent-death signal), but a killed Xvfb leaves its lock and socket and a
// killed x11vnc its shared memory (42 segments; the machine has 4096). Each
// desktop is recorded in a registry for the whole machine, naming the server
// that owns it; a pool starting later, whatever its data directory, cleans up
// after every desktop whose server is gone. A running server's desktops are
// never touched.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { groupMembers, killMentioning, processRunning, signalGroup, type GroupProcess } from "./processes";
import { removeSharedMemoryOf } from "./shm";
import { removeStaleDisplay } from "./x11";

/** One file per live desktop on this machine. */
const registryDir = () => path.join(os.tmpdir(), "rein-desktops");

export interface RecordedDesktop {
  id: string;
  dir: string;
  display: number;
  xvfbPid: number;
  /** The server that owns the desktop, with its start time (a reused pid is not it). */
  owner: { pid: number; startTime: string | null };
  /** Each program's pid (= its process group) and start time. */
  groups: Array<{ name: string; pid: number; startTime: string | null }>;
  /** Every program it started, restarts included (whose shared memory may be left). */
  spawned: number[];
}

/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot. */
function startTime(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

const entry = (id: string) => path.join(registryDir(), `${id}.json`);

/** Records (again, after a restart of one program) what the desktop runs. */
export function recordDesktop(id: string, dir: string, display: number, procs: GroupProcess[], spawned: number[]): void {
  const record: RecordedDesktop = {
    id,
    dir,
    display,
    xvfbPid: procs.find((p) => p.name === "Xvfb")?.pid ?? -1,
    owner: { pid: process.pid, startTime: startTime(process.pid) },
    groups: procs.map((p) => ({ name: p.name, pid: p.pid, startTime: startTime(p.pid) })),
    spawned,
  };
  fs.mkdirSync(registryDir(), { recursive: true, mode: 0o700 });
  fs.writeFileSync(entry(id), JSON.stringify(record));
}

/** The desktop ended and cleaned up after itself. */
export function forgetDesktop(id: string): void {
  fs.rmSync(entry(id), { force: true });
}

/** Cleans up after the desktops of servers that are gone; returns how many desktops. */
export async function sweepStaleDesktops(): Promise<number> {
  let names: string[] = [];
  try {
    names = fs.readdirSync(registryDir()).filter((n) => n.endsWith(".json"));
  } catch {
    return 0;
  }
  let swept = 0;
  for (const name of names) {
    const file = path.join(registryDir(), name);
    let record: RecordedDesktop;
    try {
      record = JSON.parse(fs.readFileSync(file, "utf8")) as RecordedDesktop;
    } catch {
      continue; // being written, or not ours
    }
    if (processRunning(record.owner.pid) && startTime(record.owner.pid) === record.owner.startTime) continue;
    for (const g of record.groups) {
      // The leader's start time proves the group is the desktop's; with the leader gone, the group id cannot be reused while members remain.
      if ((processRunning(g.pid) && startTime(g.pid) === g.startTime) || (!processRunning(g.pid) && groupMembers(g.pid).length))
        signalGroup(g.pid, "SIGKILL");
    }
    killMentioning(record.dir + "/");
    await new Promise((r) => setTimeout(r, 100));
    removeStaleDisplay(record.display, record.xvfbPid);
    await removeSharedMemoryOf([...record.groups.map((g) => g.pid), ...(record.spawned ?? [])]);
    fs.rmSync(file, { force: true });
    swept++;
  }
  return swept;
}
