// Desktops for runs, with pre-warmed ones so a run that moves to T2 gets a
// desktop without waiting for Xvfb and Chromium to start.
import fs from "node:fs";
import path from "node:path";
import { OperativeDesktop, PROBE_TRUSTED_MS } from "./desktop";
import { jailMode } from "../files/jail";
import { ownFolder, removeOwnFolder, sweepDeadFolders } from "../process-folders";
import { checkDesktopPrograms, checkDesktopSandbox } from "./programs";
import { sweepStaleDesktops } from "./stale";
import { DEFAULT_DESKTOP_SIZE, DesktopError, type DesktopHandle } from "./types";
import { MAX_DESKTOP_POOL_SIZE, desktopPoolSizeFromEnv } from "@/server/config";

// REIN_DESKTOP_POOL_SIZE's parser lives with the other configuration (it is checked at start).
export { MAX_DESKTOP_POOL_SIZE, desktopPoolSizeFromEnv };

/** Warm desktops are probed in full this often, so one handed out is vouched for by a recent probe. */
const WARM_PROBE_INTERVAL_MS = 10_000;

export interface DesktopPoolOptions {
  dataDir: string;
  /** Desktops kept warm; default REIN_DESKTOP_POOL_SIZE, else 1. */
  size?: number;
  width?: number;
  height?: number;
  log?: { info(m: string): void; error(m: string, e?: unknown): void };
  /** Where the programs are looked for (tests point it at nothing to see the message). */
  searchPath?: string;
  /** How often warm desktops are probed in full; default 10 s (tests make it short). */
  probeIntervalMs?: number;
  /** How long a full probe vouches for a warm desktop handed out (the light check only); default 30 s. */
  probeTrustedMs?: number;
}

export interface DesktopAttachment {
  desktop: DesktopHandle;
  fromPool: boolean;
  startMs: number;
}

export class DesktopPool {
  private readonly warm: OperativeDesktop[] = [];
  private readonly byRun = new Map<string, OperativeDesktop>();
  /** Attachments under way, so two calls for one run share one desktop. */
  private readonly attaching = new Map<string, Promise<DesktopAttachment>>();
  /** Warm desktops being started; stop() waits for them so nothing is left running. */
  private readonly starting = new Set<Promise<void>>();
  /** Desktops of the pool's own being stopped (not live, not needed); stop() waits for them. */
  private readonly retiring = new Set<Promise<void>>();
  /** Warm desktops whose periodic probe is under way. */
  private readonly probing = new Set<OperativeDesktop>();
  private probeTimer: NodeJS.Timeout | null = null;
  private readonly releasedListeners = new Set<(runId: string) => void>();
  private readonly attachedListeners = new Set<(runId: string, desktop: DesktopHandle) => void>();
  private readonly desktopsDir: string;
  private readonly missing: string | null;
  private size: number;
  private filling = 0;
  private stopped = false;
  private readonly width: number;
  private readonly height: number;

  constructor(private readonly options: DesktopPoolOptions) {
    this.desktopsDir = ownFolder(path.resolve(options.dataDir, "desktops"));
    this.size = options.size ?? desktopPoolSizeFromEnv();
    this.width = options.width ?? DEFAULT_DESKTOP_SIZE.width;
    this.height = options.height ?? DEFAULT_DESKTOP_SIZE.height;
    this.missing = checkDesktopPrograms(options.searchPath);
  }

  /** Why runs get no desktop, when they cannot; null when they can. */
  unavailable(): string | null {
    return this.missing ?? checkDesktopSandbox(jailMode());
  }

  /** Cleans up after desktops of servers that were killed, clears the directory and fills the pool. */
  async start(): Promise<void> {
    const swept = await sweepStaleDesktops();
    if (swept) this.options.log?.info(`Cleaned up after ${swept} desktop(s) of a server that was killed`);
    sweepDeadFolders(path.dirname(this.desktopsDir));
    fs.rmSync(this.desktopsDir, { recursive: true, force: true });
    fs.mkdirSync(this.desktopsDir, { recursive: true, mode: 0o700 });
    this.refill();
    this.probeTimer = setInterval(() => this.probeWarm(), this.options.probeIntervalMs ?? WARM_PROBE_INTERVAL_MS);
    this.probeTimer.unref();
  }

  /** The full probe for every warm desktop; one that fails is stopped and replaced. */
  private probeWarm() {
    for (const desktop of this.warm) {
      if (this.probing.has(desktop)) continue;
      this.probing.add(desktop);
      desktop
        .probe()
        .catch((err) => this.discard(desktop, `it stopped answering while warm: ${(err as Error).message}`))
        .finally(() => this.probing.delete(desktop));
    }
  }

  /** A warm desktop that is not live: out of the pool (a run may have taken it meanwhile: then it is the run's). */
  private discard(desktop: OperativeDesktop, reason: string) {
    const i = this.warm.indexOf(desktop);
    if (i < 0) return;
    this.warm.splice(i, 1);
    this.options.log?.info(`A warm desktop was stopped: ${reason}`);
    this.retire(desktop, reason);
    this.refill();
  }

  private retire(desktop: OperativeDesktop, reason: string) {
    const stopped = desktop.stop(reason).finally(() => this.retiring.delete(stopped));
    this.retiring.add(stopped);
  }

