// The pods' disk watchdog (docs/terminal-and-files.md#terminal-pods): every
// few seconds one `du` measures the workspace of every live pod of this
// process, and a pod whose workspace has grown past its limit is stopped.
// One `du` for all of them rather than one per pod: starting a process holds
// the server's event loop while it forks, and the timers of pods started
// together fired together, so dozens of `du` starts in a row stalled the
// server for a second and more under many runs
// (docs/performance.md#many-runs-at-once).
import { execFile } from "node:child_process";

export interface WatchedWorkspace {
  /** The workspace's folder now (a pod from the warm pool is moved to its run's). */
  dir(): string;
  limitBytes: number;
  /** Called with the size measured when it is past the limit. */
  over(bytes: number): void;
}

/** Bytes per folder, for the folders it could measure. */
export type MeasureSizes = (dirs: string[]) => Promise<Map<string, number>>;

export class DiskWatch {
  private readonly watched = new Set<WatchedWorkspace>();
  private timer: NodeJS.Timeout | null = null;
  private measuring = false;

  constructor(
    private readonly everyMs: number,
    private readonly measure: MeasureSizes = duSizes,
  ) {}

  /** Watches a workspace until the returned function is called. */
  watch(workspace: WatchedWorkspace): () => void {
    this.watched.add(workspace);
    if (!this.timer) {
      this.timer = setInterval(() => void this.check(), this.everyMs);
      this.timer.unref();
    }
    return () => {
      this.watched.delete(workspace);
      if (!this.watched.size && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  }

  get size(): number {
    return this.watched.size;
  }

  /** One measurement of every watched workspace; none while the last one is still going. */
  async check(): Promise<void> {
    if (this.measuring || !this.watched.size) return;
    this.measuring = true;
    try {
      const now = [...this.watched].map((w) => ({ w, dir: w.dir() }));
      const sizes = await this.measure([...new Set(now.map((x) => x.dir))]);
      for (const { w, dir } of now) {
        const bytes = sizes.get(dir);
        if (bytes !== undefined && bytes > w.limitBytes && this.watched.has(w)) w.over(bytes);
      }
    } catch {
      // No measurement this time; the next one tries again.
    } finally {
      this.measuring = false;
    }
  }
}

/**
 * The apparent size of each folder, from one `du -sbx` (one file system; a
 * file linked twice counts once). A folder gone meanwhile, or one with a part
 * du cannot read, makes du exit 1 and still print what it measured: that is used.
 */
export function duSizes(dirs: string[]): Promise<Map<string, number>> {
  return new Promise((resolve) => {
    if (!dirs.length) return resolve(new Map());
    execFile("du", ["-sbx", "--", ...dirs], { timeout: 30_000, maxBuffer: 16 * 1024 * 1024 }, (_err, stdout) => {
      const sizes = new Map<string, number>();
      for (const line of String(stdout ?? "").split("\n")) {
        const tab = line.indexOf("\t");
        if (tab <= 0) continue;
        const bytes = Number(line.slice(0, tab));
        if (Number.isSafeInteger(bytes)) sizes.set(line.slice(tab + 1), bytes);
      }
      resolve(sizes);
    });
  });
}
