// Timeline rows for compute tier events
// (docs/desktops-and-tiers.md#moving-up-upgrade_tier): the agent asking for a
// tier, the move (how long it took, from the warm pool or not), a refusal with
// its reason code, the way back down (idle, run end), and a desktop lost to a
// restart and started again.
import { formatDuration } from "@/lib/format";
import { isEvent, type TimelineEvent } from "@/lib/run-events";
import { tierLabel } from "@/lib/tier-draft";
import { EventRow } from "./event-row";

const TYPES = new Set(["tier.requested", "tier.changed", "tier.refused", "tier.lost", "tier.restored"]);

export function isTierEvent(event: TimelineEvent): boolean {
  return TYPES.has(event.type);
}

const took = (ms: number) => formatDuration(Math.max(0, ms));

export function TierEventItem({ event }: { event: TimelineEvent }) {
  if (isEvent(event, "tier.requested")) {
    const p = event.payload;
    return (
      <EventRow event={event} kind="tier" icon="⇧">
        <div className="ev-line" data-testid="tier-event" data-kind="requested">
          <span>
            Asked to move to <strong>{tierLabel(p.to)}</strong> from {tierLabel(p.from)}
          </span>
          {p.reason && <span className="ev-sub">“{p.reason}”</span>}
        </div>
      </EventRow>
    );
  }

  if (isEvent(event, "tier.changed")) {
    const p = event.payload;
    const up = p.trigger === "upgrade";
    return (
      <EventRow event={event} kind="tier" icon={up ? "⇧" : "⇩"}>
        <div
          className={up ? "handoff-banner" : "ev-line"}
          data-testid="tier-event"
          data-kind={up ? "upgraded" : "downgraded"}
          data-trigger={p.trigger}
        >
          <span>
            {up ? "Moved to" : "Back to"} <strong data-testid="tier-event-to">{tierLabel(p.to)}</strong> from {tierLabel(p.from)} in{" "}
            <span data-testid="tier-event-took">{took(p.durationMs)}</span>
            {up && p.fromPool !== undefined && (
              <span className="ev-sub"> · {p.fromPool ? "a warm environment from the pool" : "started cold"}</span>
            )}
          </span>
          {!up && <span className="ev-sub">{p.reason}</span>}
        </div>
      </EventRow>
    );
  }

  if (isEvent(event, "tier.refused")) {
    const p = event.payload;
    return (
      <EventRow event={event} kind="state" icon="!">
        <div className="ev-card" data-testid="tier-event" data-kind="refused" data-code={p.code}>
          <div className="ev-title">
            <strong>Move to {tierLabel(p.to)} refused</strong>
            <span className="ev-sub">the run stays on {tierLabel(p.from)}</span>
          </div>
          <div className="error-box">
            <code>{p.code}</code>
            {p.message}
          </div>
        </div>
      </EventRow>
    );
  }

  if (isEvent(event, "tier.lost")) {
    const p = event.payload;
    return (
      <EventRow event={event} kind="resumed" icon="↻">
        <div className="resume-banner" data-testid="tier-event" data-kind="lost">
          <span>
            <strong>{tierLabel(p.tier)}: desktop lost.</strong> {p.reason}
          </span>
        </div>
      </EventRow>
    );
  }

  if (isEvent(event, "tier.restored")) {
    const p = event.payload;
    return (
      <EventRow event={event} kind="tier" icon="↻">
        <div className="ev-line" data-testid="tier-event" data-kind="restored">
          <span>
            A fresh desktop for <strong>{tierLabel(p.tier)}</strong> in {took(p.durationMs)}
          </span>
          <span className="ev-sub">{p.fromPool ? "from the warm pool" : "started cold"} · the browser starts empty</span>
        </div>
      </EventRow>
    );
  }
  return null;
}
