// Above the tabs while the run waits for a person: what it waits for, and where to answer.
import Link from "next/link";
import { useMemo } from "react";
import type { EventOf, TimelineEvent } from "@/lib/run-events";
import { HandIcon } from "@/components/icons";
import { InlineCode } from "@/components/inbox/inline-code";
import { inboxHref } from "./human-events";

/** human.requested events with no human.decided yet, oldest first. */
export function openRequests(events: TimelineEvent[]): EventOf<"human.requested">[] {
  const decided = new Set<string>();
  for (const e of events) if (e.type === "human.decided") decided.add((e.payload as { requestId: string }).requestId);
  return events.filter(
    (e): e is EventOf<"human.requested"> => e.type === "human.requested" && !decided.has((e.payload as { requestId: string }).requestId),
  );
}

export function WaitingBanner({ events }: { events: TimelineEvent[] }) {
  const open = useMemo(() => openRequests(events), [events]);
  if (open.length === 0) {
    return (
      <div className="alert alert-info" role="status" data-testid="waiting-banner" style={{ marginBottom: 10 }}>
        <span>
          <strong>Waiting for a person.</strong> <Link href="/inbox">Open the inbox</Link>
        </span>
      </div>
    );
  }
  const first = open[0].payload;
  return (
    <div className="handoff-banner" role="status" data-testid="waiting-banner" style={{ marginBottom: 10 }}>
      <HandIcon />
      <span style={{ flex: 1, minWidth: 0 }}>
        <strong>Waiting for a person:</strong>{" "}
        <span data-testid="waiting-title">
          <InlineCode text={first.title} />
        </span>
        {open.length > 1 && <span className="small"> (and {open.length - 1} more)</span>}
      </span>
      <Link href={inboxHref(first.requestId)} className="btn btn-sm btn-primary" data-testid="waiting-open-inbox">
        Open in inbox
      </Link>
    </div>
  );
}
