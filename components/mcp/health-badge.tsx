import { HEALTH, type Health } from "./format";

/** A server's health in colour and words. */
export function HealthBadge({ health }: { health: Health }) {
  const h = HEALTH[health];
  return (
    <span className={`badge status-${h.status}`} data-testid="mcp-health" data-health={health}>
      <span className="badge-dot" aria-hidden="true" />
      {h.label}
    </span>
  );
}
