// A timeline row for a person taking over a run's terminal or desktop, or
// handing it back (terminal.control, desktop.control).
import type { EventOf } from "@/lib/run-events";
import { EventRow } from "./event-row";

export function TakeoverEventItem({
  event,
  thing,
  icon,
  userName,
}: {
  event: EventOf<"terminal.control"> | EventOf<"desktop.control">;
  thing: "terminal" | "desktop";
  icon: string;
  userName(id: string | null): string;
}) {
  const p = event.payload;
  return (
    <EventRow event={event} kind="control" icon={icon}>
      <div className="ev-line" data-testid={`${thing}-control-event`} data-action={p.action}>
        <span>
          <strong>{p.byName || userName(p.by)}</strong>{" "}
          {p.action === "takeover"
            ? `took over the ${thing}; the agent pauses after its current step`
            : `handed the ${thing} back to the agent`}
        </span>
        {p.reason && <span className="ev-sub">({p.reason})</span>}
      </div>
    </EventRow>
  );
}