  stats() {
    return { warm: this.warm.length, starting: this.filling, attached: this.byRun.size, size: this.size };
  }

  /** Changes how many desktops are kept warm, at once (extra warm ones are stopped). */
  setSize(n: number): void {
    if (!Number.isInteger(n) || n < 0 || n > MAX_DESKTOP_POOL_SIZE) {
      throw new RangeError(`The desktop pool size must be a whole number from 0 to ${MAX_DESKTOP_POOL_SIZE}`);
    }
    this.size = n;
    for (const extra of this.warm.splice(n)) this.retire(extra, "the desktop pool was made smaller");
    this.refill();
  }

  private newDesktop(): Promise<OperativeDesktop> {
    const id = `desk-${Date.now().toString(36)}-${Math.random().toString(16).slice(2, 8)}`;
    return OperativeDesktop.start({ id, dir: path.join(this.desktopsDir, id), width: this.width, height: this.height });
  }

  private refill() {
    if (this.stopped || this.unavailable()) return;
    while (this.warm.length + this.filling < this.size) {
      this.filling++;
      const starting: Promise<void> = this.newDesktop()
        .then((desktop) => {
          // Stopped where stop() waits for it: a pool made smaller while this one started leaves nothing running.
          if (this.stopped || this.warm.length >= this.size) return this.retire(desktop, "not needed any more");
          this.warm.push(desktop);
          // Connect over CDP now, so the run's first browser action does not wait for it.
          desktop.page().catch(() => {});
          desktop.onExit(() => {
            const i = this.warm.indexOf(desktop);
            if (i >= 0) {
              this.warm.splice(i, 1);
              this.refill();
            }
          });
        })
        .catch((err) => this.options.log?.error("a warm desktop failed to start", err))
        .finally(() => {
          this.filling--;
          this.starting.delete(starting);
        });
      this.starting.add(starting);
    }
  }

  /** The run's desktop: the one it has, a warm one, or a new one started now. */
  attach(runId: string): Promise<DesktopAttachment> {
    const current = this.byRun.get(runId);
    if (current?.alive()) return Promise.resolve({ desktop: current, fromPool: false, startMs: 0 });
    const pending = this.attaching.get(runId);
    if (pending) return pending;
    const attaching = this.attachNew(runId).finally(() => this.attaching.delete(runId));
    this.attaching.set(runId, attaching);
    return attaching;
  }

  private async attachNew(runId: string): Promise<DesktopAttachment> {
    const t0 = performance.now();
    const unavailable = this.unavailable();
    if (unavailable) throw new DesktopError("DESKTOP_UNAVAILABLE", unavailable);
    if (this.stopped) throw new DesktopError("DESKTOP_UNAVAILABLE", "The server is stopping");
    let desktop: OperativeDesktop | undefined;
    while (!desktop && this.warm.length && !this.stopped) {
      const candidate = this.warm.shift()!;
      // The pool probed it in full a moment ago; one that died since goes, and the next is tried.
      try {
        await candidate.check(this.options.probeTrustedMs ?? PROBE_TRUSTED_MS);
        desktop = candidate;
      } catch (err) {
        this.options.log?.info(`A warm desktop was not handed out: ${(err as Error).message}`);
        this.retire(candidate, `it was found dead while warm: ${(err as Error).message}`);
      }
    }
    const fromPool = !!desktop;
    this.refill();
    if (!desktop && !this.stopped) desktop = await this.newDesktop();
    if (this.stopped || !desktop) {
      await desktop?.stop("the server is stopping");
      throw new DesktopError("DESKTOP_UNAVAILABLE", "The server is stopping");
    }
    this.byRun.set(runId, desktop);
    const attached = desktop;
    attached.onExit(() => {
      if (this.byRun.get(runId) !== attached) return;
      this.byRun.delete(runId);
      this.releasedListeners.forEach((l) => l(runId));
    });
    this.attachedListeners.forEach((l) => l(runId, attached));
    return { desktop, fromPool, startMs: performance.now() - t0 };
  }

  get(runId: string): DesktopHandle | undefined {
    const desktop = this.byRun.get(runId);
    return desktop?.alive() ? desktop : undefined;
  }

  /** Stops the run's desktop. */
  async release(runId: string, reason = "the run no longer needs it"): Promise<void> {
    const desktop = this.byRun.get(runId);
    if (!desktop) return;
    this.byRun.delete(runId);
    this.releasedListeners.forEach((l) => l(runId));
    await desktop.stop(reason);
  }

  /** Told whenever a run stops having a desktop: released, ended by a crash, or the pool stopping. */
  onReleased(cb: (runId: string) => void): () => void {
    this.releasedListeners.add(cb);
    return () => void this.releasedListeners.delete(cb);
  }

  /** Told whenever a run gets a desktop. */
  onAttached(cb: (runId: string, desktop: DesktopHandle) => void): () => void {
    this.attachedListeners.add(cb);
    return () => void this.attachedListeners.delete(cb);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.probeTimer = null;
    await Promise.allSettled([...this.starting, ...this.attaching.values()]);
    const attached = [...this.byRun.keys()];
    await Promise.all(attached.map((runId) => this.release(runId, "the server is stopping")));
    await Promise.all(this.warm.splice(0).map((d) => d.stop("the server is stopping")));
    await Promise.allSettled([...this.retiring]);
    removeOwnFolder(this.desktopsDir);
  }
}
