// The server's side of a run's file service: one long-lived Node process in
// the file sandbox per workspace, asked one JSON line at a time (pipelined),
// restarted when it dies, stopped when idle.
import type { ChildProcess } from "node:child_process";
import readline from "node:readline";
import { FILE_SERVICE_PROGRAM } from "./program";
import { JAIL_ROOT, jailMode, jailNode, spawnInJail } from "./jail";

const REQUEST_TIMEOUT_MS = 30_000;
const IDLE_MS = 60_000;

export class FileServiceError extends Error {
  constructor(
    public readonly code: string,
    message: string,
    public readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "FileServiceError";
  }
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export class FileService {
  private child: ChildProcess | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | null = null;
  private stderr = "";
  /** Stopped by release(): the folder moved, the requests in flight are asked again. */
  private released = false;

  constructor(
    readonly workspaceDir: string,
    private readonly onIdle?: (service: FileService) => void,
  ) {}

  private start(): ChildProcess {
    const root = jailMode().kind === "bubblewrap" ? JAIL_ROOT : this.workspaceDir;
    const child = spawnInJail(this.workspaceDir, [jailNode(), "--max-old-space-size=256", "-e", FILE_SERVICE_PROGRAM], {
      env: { REIN_FS_ROOT: root },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child = child;
    this.stderr = "";
    // An idle service does not keep the server (or a test) alive; pending requests have timers that do.
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
    child.stdin!.on("error", () => {});
    child.stderr!.on("data", (c: Buffer) => (this.stderr = (this.stderr + c.toString("utf8")).slice(-2000)));
    readline.createInterface({ input: child.stdout!, crlfDelay: Infinity }).on("line", (line) => this.onLine(line));
    const gone = (why: string) => {
      if (this.child !== child) return;
      this.child = null;
      const released = this.released;
      this.released = false;
      const err = released
        ? new FileServiceError("FILE_SERVICE_RELEASED", "The workspace moved while the file service worked on it")
        : new FileServiceError("FILE_SERVICE_EXITED", `The workspace's file service stopped (${why}); try again`);
      for (const [, p] of this.pending) {
        clearTimeout(p.timer);
        p.reject(err);
      }
      this.pending.clear();
    };
    child.on("error", (err) => gone(err.message));
    child.on("exit", (code, signal) =>
      gone(signal ? `signal ${signal}` : `exit code ${code}${this.stderr.trim() ? `: ${this.stderr.trim().split("\n").pop()}` : ""}`),
    );
    return child;
  }

  private onLine(line: string) {
    let msg: { id: number; result?: unknown; error?: { code: string; message: string; extra?: Record<string, unknown> } };
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    clearTimeout(p.timer);
    if (msg.error) p.reject(new FileServiceError(msg.error.code, msg.error.message, msg.error.extra));
    else p.resolve(msg.result);
    this.armIdle();
  }

  private armIdle() {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (this.pending.size === 0) {
      this.idleTimer = setTimeout(() => {
        if (this.pending.size === 0) {
          this.stop();
          this.onIdle?.(this);
        }
      }, IDLE_MS);
      this.idleTimer.unref();
    }
  }

  /**
   * One request; its answer, or a FileServiceError with the refusal's code. A
   * request in flight when the workspace's folder was replaced (a remote
   * machine's copy came back) is asked again of a service of the new folder.
   */
  async request<T>(op: string, params: Record<string, unknown>, timeoutMs = REQUEST_TIMEOUT_MS): Promise<T> {
    try {
      return await this.send<T>(op, params, timeoutMs);
    } catch (err) {
      if (!(err instanceof FileServiceError) || err.code !== "FILE_SERVICE_RELEASED") throw err;
      return this.send<T>(op, params, timeoutMs);
    }
  }

  private send<T>(op: string, params: Record<string, unknown>, timeoutMs: number): Promise<T> {
    const child = this.child ?? this.start();
    const id = this.nextId++;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new FileServiceError("TIMEOUT", `The workspace's file service did not answer within ${timeoutMs / 1000} s`));
        // A service that hangs is replaced; the other requests fail with it.
        this.stop();
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      child.stdin!.write(`${JSON.stringify({ id, op, ...params })}\n`);
    });
  }

  alive(): boolean {
    return this.child !== null;
  }

  /** Stopped because its folder is about to be replaced: what it was asked is asked again of the next service. */
  release(): void {
    if (this.child) this.released = true;
    this.stop();
  }

  stop(): void {
    const child = this.child;
    if (!child) return;
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      child.kill("SIGKILL");
    }
  }
}

/** One file service per workspace directory, started on first use. */
export class FileServices {
  private readonly byDir = new Map<string, FileService>();

  for(workspaceDir: string): FileService {
    let service = this.byDir.get(workspaceDir);
    if (!service) {
      service = new FileService(workspaceDir, (s) => {
        if (this.byDir.get(workspaceDir) === s) this.byDir.delete(workspaceDir);
      });
      this.byDir.set(workspaceDir, service);
    }
    return service;
  }

  /** Stops the service of a workspace (its run ended, or the directory is about to move). */
  release(workspaceDir: string): void {
    this.byDir.get(workspaceDir)?.release();
    this.byDir.delete(workspaceDir);
  }

  stopAll(): void {
    for (const s of this.byDir.values()) s.stop();
    this.byDir.clear();
  }

  get size(): number {
    return this.byDir.size;
  }
}

/** The process-wide registry the workspaces use. */
export const fileServices = new FileServices();
