// A webhook's state and a delivery's state in colour and words.
import { formatRelative } from "@/lib/format";
import { DELIVERY_STATES, endpointState, type DeliveryState, type Endpoint } from "./format";

export function EndpointBadge({ endpoint }: { endpoint: Pick<Endpoint, "enabled" | "failingSince" | "disabledReason"> }) {
  const state = endpointState(endpoint);
  const status = state === "on" ? "succeeded" : state === "failing" ? "paused" : "canceled";
  const label = state === "on" ? "on" : state === "failing" ? `failing since ${formatRelative(endpoint.failingSince)}` : "off";
  return (
    <span
      className={`badge status-${status}`}
      data-testid="webhook-state"
      data-state={state}
      title={state === "off" ? (endpoint.disabledReason ?? undefined) : undefined}
    >
      <span className="badge-dot" aria-hidden="true" />
      {label}
    </span>
  );
}

export function DeliveryBadge({ state }: { state: DeliveryState }) {
  const s = DELIVERY_STATES[state];
  return (
    <span className={`badge status-${s.status}`} data-testid="delivery-state" data-state={state}>
      <span className="badge-dot" aria-hidden="true" />
      {s.label}
    </span>
  );
}
