// Terminal pods for runs, with a pre-warmed pool so a run gets a pod without
// waiting. A warm pod works in its own empty workspace; when a run takes it,
// that directory is renamed to the run's workspace (the sandbox's bind mount
// follows the directory).
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { PtyPod } from "./pod";
import { sweepStaleCgroups } from "./cgroups";
import { ownFolder, removeOwnFolder, sweepDeadFolders } from "./process-folders";
import { PodError, type PodLimits, type SandboxStatus, type TerminalPod } from "./types";

const exec = promisify(execFile);

const GIT_ENV = {
  GIT_AUTHOR_NAME: "Rein agent",
  GIT_AUTHOR_EMAIL: "agent@rein.local",
  GIT_COMMITTER_NAME: "Rein agent",
  GIT_COMMITTER_EMAIL: "agent@rein.local",
};

export interface PodPoolOptions {
  dataDir: string;
  size: number;
  limits: PodLimits;
  sandbox: SandboxStatus;
  /** Run shells without a sandbox when bubblewrap is unavailable (explicit opt-in). */
  allowUnsandboxed: boolean;
  log?: { info(m: string): void; error(m: string, e?: unknown): void };
}

export interface Attachment {
  pod: TerminalPod;
  fromPool: boolean;
  startMs: number;
}

/** What the kernel needs from compute: a pod per run that uses a terminal. */
export interface TerminalProvider {
  attach(runId: string, workspaceDir: string): Promise<Attachment>;
  get(runId: string): TerminalPod | undefined;
  release(runId: string): Promise<void>;
  /** Why runs get no terminal, when they cannot; null when they can. */
  unavailable(): string | null;
}

export class PodPool implements TerminalProvider {
  private readonly warm: PtyPod[] = [];
  private readonly byRun = new Map<string, PtyPod>();
  private filling = 0;
  /** Warm pods being started; stop() waits for them so nothing writes under podsDir after it is removed. */
  private readonly starting = new Set<Promise<void>>();
  private stopped = false;
  private readonly podsDir: string;
  private readonly listeners = new Set<(runId: string, pod: TerminalPod | null) => void>();

  constructor(private readonly options: PodPoolOptions) {
    this.podsDir = ownFolder(path.join(options.dataDir, "pods"));
  }

  private get kind() {
    return this.options.sandbox.ok ? "bubblewrap" : "none";
  }

  unavailable(): string | null {
    if (this.options.sandbox.ok || this.options.allowUnsandboxed) return null;
    return this.options.sandbox.message;
  }

  /** Clears what a previous server left and fills the pool. */
  async start(): Promise<void> {
    sweepDeadFolders(path.dirname(this.podsDir));
    fs.rmSync(this.podsDir, { recursive: true, force: true });
    fs.mkdirSync(this.podsDir, { recursive: true });
    sweepStaleCgroups();
    this.refill();
  }

  /** stop() was called: pods are going because the server is, not because their runs ended. */
  get stopping() {
    return this.stopped;
  }

  stats() {
    return { warm: this.warm.length, attached: this.byRun.size, size: this.options.size, sandbox: this.kind };
  }

  /** Changes how many pods are kept warm, at once (Settings › Tiers); extra warm ones are stopped. */
  setSize(n: number): void {
    if (!Number.isInteger(n) || n < 0 || n > 32) throw new RangeError("The terminal pod pool size must be a whole number from 0 to 32");
    this.options.size = n;
    for (const extra of this.warm.splice(n)) void extra.dispose("the pod pool was made smaller");
    this.refill();
  }

