// A full disk loses nothing (docs/operations.md#a-full-disk): before each step
// the run loop checks that the data directory's file system has room for it,
// and a write that fails for want of space anyway (SQLite's "database or disk
// is full", ENOSPC, PostgreSQL's disk_full) pauses the run instead of failing
// it. The step's transaction rolled back, so no half-written event, checkpoint
// or snapshot stays. The pool watches the space and resumes those runs when
// it returns.
import fsp from "node:fs/promises";
import { anyCause, codesOf } from "@/server/db";

/** The reason a run paused for want of space starts with this; the watcher resumes such runs. */
export const DISK_FULL = "Disk full";

/** Room a step needs beyond what is in use, by default: a step's events, checkpoint and snapshot fit many times over. */
export const DEFAULT_DISK_RESERVE_BYTES = 64 * 1024 * 1024;

export interface DiskSpace {
  free: number;
  total: number;
}

export async function diskSpace(dir: string): Promise<DiskSpace> {
  const s = await fsp.statfs(dir);
  return { free: s.bavail * s.bsize, total: s.blocks * s.bsize };
}

const mb = (bytes: number) => `${Math.max(0, Math.round(bytes / 1024 / 1024))} MB`;

/** Why a run paused, in words: the reason shown on its page and in the Runs list. */
export function diskFullReason(space: DiskSpace | null, reserve: number): string {
  return space
    ? `${DISK_FULL}: ${mb(space.free)} free where Rein keeps its data, under the ${mb(reserve)} a step needs. The run resumes by itself when space is freed`
    : `${DISK_FULL}: a write failed for want of space. The run resumes by itself when space is freed`;
}

/** A write failed because a disk is full: SQLite's SQLITE_FULL, ENOSPC or EDQUOT, PostgreSQL's 53100. */
export function isDiskFull(err: unknown): boolean {
  return anyCause(
    err,
    (e) =>
      e instanceof DiskFullError ||
      codesOf(e).some((c) => ["SQLITE_FULL", "ENOSPC", "EDQUOT", "53100"].includes(c)) ||
      (typeof e.message === "string" &&
        /database or disk is full|no space left on device|disk quota exceeded|could not extend file/i.test(e.message)),
  );
}

/** The loop found too little room to take a step. */
export class DiskFullError extends Error {
  constructor(readonly space: DiskSpace) {
    super(`only ${mb(space.free)} free`);
    this.name = "DiskFullError";
  }
}

/** The data directory's space, read at most once a second. */
export class DiskGuard {
  private last: { at: number; space: DiskSpace | null } | null = null;

  constructor(
    readonly dir: string,
    readonly reserveBytes = DEFAULT_DISK_RESERVE_BYTES,
  ) {}

  async space(): Promise<DiskSpace | null> {
    const now = Date.now();
    if (this.last && now - this.last.at < 1000) return this.last.space;
    // A file system that cannot say (statfs unsupported) never stops a run.
    const space = await diskSpace(this.dir).catch(() => null);
    this.last = { at: now, space };
    return space;
  }

  /** Throws DiskFullError when there is less room than the reserve. */
  async check(): Promise<void> {
    const space = await this.space();
    if (space && space.free < this.reserveBytes) throw new DiskFullError(space);
  }

  /** Room for runs to go on: twice the reserve (at least 1 MB), so a run does not stop again at once. */
  async roomy(): Promise<boolean> {
    this.last = null;
    const space = await this.space();
    return !space || space.free >= Math.max(this.reserveBytes * 2, 1024 * 1024);
  }

  forget(): void {
    this.last = null;
  }
}
