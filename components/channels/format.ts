// Shared shapes and words for Settings › Channels.
import type { RouterOutputs } from "@/lib/trpc";

export { endpointState, prettyBody, statusWords, stillMoving, type EndpointState } from "@/lib/webhook-views";

export type Endpoint = RouterOutputs["webhooks"]["list"][number];
export type Delivery = RouterOutputs["webhooks"]["deliveries"]["deliveries"][number];
export type DeliveryDetail = RouterOutputs["webhooks"]["delivery"];
export type Attempt = DeliveryDetail["log"][number];
export type DeliveryState = Delivery["state"];

export const endpointHref = (id: string) => `/settings/channels/webhooks/${encodeURIComponent(id)}`;
export const CHANNELS_HREF = "/settings/channels";

export const DELIVERY_STATES: Record<DeliveryState, { label: string; status: string }> = {
  pending: { label: "pending", status: "running" },
  succeeded: { label: "delivered", status: "succeeded" },
  failed: { label: "failed", status: "failed" },
};

export const TRIGGER_WORDS: Record<string, string> = {
  scheduled: "scheduled",
  recover: "recovered",
  resend: "resent by hand",
  test: "test ping",
};
