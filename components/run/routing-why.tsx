// "Why this model": the router's decision for a model turn — the rule, the
// candidates in order, those left out and why — folded away by default.
import { failoverSummary, routingFacts } from "@/lib/model-events";
import type { EventOf } from "@/lib/run-events";

type Turn = EventOf<"model.turn">["payload"];

export function RoutingWhy({ routing, failovers }: Pick<Turn, "routing" | "failovers">) {
  const after = failoverSummary(failovers);
  if (!routing && !after) return null;
  return (
    <details className="disclosure" style={{ marginTop: 8 }} data-testid="routing-why">
      <summary>Why this model{after ? ` · ${after}` : ""}</summary>
      <div className="stack small" style={{ gap: 6, marginTop: 6 }}>
        {routing && <div data-testid="routing-reason">{routing.reason}</div>}
        {routing && (
          <div className="row" style={{ gap: 14, flexWrap: "wrap" }}>
            {routingFacts(routing).map((f) => (
              <span key={f.label}>
                <span className="muted">{f.label}:</span> {f.value}
              </span>
            ))}
          </div>
        )}
        {routing && routing.candidates.length > 0 && (
          <div>
            <span className="muted">Candidates, in order:</span>{" "}
            {routing.candidates.map((c, i) => (
              <span key={c}>
                {i > 0 && " → "}
                <code>{c}</code>
              </span>
            ))}
          </div>
        )}
        {routing && routing.skipped.length > 0 && (
          <ul style={{ margin: 0, paddingLeft: 18 }} aria-label="Left out">
            {routing.skipped.map((s) => (
              <li key={s.model}>
                <code>{s.model}</code> <span className="muted">— {s.reason}</span>
              </li>
            ))}
          </ul>
        )}
      </div>
    </details>
  );
}
