// x11vnc reads the screen through MIT-SHM: System V shared memory segments
// that it removes when it exits cleanly but not when it is killed. Left
// behind, they outlive every process, and after some hundred killed desktops
// the machine's limit (kernel.shmmni, 4096) is reached and no x11vnc starts
// ("shmget: No space left on device"). So the segments a desktop's programs
// made are removed once nothing is attached to them.
import { execFile } from "node:child_process";
import fs from "node:fs";
import { promisify } from "node:util";

const exec = promisify(execFile);

/** Segment ids created by these pids that no process is attached to. */
export function unattachedSegmentsOf(pids: number[]): number[] {
  let text = "";
  try {
    text = fs.readFileSync("/proc/sysvipc/shm", "utf8");
  } catch {
    return [];
  }
  const wanted = new Set(pids);
  // Columns: key shmid perms size cpid lpid nattch ...
  return text
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length > 6 && wanted.has(Number(cols[4])) && cols[6] === "0")
    .map((cols) => Number(cols[1]));
}

/** Removes the unattached segments these (ended) programs made; returns how many. */
export async function removeSharedMemoryOf(pids: number[]): Promise<number> {
  const ids = unattachedSegmentsOf(pids);
  if (!ids.length) return 0;
  try {
    await exec(
      "ipcrm",
      ids.flatMap((id) => ["-m", String(id)]),
    );
  } catch {
    // Some were gone already (ipcrm goes on past them); what is left is counted again below.
  }
  return ids.length - unattachedSegmentsOf(pids).length;
}
