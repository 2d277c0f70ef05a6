// Signed outbound webhooks (issue 19, docs/channels.md#webhooks): Standard Webhooks
// signatures, the retry schedule, one attempt behind the SSRF guard, and the
// endpoints' service with its delivery worker.
export {
  DEFAULT_TOLERANCE_SEC,
  SECRET_PREFIX,
  WebhookSignatureError,
  newWebhookSecret,
  secretKey,
  signWebhook,
  verifyWebhook,
  webhookHeaders,
  type SignedHeaders,
} from "./signing";
export {
  DISABLE_AFTER_MS,
  MAX_RETRY_AFTER_MS,
  RETRY_SCHEDULE_MS,
  afterAttempt,
  retryAfterMs,
  type AttemptResult,
  type AttemptVerdict,
} from "./schedule";
export {
  DELIVERY_TIMEOUT_MS,
  RESPONSE_BODY_BYTES,
  checkTarget,
  sendWebhook,
  type Delivery,
  type SendOptions,
  type SendResult,
} from "./send";
export { AllowHostsInput, allowedTarget, parseAllowedHost, formatAllowedHost, type AllowedHost } from "./allow-hosts";
export {
  Webhooks,
  WebhookInput,
  WebhookUpdate,
  ROTATION_OVERLAP_MS,
  OUTBOX_RETENTION_MS,
  ALLOW_HOSTS_SETTING,
  TEST_EVENT_TYPE,
  type WebhooksDeps,
  type WebhookEndpointView,
  type WebhookDeliveryView,
  type WebhookAttemptView,
} from "./service";
