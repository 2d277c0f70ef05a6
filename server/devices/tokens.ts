// Device tokens and pairing codes (docs/devices.md#pairing): made from the
// system's random source, stored only as SHA-256, compared in constant time.
import crypto from "node:crypto";
import { DEVICE_TOKEN_LENGTH, DEVICE_TOKEN_PREFIX, PAIRING_ALPHABET } from "@/lib/device-protocol";

export const digest = (text: string): string => crypto.createHash("sha256").update(text).digest("hex");

/** Whether `text` hashes to `hash` (hex), compared in constant time. */
export function matchesDigest(text: string, hash: string): boolean {
  const a = Buffer.from(digest(text), "hex");
  const b = Buffer.from(hash, "hex");
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

export const newDeviceToken = (): string => DEVICE_TOKEN_PREFIX + crypto.randomBytes(32).toString("base64url");

/** Whether the text could be a device token at all: a wrong length or prefix costs no hash and no query. */
export const looksLikeDeviceToken = (text: string): boolean =>
  text.length === DEVICE_TOKEN_LENGTH &&
  text.startsWith(DEVICE_TOKEN_PREFIX) &&
  /^[A-Za-z0-9_-]+$/.test(text.slice(DEVICE_TOKEN_PREFIX.length));

/** 8 characters of the 32-letter alphabet (40 bits), shown as ABCD-EFGH. */
export function newPairingCode(): string {
  const bytes = crypto.randomBytes(8);
  const chars = [...bytes].map((b) => PAIRING_ALPHABET[b & 31]);
  return `${chars.slice(0, 4).join("")}-${chars.slice(4).join("")}`;
}