  /** Told when a run's pod is attached or goes away (terminal streams follow pods). */
  onChange(listener: (runId: string, pod: TerminalPod | null) => void) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private refill() {
    if (this.stopped || this.unavailable()) return;
    while (this.warm.length + this.filling < this.options.size) {
      this.filling++;
      const starting: Promise<void> = this.startWarm()
        .then((pod) => {
          if (this.stopped) return void pod.dispose("the server is stopping");
          this.warm.push(pod);
          pod.onExit(() => {
            const i = this.warm.indexOf(pod);
            if (i >= 0) this.warm.splice(i, 1);
            this.refill();
          });
        })
        .catch((err) => this.options.log?.error("a warm terminal pod failed to start", err))
        .finally(() => {
          this.filling--;
          this.starting.delete(starting);
        });
      this.starting.add(starting);
    }
  }

  private async startWarm(): Promise<PtyPod> {
    const dir = fs.mkdtempSync(path.join(this.podsDir, "warm-"));
    await exec("git", ["init", "-q", "-b", "main"], { cwd: dir, env: { ...process.env, ...GIT_ENV } });
    await exec("git", ["commit", "-q", "--allow-empty", "-m", "Workspace created by Rein"], {
      cwd: dir,
      env: { ...process.env, ...GIT_ENV },
    });
    try {
      return await PtyPod.start({ workspaceDir: dir, limits: this.options.limits, sandbox: this.kind, secretsParent: this.podsDir });
    } catch (err) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  async attach(runId: string, workspaceDir: string): Promise<Attachment> {
    const t0 = performance.now();
    const current = this.byRun.get(runId);
    if (current?.alive()) return { pod: current, fromPool: false, startMs: 0 };
    const why = this.unavailable();
    if (why) throw new PodError("SANDBOX_UNAVAILABLE", why);
    let pod: PtyPod | undefined;
    let fromPool = false;
    if (!fs.existsSync(workspaceDir)) {
      while (!pod && this.warm.length) {
        const candidate = this.warm.shift()!;
        if (!candidate.alive()) continue;
        fs.mkdirSync(path.dirname(workspaceDir), { recursive: true });
        fs.renameSync(candidate.workspaceDir, workspaceDir);
        candidate.workspaceDir = workspaceDir;
        pod = candidate;
        fromPool = true;
      }
      this.refill();
    }
    if (!pod) {
      fs.mkdirSync(workspaceDir, { recursive: true });
      pod = await PtyPod.start({ workspaceDir, limits: this.options.limits, sandbox: this.kind, secretsParent: this.podsDir });
    }
    this.byRun.set(runId, pod);
    const attached = pod;
    attached.onExit(() => {
      if (this.byRun.get(runId) === attached) {
        this.byRun.delete(runId);
        this.listeners.forEach((l) => l(runId, null));
      }
    });
    this.listeners.forEach((l) => l(runId, attached));
    return { pod, fromPool, startMs: performance.now() - t0 };
  }

  /**
   * Makes a pod started elsewhere the run's terminal (a remote machine's, on
   * T3: docs/desktops-and-tiers.md#t3-remote-machines): the shell tool, the
   * Terminal tab and take over use it from now on. The run's local pod, if
   * any, is stopped; release() stops the adopted one like any other.
   */
  async adopt(runId: string, pod: PtyPod): Promise<void> {
    const current = this.byRun.get(runId);
    this.byRun.set(runId, pod);
    if (current && current !== pod) await current.dispose("the run's terminal moved to another machine");
    pod.onExit(() => {
      if (this.byRun.get(runId) === pod) {
        this.byRun.delete(runId);
        this.listeners.forEach((l) => l(runId, null));
      }
    });
    this.listeners.forEach((l) => l(runId, pod));
  }

  get(runId: string): TerminalPod | undefined {
    const pod = this.byRun.get(runId);
    return pod?.alive() ? pod : undefined;
  }

  async release(runId: string): Promise<void> {
    const pod = this.byRun.get(runId);
    this.byRun.delete(runId);
    if (pod) {
      await pod.dispose("the run no longer needs it");
      this.listeners.forEach((l) => l(runId, null));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.starting]);
    await Promise.all([...this.warm.splice(0), ...this.byRun.values()].map((p) => p.dispose("the server is stopping")));
    this.byRun.clear();
    removeOwnFolder(this.podsDir);
  }
}
