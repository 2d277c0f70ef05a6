// A person's message to the agent (user.message) in the timeline: who wrote
// it, what (plain text), and whether the agent has read it yet: the first
// model.turn that lists its seq in `messages` read it.
import type { EventOf, TimelineEvent } from "@/lib/run-events";
import { EventRow } from "./event-row";

/** For each user.message seq, the step of the model turn that read it. */
export function messagesReadAt(events: TimelineEvent[]): Map<number, number> {
  const read = new Map<number, number>();
  for (const e of events) {
    if (e.type !== "model.turn") continue;
    const p = e.payload as EventOf<"model.turn">["payload"];
    for (const seq of p.messages ?? []) if (!read.has(seq)) read.set(seq, p.step);
  }
  return read;
}

function PersonIcon() {
  return (
    <svg
      width="14"
      height="14"
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.6"
      strokeLinecap="round"
      aria-hidden="true"
    >
      <circle cx="8" cy="5.5" r="2.75" />
      <path d="M2.75 14c.6-2.7 2.7-4.25 5.25-4.25s4.65 1.55 5.25 4.25" />
    </svg>
  );
}

export function UserMessageItem({
  event,
  readAtStep,
  active,
  name,
  email,
}: {
  event: EventOf<"user.message">;
  readAtStep: number | null;
  active: boolean;
  name: string;
  email?: string;
}) {
  const p = event.payload;
  const read = readAtStep !== null;
  const status = read
    ? `Read by the agent at step ${readAtStep}`
    : active
      ? "Waiting for the agent's next turn"
      : "Not read: the run ended before the agent's next turn";
  return (
    <EventRow event={event} kind="user-message" icon={<PersonIcon />}>
      <div className="ev-card" data-testid="user-message" data-read={read} data-seq={event.seq}>
        <div className="ev-title">
          <strong data-testid="user-message-by" title={email}>
            {p.byName || name}
          </strong>
          <span className="ev-sub">{p.interrupt ? "wrote to the agent and interrupted the tool call" : "wrote to the agent"}</span>
        </div>
        <div className="user-message-text" data-testid="user-message-text">
          {p.text}
        </div>
        <div className={`user-message-status small${read ? " read" : ""}`} data-testid="user-message-status" data-read={read}>
          {!read && active && <span className="spinner spinner-sm" aria-hidden="true" />}
          {read && <span aria-hidden="true">✓</span>}
          {status}
        </div>
      </div>
    </EventRow>
  );
}
