// Who has taken over a run's terminal or desktop, from its event log: the
// newest take over not followed by a hand back. While someone has it, the run
// is paused for them and only Hand back (not Resume) gives it back to the agent.
import { isEvent, type TimelineEvent } from "./run-events";

export interface RunHolder {
  thing: "terminal" | "desktop";
  by: string;
  byName: string;
}

export function runHolder(events: TimelineEvent[]): RunHolder | null {
  const open = new Map<"terminal" | "desktop", RunHolder>();
  for (const e of events) {
    const thing = isEvent(e, "terminal.control") ? "terminal" : isEvent(e, "desktop.control") ? "desktop" : null;
    if (!thing) continue;
    const p = e.payload as { action: "takeover" | "handback"; by: string; byName: string };
    if (p.action === "takeover") open.set(thing, { thing, by: p.by, byName: p.byName });
    else open.delete(thing);
  }
  return open.get("desktop") ?? open.get("terminal") ?? null;
}
