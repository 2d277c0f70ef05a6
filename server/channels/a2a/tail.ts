// Following a run for a task's stream and a blocking send
// (docs/a2a.md#streaming): the kernel's event bus wakes the follower when the
// run's events are written in this process; a slow poll catches what other
// processes write (a worker elsewhere, an answer from the CLI).
import type { RunEventBus } from "@/server/kernel";

const POLL_MS = 1_000;

/** Yields at once, then each time the run may have changed, until the signal aborts. */
export async function* runWakeups(bus: RunEventBus, runId: string, signal: AbortSignal, pollMs = POLL_MS): AsyncGenerator<void> {
  let dirty = true;
  let wake: (() => void) | null = null;
  const poke = () => {
    dirty = true;
    wake?.();
  };
  const unsubscribe = bus.onRun(runId, poke);
  signal.addEventListener("abort", poke);
  try {
    while (!signal.aborted) {
      if (!dirty) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
      if (signal.aborted) return;
      dirty = false;
      yield;
    }
  } finally {
    unsubscribe();
    signal.removeEventListener("abort", poke);
  }
}
