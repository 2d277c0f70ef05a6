// One row of the timeline: icon, content, time.
import type { ReactNode } from "react";
import { formatClock, formatDateTime } from "@/lib/format";
import type { TimelineEvent } from "@/lib/run-events";

export function EventRow({ event, kind, icon, children }: { event: TimelineEvent; kind: string; icon: ReactNode; children: ReactNode }) {
  const at = new Date(event.createdAt);
  return (
    <li className={`ev ev-${kind}`} data-testid="timeline-event" data-type={event.type} data-seq={event.seq}>
      <span className="ev-icon" aria-hidden="true">
        {icon}
      </span>
      <div style={{ minWidth: 0 }}>{children}</div>
      <time className="ev-time" dateTime={at.toISOString()} title={`#${event.seq} · ${formatDateTime(at)}`}>
        {formatClock(at)}
      </time>
    </li>
  );
}
