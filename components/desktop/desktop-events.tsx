// Timeline rows for the desktop's events: a person taking it over and
// handing it back (the note the agent got is a human.note row).
import { TakeoverEventItem } from "@/components/run/takeover-event";
import { isEvent, type TimelineEvent } from "@/lib/run-events";

export function isDesktopEvent(event: TimelineEvent): boolean {
  return event.type === "desktop.control";
}

export function DesktopEventItem({ event, userName }: { event: TimelineEvent; userName(id: string | null): string }) {
  return isEvent(event, "desktop.control") ? <TakeoverEventItem event={event} thing="desktop" icon="▣" userName={userName} /> : null;
}
