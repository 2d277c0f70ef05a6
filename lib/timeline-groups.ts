// How the run page groups its event log into timeline entries: a tool call and
// its result make one card, the routine rows a resume writes sit under it, and
// routine "policy: allow" notes are hidden unless asked for. A call a person was
// asked about keeps its result apart, after the question and the decision, so
// the page reads in the order things happened. Pure functions.
import { isEvent, shellOutput, type EventOf, type TimelineEvent } from "./run-events";

export type TimelineEntry =
  | { kind: "event"; event: TimelineEvent }
  /** A tool call with its result, null while it runs. */
  | { kind: "tool"; call: EventOf<"tool.call">; result: EventOf<"tool.result"> | null }
  /** A resume (after a restart, or a person's) and the routine rows it wrote. */
  | { kind: "resume"; head: TimelineEvent; rows: TimelineEvent[] };

/** Rows a resume writes on its way back to work: shown folded under it. */
const RESUME_ROWS = new Set(["run.state", "terminal.attached", "terminal.unavailable", "tier.lost", "tier.restored"]);
/** States a resume passes through; any other state change (an end) stays on its own. */
const RESUME_STATES = new Set(["queued", "running"]);

function isResumeHead(e: TimelineEvent): boolean {
  return e.type === "run.resumed" || (isEvent(e, "run.control") && e.payload.action === "resume");
}

function isResumeRow(e: TimelineEvent): boolean {
  if (!RESUME_ROWS.has(e.type)) return false;
  return !isEvent(e, "run.state") || RESUME_STATES.has(e.payload.to);
}

/** Calls a person was asked about (a human request names them): their result comes after the decision. */
export function askedCalls(events: readonly TimelineEvent[]): Set<string> {
  const asked = new Set<string>();
  for (const e of events) if (isEvent(e, "human.requested") && e.payload.toolCallId) asked.add(e.payload.toolCallId);
  return asked;
}

/** The log as timeline entries, in order; every event appears exactly once. */
export function groupTimeline(events: readonly TimelineEvent[]): TimelineEntry[] {
  const results = new Map<string, EventOf<"tool.result">>();
  const calls = new Set<string>();
  const asked = askedCalls(events);
  for (const e of events) {
    if (isEvent(e, "tool.result") && !results.has(e.payload.toolCallId)) results.set(e.payload.toolCallId, e);
    else if (isEvent(e, "tool.call")) calls.add(e.payload.toolCallId);
  }
  const out: TimelineEntry[] = [];
  let resume: Extract<TimelineEntry, { kind: "resume" }> | null = null;
  for (const e of events) {
    if (resume && isResumeRow(e)) {
      resume.rows.push(e);
      continue;
    }
    resume = null;
    if (isEvent(e, "tool.call")) {
      out.push({ kind: "tool", call: e, result: asked.has(e.payload.toolCallId) ? null : (results.get(e.payload.toolCallId) ?? null) });
    } else if (
      isEvent(e, "tool.result") &&
      calls.has(e.payload.toolCallId) &&
      !asked.has(e.payload.toolCallId) &&
      results.get(e.payload.toolCallId) === e
    ) {
      continue; // shown on its call's card
    } else if (isResumeHead(e)) {
      resume = { kind: "resume", head: e, rows: [] };
      out.push(resume);
    } else {
      out.push({ kind: "event", event: e });
    }
  }
  // A resume that wrote nothing else is a plain row.
  return out.map((entry) => (entry.kind === "resume" && entry.rows.length === 0 ? { kind: "event", event: entry.head } : entry));
}

type Gate = NonNullable<EventOf<"tool.result">["payload"]["gate"]>;

/** Whether a result's gate note is worth a line: a routine allow (no person asked) only when asked for. */
export function showGateNote(gate: Gate | undefined, showAllow: boolean): boolean {
  if (!gate || (!gate.policy && !gate.requestId)) return false;
  if (showAllow) return true;
  return !!gate.requestId || gate.policy?.effect !== "allow";
}

/** A tool result that went wrong: an error, or a shell command that exited non-zero. */
export function resultFailed(result: EventOf<"tool.result">): boolean {
  if (!result.payload.ok) return true;
  const shell = result.payload.tool === "shell" ? shellOutput(result.payload.output) : null;
  return !!shell && shell.exitCode !== 0;
}

/** The run succeeded although its last tool call failed (the agent ended anyway). */
export function endedAfterFailedCall(events: readonly TimelineEvent[], status: string): boolean {
  if (status !== "succeeded") return false;
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (isEvent(e, "tool.result")) return resultFailed(e);
  }
  return false;
}

/** The highest step the log shows (its model turns), 0 before the first. */
export function lastStep(events: readonly TimelineEvent[]): number {
  let step = 0;
  for (const e of events) if (isEvent(e, "model.turn")) step = Math.max(step, e.payload.step);
  return step;
}

/** The models that answered the run's turns so far, first answer first (what "auto" became). */
export function modelsThatAnswered(events: readonly TimelineEvent[]): Array<{ model: string; scripted: boolean }> {
  const seen = new Map<string, { model: string; scripted: boolean }>();
  for (const e of events)
    if (isEvent(e, "model.turn") && e.payload.model && !seen.has(e.payload.model))
      seen.set(e.payload.model, { model: e.payload.model, scripted: e.payload.scripted });
  return [...seen.values()];
}

/** The run had a desktop or may get one: its tier has one (T2), or the log shows a desktop or a move towards one. */
export function mayHaveDesktop(tier: string, events: readonly TimelineEvent[]): boolean {
  if (tier === "T2") return true;
  return events.some(
    (e) =>
      e.type === "desktop.control" ||
      (isEvent(e, "tier.requested") && e.payload.to === "T2") ||
      (isEvent(e, "tier.changed") && (e.payload.to === "T2" || e.payload.from === "T2" || !!e.payload.desktopId)) ||
      (isEvent(e, "tier.restored") && (e.payload.tier === "T2" || !!e.payload.desktopId)) ||
      (isEvent(e, "tier.lost") && e.payload.tier === "T2"),
  );
}
