// Extension hooks (docs/extensions.md): for each committed run event an
// installed extension listens to, its handlers run in the sandbox, queued
// with bounded concurrency so no run ever waits on them; what they answered
// is recorded as an `extension.hook` event. A hook observes: it gets a copy
// of the event and no host, and nothing it answers changes the run.
import { event, type NewRunEvent, type RunEventRecord } from "@/server/kernel";
import type { SandboxLimits } from "../sandbox";
import { hookSource, runBundle } from "./load";
import type { InstalledExtension } from "./registry";

export const HOOK_EVENT = "extension.hook";
/** Hook runs at once; more wait in the queue. */
export const HOOK_CONCURRENCY = 2;
/** Jobs waiting at most; past it new ones are dropped (and counted) rather than pile up. */
export const HOOK_QUEUE_LIMIT = 500;
export const HOOK_LIMITS: Partial<SandboxLimits> = { timeoutMs: 2000 };
const MAX_ANSWER_CHARS = 4000;

export interface HookDispatcherDeps {
  /** Installed extensions listening to an event type. */
  listening(type: string): InstalledExtension[];
  append(runId: string, events: NewRunEvent[]): Promise<unknown>;
  limits?: Partial<SandboxLimits>;
  concurrency?: number;
  queueLimit?: number;
  log: { error(msg: string, err?: unknown): void };
}

interface Job {
  runId: string;
  record: RunEventRecord;
  ext: InstalledExtension;
}

/** The event as a hook sees it: a JSON copy, nothing of the host. */
function hookArgs(runId: string, e: RunEventRecord) {
  return { runId, seq: e.seq, type: e.type, actor: e.actor, at: e.createdAt.toISOString(), payload: e.payload };
}

function answerText(output: unknown): string {
  const text = JSON.stringify(output) ?? "null";
  return text.length > MAX_ANSWER_CHARS ? `${text.slice(0, MAX_ANSWER_CHARS)}…` : text;
}

export class HookDispatcher {
  private readonly queue: Job[] = [];
  private running = 0;
  private dropped = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(private readonly deps: HookDispatcherDeps) {}

  /** Called with each batch of committed events; returns at once. */
  observe(runId: string, events: RunEventRecord[]): void {
    for (const record of events) {
      // A hook's own record never calls hooks again.
      if (record.type === HOOK_EVENT) continue;
      for (const ext of this.deps.listening(record.type)) {
        if (this.queue.length >= (this.deps.queueLimit ?? HOOK_QUEUE_LIMIT)) {
          this.dropped++;
          continue;
        }
        this.queue.push({ runId, record, ext });
      }
    }
    this.pump();
  }

  /** Jobs dropped because the queue was full. */
  droppedCount(): number {
    return this.dropped;
  }

  /** Drops what waits (a stopping server does not work through a backlog) and settles once the running hooks end. */
  stop(): Promise<void> {
    this.dropped += this.queue.length;
    this.queue.length = 0;
    return this.idle();
  }

  /** Settles once the queue is empty and nothing runs (tests). */
  idle(): Promise<void> {
    if (!this.queue.length && this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private pump(): void {
    while (this.running < (this.deps.concurrency ?? HOOK_CONCURRENCY) && this.queue.length) {
      const job = this.queue.shift()!;
      this.running++;
      void this.run(job)
        .catch((err) => this.deps.log.error(`extension ${job.ext.name}: a hook for ${job.record.type} failed`, err))
        .finally(() => {
          this.running--;
          this.pump();
          if (!this.queue.length && this.running === 0) for (const w of this.waiters.splice(0)) w();
        });
    }
  }

  private async run({ runId, record, ext }: Job): Promise<void> {
    const outcome = await runBundle(hookSource(ext.pkg, record.type), hookArgs(runId, record), {}, this.deps.limits ?? HOOK_LIMITS);
    const payload = {
      extension: ext.name,
      version: ext.version,
      event: record.type,
      seq: record.seq,
      ok: outcome.ok,
      durationMs: Math.round(outcome.durationMs),
      ...(outcome.ok
        ? { answer: answerText(outcome.output) }
        : { error: `${outcome.error.code}: ${outcome.error.message}`.slice(0, 1000) }),
    };
    await this.deps.append(runId, [event(HOOK_EVENT, payload, { actor: "system", key: `hook:${ext.id}:${record.seq}` })]);
  }
}
