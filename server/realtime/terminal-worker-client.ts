// The server's side of the terminal worker thread (terminal-worker.ts): pod
// streams send it output and get back what watchers are sent, snapshots,
// tails and the terminal's replies, in order. If the worker dies, every open
// screen is opened again in a new one (empty, with the reset note) and the
// requests it had not answered are answered as a reset.
import fs from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { RESET_NOTE, type ScreenChannel, type ScreenRequest, type WriteResult } from "./terminal-screens";
import type { FromScreenWorker, ToScreenWorker } from "./terminal-worker";

/** The bundled worker beside the bundled server (scripts/build.sh), else the TypeScript source through tsx. */
function workerEntry(): { url: URL; execArgv: string[] } {
  const bundled = new URL("./terminal-worker.mjs", import.meta.url);
  if (fs.existsSync(bundled)) return { url: bundled, execArgv: [] };
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  return { url: new URL("./terminal-worker.ts", import.meta.url), execArgv: ["--import", tsx] };
}

interface Waiting {
  req: ScreenRequest | null;
  resolve(value: unknown): void;
}

export class WorkerScreens implements ScreenChannel {
  private worker: Worker | null = null;
  private next = 1;
  private readonly waiting = new Map<number, Waiting>();
  private readonly replies = new Map<string, (reply: string) => void>();
  /** Open screens and their sizes, to open them again in a new worker. */
  private readonly open = new Map<string, { cols: number; rows: number }>();

  constructor(private readonly log: (message: string, err?: unknown) => void = (m, e) => console.error(m, e)) {}

  private start(): Worker {
    const entry = workerEntry();
    const worker = new Worker(entry.url, { execArgv: entry.execArgv, name: "rein-terminals" });
    // The server does not wait for this thread to exit.
    worker.unref();
    worker.on("message", (msg: FromScreenWorker) => {
      if ("id" in msg) return this.replies.get(msg.id)?.(msg.reply);
      const w = this.waiting.get(msg.n);
      this.waiting.delete(msg.n);
      w?.resolve(msg.result);
    });
    worker.on("error", (err) => this.log("the terminal worker failed; terminals start again with fresh screens", err));
    worker.on("exit", () => this.died(worker));
    for (const [id, size] of this.open) {
      worker.postMessage({ n: this.next++, req: { op: "open", id, ...size } } satisfies ToScreenWorker);
      worker.postMessage({ n: this.next++, req: { op: "write", id, data: RESET_NOTE, forms: [], quiet: true } } satisfies ToScreenWorker);
    }
    return worker;
  }

  private died(worker: Worker) {
    if (this.worker !== worker) return;
    this.worker = null;
    const lost = [...this.waiting.values()];
    this.waiting.clear();
    for (const w of lost) w.resolve(answerLost(w.req));
  }

  private post(msg: ToScreenWorker, req: ScreenRequest | null): Promise<unknown> {
    // A thread that stopped may not have said so yet ('exit' comes later): it would never answer.
    if (this.worker && this.worker.threadId === -1) this.died(this.worker);
    this.worker ??= this.start();
    return new Promise((resolve) => {
      this.waiting.set(msg.n, { req, resolve });
      this.worker?.postMessage(msg);
    });
  }

  request<T>(req: ScreenRequest): Promise<T> {
    if (req.op === "open") this.open.set(req.id, { cols: req.cols, rows: req.rows });
    if (req.op === "resize" && this.open.has(req.id)) this.open.set(req.id, { cols: req.cols, rows: req.rows });
    if (req.op === "close") this.open.delete(req.id);
    return this.post({ n: this.next++, req }, req) as Promise<T>;
  }

  onReply(id: string, listener: (reply: string) => void) {
    this.replies.set(id, listener);
    return () => this.replies.delete(id);
  }

  /** The thread the screens run on (never the server's own). */
  thread(): Promise<number> {
    return this.post({ n: this.next++, where: true }, null) as Promise<number>;
  }

  /** Stops the worker (its screens go with it). */
  async close() {
    const worker = this.worker;
    this.worker = null;
    this.open.clear();
    if (worker) await worker.terminate();
  }
}

/** What a request the dead worker never answered gets: a write is a reset. */
function answerLost(req: ScreenRequest | null): unknown {
  if (req?.op === "write") return { data: RESET_NOTE, reset: "the terminal worker stopped" } satisfies WriteResult;
  return req?.op === "snapshot" || req?.op === "tail" ? "" : null;
}
