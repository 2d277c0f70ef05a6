// One figure for a run's duration, on the Runs list and the run page alike.
import type { RunState } from "@/lib/trpc";

const ENDED: readonly RunState[] = ["succeeded", "failed", "canceled"];

/**
 * Until it ends, a started run's duration is the time since it started
 * (paused and waiting time included); an ended run shows what it recorded;
 * a run that has not started has none.
 */
export function runDuration(
  run: { status: RunState; startedAt: Date | string | null; durationMs: number | null },
  now: number,
): number | null {
  if (!ENDED.includes(run.status) && run.startedAt) return Math.max(0, now - new Date(run.startedAt).getTime());
  return run.durationMs;
}

/** Whether the duration still grows (the list and page tick while one does). */
export function durationTicks(run: { status: RunState; startedAt: Date | string | null }): boolean {
  return !ENDED.includes(run.status) && !!run.startedAt;
}
