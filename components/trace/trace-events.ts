// The run page tells an open Trace tab when its run's events may have become
// spans, so it asks for the changes then instead of waiting for its next poll.
type Listener = () => void;
const listeners = new Map<string, Set<Listener>>();

export function spansMayHaveChanged(runId: string) {
  for (const fn of listeners.get(runId) ?? []) fn();
}

export function onSpansChanged(runId: string, fn: Listener): () => void {
  const set = listeners.get(runId) ?? new Set<Listener>();
  set.add(fn);
  listeners.set(runId, set);
  return () => {
    set.delete(fn);
    if (set.size === 0) listeners.delete(runId);
  };
}
