// The policy's reading of a shell command line (shell.ts), kept off the
// server's event loop: reading a hostile line takes the parser up to a second
// or more, and what costs is the number of syntax nodes, not the length (2 kB
// of `a;` costs as much as 64 kB). An everyday line is read in place within a
// small budget of characters and nodes; one that goes past it is read again
// by one of a few reader threads shared by the process, with a time limit:
// past it the thread is stopped and replaced, and the command is asked about
// (docs/security.md#the-policy-reads-command-lines).
import { Worker } from "node:worker_threads";
import type { ThreadEntry } from "./reader-entry";
import type { FromReader, ToReader } from "./reader-protocol";
import { analyzeShell, MAX_COMMAND, readWithin, type ShellAnalysis } from "./shell";

/** What a line may take to be read on the event loop, nested lines included: a few milliseconds at worst (bench:patterns). */
export const INLINE_MAX_CHARS = 1024;
export const INLINE_MAX_NODES = 100;
/** How long a reader thread may take over one command line. */
export const READ_LIMIT_MS = 2_000;
export const TOO_SLOW = "the command took too long to check";
const THREADS = 2;
/** Past this many long lines waiting for a thread, more are asked about at once: a flood queues no work. */
const MAX_WAITING = 64;
/** A thread that has not loaded the parser by then is given up. */
const START_LIMIT_MS = 60_000;

const unresolved = (why: string): ShellAnalysis => ({ parts: [], unresolved: why });

let nextId = 1;

class ReaderThread {
  readonly worker: Worker;
  readonly ready: Promise<void>;
  dead = false;

  constructor(entry: ThreadEntry) {
    this.worker = new Worker(entry.url, { execArgv: entry.execArgv, resourceLimits: { maxOldGenerationSizeMb: 256 } });
    // Always listened to: an 'error' nobody listens to would throw on the server's side.
    this.worker.on("error", () => (this.dead = true));
    this.worker.on("exit", () => (this.dead = true));
    this.ready = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the policy reader did not start")), START_LIMIT_MS);
      timer.unref();
      const onMessage = (msg: FromReader) => {
        if (msg.type !== "ready") return;
        clearTimeout(timer);
        this.worker.off("message", onMessage);
        resolve();
      };
      this.worker.on("message", onMessage);
      this.worker.once("exit", (code) => reject(new Error(`the policy reader exited with code ${code} before it was ready`)));
    });
    this.ready.catch(() => this.kill());
  }

  kill(): void {
    this.dead = true;
    void this.worker.terminate();
  }

  /** Reads one line; stops the thread if it takes longer than `limitMs`. */
  read(command: string, limitMs: number): Promise<ShellAnalysis> {
    const id = nextId++;
    return new Promise((resolve) => {
      let over = false;
      const finish = (analysis: ShellAnalysis) => {
        if (over) return;
        over = true;
        clearTimeout(timer);
        this.worker.off("message", onMessage);
        this.worker.off("exit", onExit);
        resolve(analysis);
      };
      const timer = setTimeout(() => {
        this.kill();
        finish(unresolved(TOO_SLOW));
      }, limitMs);
      const onMessage = (msg: FromReader) => {
        if (msg.type === "read" && msg.id === id) finish(msg.analysis);
      };
      const onExit = () => finish(unresolved("the command could not be read"));
      this.worker.on("message", onMessage);
      this.worker.once("exit", onExit);
      this.worker.postMessage({ id, command } satisfies ToReader);
    });
  }
}

class ReaderPool {
  private idle: ReaderThread[] = [];
  private count = 0;
  private waiting: Array<() => void> = [];

  async read(command: string, limitMs: number): Promise<ShellAnalysis> {
    if (this.waiting.length >= MAX_WAITING) return unresolved("too many long commands are waiting to be checked");
    let thread: ReaderThread;
    try {
      thread = await this.acquire();
    } catch {
      return unresolved("the command could not be read");
    }
    thread.worker.ref();
    try {
      return await thread.read(command, limitMs);
    } finally {
      this.release(thread);
    }
  }

  /** Terminates every idle thread (tests, benchmarks); busy ones end with their command. */
  async close(): Promise<void> {
    const all = this.idle.splice(0);
    this.count -= all.length;
    await Promise.all(all.map((t) => t.worker.terminate()));
  }

  /** An idle thread, a new one while there are fewer than THREADS, else the next one freed. */
  private async acquire(): Promise<ReaderThread> {
    for (;;) {
      const idle = this.idle.pop();
      if (idle && !idle.dead) return idle;
      if (idle) {
        this.count--; // died while idle
        continue;
      }
      if (this.count < THREADS) {
        this.count++;
        try {
          // Loaded when the first thread starts: the module that finds the thread's code uses import.meta (reader-entry.ts).
          const { threadEntry } = await import("./reader-entry");
          const thread = new ReaderThread(threadEntry());
          await thread.ready;
          return thread;
        } catch (err) {
          this.count--;
          this.waiting.shift()?.();
          throw err;
        }
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  private release(thread: ReaderThread): void {
    if (thread.dead)
      this.count--; // stopped for taking too long: the next command starts a new one
    else {
      // An idle thread must not keep the server's process alive.
      thread.worker.unref();
      this.idle.push(thread);
    }
    this.waiting.shift()?.();
  }
}

let shared: ReaderPool | null = null;

/** What a command line runs, as the policy reads it (shell.ts), without holding the event loop for long. */
export async function readCommandLine(command: string, limitMs = READ_LIMIT_MS): Promise<ShellAnalysis> {
  // Over MAX_COMMAND the answer comes before any parsing.
  if (command.length > MAX_COMMAND) return analyzeShell(command);
  const quick = command.length <= INLINE_MAX_CHARS ? readWithin(command, { chars: INLINE_MAX_CHARS, nodes: INLINE_MAX_NODES }) : null;
  if (quick) return quick;
  return readInThread(command, limitMs);
}

/** The same reading, always in a reader thread (and tests: it must match analyzeShell's). */
export function readInThread(command: string, limitMs = READ_LIMIT_MS): Promise<ShellAnalysis> {
  return (shared ??= new ReaderPool()).read(command, limitMs);
}

/** Stops the idle reader threads (tests, benchmarks, shutdown). */
export async function closeCommandReaders(): Promise<void> {
  await shared?.close();
}
