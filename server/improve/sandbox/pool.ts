// The sandbox's worker threads, on the server's side. QuickJS's interrupt
// stops loops in the tool's code, but some of its built-ins loop natively
// without asking (`new Array(2**32-1).join("x")` ran four minutes): on the
// server's own event loop that would freeze Rein. In a worker, the server
// stays responsive and terminates the worker when the run overstays its
// timeout by GRACE_MS. Workers are reused between runs (each run still gets a
// fresh QuickJS instance) and replaced when one is terminated or dies.
import fs from "node:fs";
import os from "node:os";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { FromWorker, ToWorker } from "./protocol";
import type { SandboxHost } from "./types";

/** How long past its timeout a run may go before its worker is terminated (the interrupt normally ends it on time). */
export const GRACE_MS = 500;
/** Runs beyond this wait for a free worker: each one computes flat out at worst, so more than the cores would only slow them all. */
const MAX_WORKERS = Math.max(2, Math.min(4, os.availableParallelism()));

export type JobEnd = { done: FromWorker & { type: "ran" | "checked" } } | { killed: "timeout" } | { killed: "crashed"; message: string };

export type Job = Omit<Extract<ToWorker, { type: "run" }>, "id"> | Omit<Extract<ToWorker, { type: "check" }>, "id">;

/** The bundled worker beside the bundled server (scripts/build.sh), else the TypeScript source through tsx. */
function workerEntry(): { url: URL; execArgv: string[] } {
  const bundled = new URL("./sandbox-worker.mjs", import.meta.url);
  if (fs.existsSync(bundled)) return { url: bundled, execArgv: [] };
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  return { url: new URL("./worker.ts", import.meta.url), execArgv: ["--import", tsx] };
}

let nextJob = 1;

class SandboxWorker {
  readonly worker: Worker;
  readonly ready: Promise<void>;
  dead = false;

  constructor() {
    const entry = workerEntry();
    // The worker's V8 stack (4 MiB) is well above QuickJS's own stack limit.
    this.worker = new Worker(entry.url, { execArgv: entry.execArgv, resourceLimits: { stackSizeMb: 4 } });
    // Always listened to: an 'error' nobody listens to would throw on the server's side.
    this.worker.on("error", () => (this.dead = true));
    this.worker.on("exit", () => (this.dead = true));
    this.ready = new Promise((resolve, reject) => {
      const onMessage = (msg: FromWorker) => {
        if (msg.type !== "ready") return;
        this.worker.off("message", onMessage);
        resolve();
      };
      this.worker.on("message", onMessage);
      this.worker.once("error", reject);
      this.worker.once("exit", (code) => reject(new Error(`the sandbox worker exited with code ${code} before it was ready`)));
    });
    this.ready.catch(() => void this.kill());
  }

  kill(): void {
    this.dead = true;
    void this.worker.terminate();
  }

  /** Runs one job; the worker is terminated if it overstays `killAfterMs`. */
  execute(job: Job, host: SandboxHost, killAfterMs: number): Promise<JobEnd> {
    const id = nextJob++;
    return new Promise((resolve) => {
      let over = false;
      const finish = (end: JobEnd) => {
        if (over) return;
        over = true;
        clearTimeout(timer);
        this.worker.off("message", onMessage);
        this.worker.off("error", onError);
        this.worker.off("exit", onExit);
        resolve(end);
      };
      const timer = setTimeout(() => {
        this.kill();
        finish({ killed: "timeout" });
      }, killAfterMs);
      const onMessage = (msg: FromWorker) => {
        if (!("id" in msg) || msg.id !== id) return;
        if (msg.type === "read") void this.read(id, msg.readId, msg.path, host, () => over);
        else finish({ done: msg });
      };
      const onError = (err: Error) => {
        this.dead = true;
        finish({ killed: "crashed", message: err.message });
      };
      const onExit = (code: number) => finish({ killed: "crashed", message: `the sandbox worker exited with code ${code}` });
      this.worker.on("message", onMessage);
      this.worker.once("error", onError);
      this.worker.once("exit", onExit);
      this.worker.postMessage({ ...job, id } satisfies ToWorker);
    });
  }

  /** A readFile the tool asked for, done by the host here; its error goes back as a message only. */
  private async read(id: number, readId: number, path: string, host: SandboxHost, over: () => boolean): Promise<void> {
    let reply: ToWorker & { type: "read-result" };
    try {
      if (!host.readFile) throw new Error("readFile was not lent to this run");
      reply = { type: "read-result", id, readId, text: await host.readFile(path) };
    } catch (err) {
      reply = { type: "read-result", id, readId, error: err instanceof Error ? err.message : String(err) };
    }
    if (!over() && !this.dead) this.worker.postMessage(reply);
  }
}

export class SandboxPool {
  private idle: SandboxWorker[] = [];
  private count = 0;
  private waiting: Array<() => void> = [];
  private closed = false;

  /** A ready worker: an idle one, a new one while there are fewer than MAX_WORKERS, else the next one freed. */
  private async acquire(): Promise<SandboxWorker> {
    for (;;) {
      const idle = this.idle.pop();
      if (idle && !idle.dead) return idle;
      if (idle) {
        this.count--; // died while idle
        continue;
      }
      if (this.count < MAX_WORKERS) {
        this.count++;
        const w = new SandboxWorker();
        try {
          await w.ready;
          return w;
        } catch (err) {
          this.count--;
          this.wakeOne();
          throw err;
        }
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  private release(w: SandboxWorker): void {
    if (w.dead || this.closed) {
      this.count--;
      if (!w.dead) w.kill();
    } else {
      // An idle worker must not keep the server's process alive.
      w.worker.unref();
      this.idle.push(w);
    }
    this.wakeOne();
  }

  private wakeOne(): void {
    this.waiting.shift()?.();
  }

  async execute(job: Job, host: SandboxHost, killAfterMs: number): Promise<JobEnd> {
    const w = await this.acquire();
    w.worker.ref();
    try {
      return await w.execute(job, host, killAfterMs);
    } finally {
      this.release(w);
    }
  }

  /** Terminates every worker (tests, shutdown). */
  async close(): Promise<void> {
    this.closed = true; // workers still busy are terminated when their run ends
    const all = this.idle.splice(0);
    this.count -= all.length;
    await Promise.all(all.map((w) => w.worker.terminate()));
  }
}
