// Timeline rows for the terminal's events: the pod attached (or not), a
// person taking over and handing back, each line they typed, and the note the
// agent was given.
import { EventRow } from "@/components/run/event-row";
import { TakeoverEventItem } from "@/components/run/takeover-event";
import { isEvent, type TimelineEvent } from "@/lib/run-events";

const TYPES = new Set(["terminal.attached", "terminal.unavailable", "terminal.reset", "terminal.control", "terminal.input", "human.note"]);

export function isTerminalEvent(event: TimelineEvent): boolean {
  return TYPES.has(event.type);
}

export function TerminalEventItem({ event, userName }: { event: TimelineEvent; userName(id: string | null): string }) {
  if (isEvent(event, "terminal.input")) {
    const p = event.payload;
    return (
      <EventRow event={event} kind="terminal-input" icon="⌨">
        <div className="ev-line" data-testid="terminal-input-event">
          <span>
            <strong>{p.byName || userName(p.by)}</strong> ran
          </span>
          <code className="cmd" data-testid="terminal-input-text">
            {p.text}
          </code>
          {p.approximate && (
            <span className="ev-sub" title="Edited with history, completion or cursor keys: the command may differ slightly">
              approximately
            </span>
          )}
        </div>
      </EventRow>
    );
  }

  if (isEvent(event, "terminal.control")) return <TakeoverEventItem event={event} thing="terminal" icon="⌨" userName={userName} />;

  if (isEvent(event, "human.note")) {
    const p = event.payload;
    return (
      <EventRow event={event} kind="note" icon="✉">
        <div className="ev-card" data-testid="human-note-event">
          <div className="ev-title">
            <strong>Note to the agent</strong>
            <span className="ev-sub">from {p.byName || userName(p.by)}, read before its next step</span>
          </div>
          <details style={{ marginTop: 6 }}>
            <summary className="small muted">{firstLine(p.text)}</summary>
            <pre className="code-block light">{p.text}</pre>
          </details>
        </div>
      </EventRow>
    );
  }

  if (isEvent(event, "terminal.attached")) {
    const p = event.payload;
    return (
      <EventRow event={event} kind="state" icon=">_">
        <div className="ev-line small" data-testid="terminal-attached-event">
          <span>Terminal ready</span>
          <span className="ev-sub">
            {p.sandbox === "bubblewrap" ? "bubblewrap sandbox" : "no sandbox"} ·{" "}
            {p.fromPool
              ? `from the warm pool in ${Math.round(p.startMs)} ms`
              : p.startMs > 0
                ? `started in ${Math.round(p.startMs)} ms`
                : "the same terminal as before"}
          </span>
        </div>
      </EventRow>
    );
  }

  if (isEvent(event, "terminal.unavailable")) {
    return (
      <EventRow event={event} kind="state" icon=">_">
        <div className="ev-line small" data-testid="terminal-unavailable-event">
          <span>No terminal for this run:</span>
          <span className="ev-sub">{event.payload.reason}</span>
        </div>
      </EventRow>
    );
  }
  if (isEvent(event, "terminal.reset")) {
    return (
      <EventRow event={event} kind="state" icon=">_">
        <div className="ev-line small" data-testid="terminal-reset-event">
          <span>The terminal&apos;s screen was reset: some output could not be shown</span>
          <span className="ev-sub">{event.payload.reason}</span>
        </div>
      </EventRow>
    );
  }
  return null;
}

function firstLine(text: string) {
  const line = text.split("\n")[0];
  return line.length > 140 ? `${line.slice(0, 140)}…` : line;
}
