// One server per data directory: a second one would run the same runs twice.
import fs from "node:fs";
import path from "node:path";

export class DataDirLockedError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `Another Rein server (pid ${pid}) is already using the data directory ${dataDir}. ` +
        `Stop it first, or start this one with a different REIN_DATA_DIR.`,
    );
    this.name = "DataDirLockedError";
  }
}

export interface DataDirLock {
  release(): void;
}

/** A process id is alive when signal 0 reaches it (EPERM: alive, someone else's). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Takes the data directory's lock file; a stale lock (dead pid) is taken over. */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  const file = path.join(dataDir, "server.pid");
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(file, "wx", 0o644);
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      return {
        release() {
          try {
            if (fs.readFileSync(file, "utf8").trim() === String(process.pid)) fs.unlinkSync(file);
          } catch {
            /* already gone */
          }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const pid = Number.parseInt(fs.readFileSync(file, "utf8").trim(), 10);
      if (Number.isFinite(pid) && pid !== process.pid && processAlive(pid)) throw new DataDirLockedError(dataDir, pid);
      fs.rmSync(file, { force: true });
    }
  }
  throw new Error(`Could not take the lock ${file}`);
}
