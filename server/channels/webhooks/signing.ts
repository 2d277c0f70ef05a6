// Standard Webhooks signatures (issue 19): every delivery carries
// `webhook-id` (the same on every retry, for the receiver's dedupe),
// `webhook-timestamp` (seconds, fresh per attempt) and `webhook-signature`:
// `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per secret,
// space-separated, so during a rotation both the old and the new secret sign
// and a receiver holding either accepts. Secrets are `whsec_` + base64.
import crypto from "node:crypto";

export const SECRET_PREFIX = "whsec_";
/** How far a timestamp may be from now, either way, before a receiver refuses it (the spec's suggestion). */
export const DEFAULT_TOLERANCE_SEC = 5 * 60;
const SECRET_BYTES = 24;
const MAX_SIGNATURES = 8;

export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookSignatureError";
  }
}

/** A new signing secret, shown to the admin once. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + crypto.randomBytes(SECRET_BYTES).toString("base64");
}

/** The key bytes of a secret (with or without its prefix); refuses what is not base64 of a sensible length. */
export function secretKey(secret: string): Buffer {
  const body = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) throw new WebhookSignatureError("A webhook secret is whsec_ followed by base64");
  const key = Buffer.from(body, "base64");
  if (key.length < 16 || key.length > 64) throw new WebhookSignatureError("A webhook secret's key is 16 to 64 bytes");
  return key;
}

function signature(key: Buffer, id: string, timestamp: number, body: string | Buffer): string {
  const hmac = crypto.createHmac("sha256", key);
  hmac.update(`${id}.${timestamp}.`);
  hmac.update(body);
  return `v1,${hmac.digest("base64")}`;
}

/** The `webhook-signature` header: one `v1,` signature per secret (the current one first). */
export function signWebhook(secrets: readonly string[], id: string, timestamp: number, body: string | Buffer): string {
  if (secrets.length === 0) throw new WebhookSignatureError("Nothing to sign with");
  if (!Number.isInteger(timestamp) || timestamp < 0) throw new WebhookSignatureError("The timestamp is whole seconds since 1970");
  if (!id || /[\s.]/.test(id)) throw new WebhookSignatureError("A webhook id has no spaces or dots");
  return secrets.map((s) => signature(secretKey(s), id, timestamp, body)).join(" ");
}

export type SignedHeaders = {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
};

/** The three headers of one attempt. */
export function webhookHeaders(secrets: readonly string[], id: string, timestamp: number, body: string | Buffer): SignedHeaders {
  return { "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": signWebhook(secrets, id, timestamp, body) };
}

/**
 * What a receiver does (Rein's Slack endpoint and its own tests use it): the
 * timestamp within the tolerance, and any one of the `v1` signatures equal to
 * the one this secret makes, compared in constant time. Throws why not.
 */
export function verifyWebhook(
  secret: string,
  headers: Partial<Record<keyof SignedHeaders, string | undefined>>,
  body: string | Buffer,
  nowSec: number,
  toleranceSec = DEFAULT_TOLERANCE_SEC,
): void {
  const id = headers["webhook-id"];
  const ts = headers["webhook-timestamp"];
  const sigs = headers["webhook-signature"];
  if (!id || !ts || !sigs) throw new WebhookSignatureError("The webhook-id, webhook-timestamp and webhook-signature headers are required");
  if (!/^\d{1,12}$/.test(ts)) throw new WebhookSignatureError("webhook-timestamp is not whole seconds");
  const timestamp = Number(ts);
  if (Math.abs(nowSec - timestamp) > toleranceSec) throw new WebhookSignatureError("webhook-timestamp is too old or too far in the future");
  const expected = Buffer.from(signature(secretKey(secret), id, timestamp, body));
  const given = sigs.split(" ").filter(Boolean).slice(0, MAX_SIGNATURES);
  const match = given.some((g) => {
    const b = Buffer.from(g);
    return b.length === expected.length && crypto.timingSafeEqual(b, expected);
  });
  if (!match) throw new WebhookSignatureError("No signature matches");
}
