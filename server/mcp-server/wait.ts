// wait_for_run's long-poll: until the run ends, waits for a person, or the
// time is up. The kernel's event bus wakes it when the run's events are
// written in this process; a slow poll catches what other processes write
// (the CLI answering a request, a worker elsewhere).
import { OPEN_STATES } from "@/server/hitl";
import { isTerminal, type RunEventBus, type RunState } from "@/server/kernel";
import type { Db } from "@/server/db";

export type WaitOutcome = "ended" | "waiting_human" | "timeout" | "cancelled";

export interface RunProgress {
  state: RunState;
  stepCount: number;
  maxSteps: number;
}

export interface WaitOptions {
  timeoutMs: number;
  signal: AbortSignal;
  /** Called with the run's step count whenever it grew, and once at the start. */
  onProgress?(progress: RunProgress): void | Promise<void>;
  pollMs?: number;
}

const POLL_MS = 1_000;

async function progressOf(db: Db, runId: string): Promise<RunProgress | null> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { status: true, stepCount: true, maxSteps: true } });
  return run ? { state: run.status as RunState, stepCount: run.stepCount, maxSteps: run.maxSteps } : null;
}

/** Ended, or waiting on a request still open (a run answered a moment ago is about to go on). */
async function settled(db: Db, runId: string, p: RunProgress): Promise<WaitOutcome | null> {
  if (isTerminal(p.state)) return "ended";
  if (p.state !== "waiting_human") return null;
  const open = await db.humanRequest.count({ where: { runId, state: { in: [...OPEN_STATES] } } });
  return open > 0 ? "waiting_human" : null;
}

/** The caller has checked that it may see the run. */
export async function waitForRun(deps: { db: Db; bus: RunEventBus }, runId: string, opts: WaitOptions): Promise<WaitOutcome> {
  const deadline = Date.now() + opts.timeoutMs;
  let wake: (() => void) | null = null;
  // Set by events that arrive while the store is being read, so none is missed.
  let dirty = false;
  const poke = () => {
    dirty = true;
    wake?.();
  };
  const unsubscribe = deps.bus.onRun(runId, poke);
  opts.signal.addEventListener("abort", poke);
  let reported = -1;
  try {
    for (;;) {
      if (opts.signal.aborted) return "cancelled";
      dirty = false;
      const progress = await progressOf(deps.db, runId);
      if (!progress) return "ended";
      if (progress.stepCount > reported) {
        reported = progress.stepCount;
        await opts.onProgress?.(progress);
      }
      const outcome = await settled(deps.db, runId, progress);
      if (outcome) return outcome;
      const left = deadline - Date.now();
      if (left <= 0) return "timeout";
      if (dirty) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, opts.pollMs ?? POLL_MS));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  } finally {
    unsubscribe();
    opts.signal.removeEventListener("abort", poke);
  }
}
