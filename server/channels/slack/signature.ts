// Slack's request signing (v0): what makes a click Slack's and no one else's.
// x-slack-signature = "v0=" + hex HMAC-SHA256(signing secret,
// "v0:<x-slack-request-timestamp>:<raw body>"), within five minutes of now.
import crypto from "node:crypto";

/** How far a request's timestamp may be from now, either way. */
export const SLACK_MAX_SKEW_SEC = 300;

export type SignatureVerdict = { ok: true } | { ok: false; code: "UNSIGNED" | "STALE" | "FORGED"; message: string };

export function verifySlackSignature(
  secret: string,
  headers: { timestamp?: string; signature?: string },
  rawBody: string,
  nowSec: number,
): SignatureVerdict {
  const { timestamp, signature } = headers;
  if (!timestamp || !signature) return { ok: false, code: "UNSIGNED", message: "The request carries no Slack signature" };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, code: "FORGED", message: "The Slack timestamp is not a number of seconds" };
  if (Math.abs(nowSec - Number(timestamp)) > SLACK_MAX_SKEW_SEC)
    return { ok: false, code: "STALE", message: "The request is more than five minutes old or ahead" };
  const expected = `v0=${crypto.createHmac("sha256", secret).update(`v0:${timestamp}:${rawBody}`).digest("hex")}`;
  const given = Buffer.from(signature);
  const wanted = Buffer.from(expected);
  if (given.length !== wanted.length || !crypto.timingSafeEqual(given, wanted))
    return { ok: false, code: "FORGED", message: "The Slack signature does not match" };
  return { ok: true };
}

/** The replay key of a signed request: one click, one use. */
export function replayKey(signature: string): string {
  return crypto.createHash("sha256").update(signature).digest("hex");
}
