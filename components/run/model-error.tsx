// A failed model call in the timeline, and where the turn went next
// (rate limits, 5xx and timeouts cool the model down and fail over:
// docs/models.md#failover-cooldowns-and-the-circuit-breaker).
import { failoverText } from "@/lib/model-events";
import type { EventOf } from "@/lib/run-events";
import { EventRow } from "./event-row";

/** `shownAbove`: the page's header shows this error as the run's failure, so it is not repeated here. */
export function ModelErrorItem({ event, shownAbove = false }: { event: EventOf<"model.error">; shownAbove?: boolean }) {
  const p = event.payload;
  return (
    <EventRow event={event} kind="state" icon={p.failoverTo ? "⇢" : "!"}>
      <div className="ev-card" data-testid="model-error" data-failover={p.failoverTo ?? undefined}>
        <div className="ev-title">
          <strong>{p.failoverTo ? "Model call failed — failing over" : "Model call failed"}</strong>
          <span className="ev-sub">
            {p.agent} · {p.model} · step {p.step}
          </span>
        </div>
        {(p.errorKind || p.failoverTo || p.cooldownMs !== undefined) && (
          <div className="ev-line" data-testid="failover-text">
            {failoverText(p)}
          </div>
        )}
        {shownAbove ? (
          <div className="ev-sub" data-testid="model-error-above">
            The run failed on this call; its error is at the top of the page.
          </div>
        ) : (
          <div className="error-box">{p.error}</div>
        )}
      </div>
    </EventRow>
  );
}
