// The run queue (BullMQ): it only hands out work. A job names a run and the
// lease epoch it was seen at; the worker that takes it must still win the
// lease in PostgreSQL before it executes anything, so a job handed out twice
// (a stalled job BullMQ gives again, two sweepers) executes the run once.
import { Queue } from "bullmq";
import type { Redis } from "./redis";

export interface RunJob {
  runId: string;
  /** The lease epoch when the job was made (0: never taken). */
  epoch: number;
  /** When the job was made (ms since epoch), to measure the lag to its start. */
  enqueuedAt: number;
}

/** One job per run and epoch: adding it again while it waits or runs changes nothing. */
export function runJobId(runId: string, epoch: number): string {
  return `run-${runId}-e${epoch}`;
}

/**
 * How long a sweep's job for a run nobody executes stands before the next
 * sweep makes another. A job can be stuck "active" without anyone working
 * on it: Redis hands a job to whichever connection is waiting, and a frozen
 * worker's connection still is (BullMQ finds such a job stalled only after
 * 30 to 60 s). A fresh job every few seconds reaches a live worker instead;
 * the lease makes sure only one of them executes the run.
 */
export const SWEEP_JOB_WINDOW_MS = 5_000;

export function sweepJobId(runId: string, epoch: number, now = Date.now()): string {
  return `${runJobId(runId, epoch)}-s${Math.floor(now / SWEEP_JOB_WINDOW_MS)}`;
}

export class RunQueue {
  readonly queue: Queue<RunJob>;

  constructor(name: string, connection: Redis) {
    this.queue = new Queue<RunJob>(name, {
      connection,
      defaultJobOptions: { removeOnComplete: true, removeOnFail: true, attempts: 1 },
    });
  }

  async add(runId: string, epoch = 0, opts: { sweep?: boolean } = {}): Promise<void> {
    const jobId = opts.sweep ? sweepJobId(runId, epoch) : runJobId(runId, epoch);
    await this.queue.add("run", { runId, epoch, enqueuedAt: Date.now() }, { jobId });
  }

  /** Jobs waiting for a worker. */
  async depth(): Promise<number> {
    return this.queue.getWaitingCount();
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
