// Resume-link tokens (docs/human-requests-and-policy.md#signed-resume-links):
//   base64url(JSON payload) "." base64url(HMAC-SHA256(key, payload part))
// Pure: signing and verifying touch no database; links.ts adds single use.
import crypto from "node:crypto";
import { z } from "zod";
import { ROLES } from "@/server/identity";
import type { LinkKeyRing } from "./keys";

export const TOKEN_VERSION = 1;
/** Far above any real token (~400 characters); bounds the work spent on junk. */
const MAX_TOKEN_LENGTH = 4096;
const MAC_BYTES = 32;
const NONCE_BYTES = 16;
const B64URL = /^[A-Za-z0-9_-]+$/;
const Id = z.string().min(1).max(200);

export const LinkPayload = z.strictObject({
  v: z.literal(TOKEN_VERSION),
  kid: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  run_id: Id,
  node_id: Id,
  checkpoint_id: Id,
  decision_slot: Id,
  request_id: Id,
  actor_role: z.enum(ROLES),
  /** Unix seconds. */
  expires_at: z.number().int().positive(),
  /** At least 128 random bits. */
  nonce: z.string().regex(/^[A-Za-z0-9_-]{22,128}$/),
});
export type LinkPayload = z.infer<typeof LinkPayload>;

/** What the caller supplies; the version, key id and nonce are added when signing. */
export type LinkPayloadFields = Omit<LinkPayload, "v" | "kid" | "nonce">;

export type TokenRefusalCode = "MALFORMED" | "FORGED" | "RETIRED_KEY" | "EXPIRED";

export type VerifyResult = { ok: true; payload: LinkPayload } | { ok: false; code: TokenRefusalCode; message: string };

/** The fixed messages; EXPIRED's names the time. */
export const TOKEN_MESSAGES: Record<Exclude<TokenRefusalCode, "EXPIRED">, string> = {
  MALFORMED: "This link is damaged or incomplete",
  FORGED: "This link's signature is not valid",
  RETIRED_KEY: "This link was signed with a key that has been retired; ask for a new link",
};

function mac(secret: Buffer, payloadPart: string): Buffer {
  return crypto.createHmac("sha256", secret).update(payloadPart, "ascii").digest();
}

/** Signs with the ring's current key (rotating it first when due). */
export function signToken(ring: LinkKeyRing, fields: LinkPayloadFields): { token: string; payload: LinkPayload } {
  const key = ring.signingKey();
  const payload = LinkPayload.parse({
    v: TOKEN_VERSION,
    kid: key.kid,
    ...fields,
    nonce: crypto.randomBytes(NONCE_BYTES).toString("base64url"),
  });
  const payloadPart = Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
  return { token: `${payloadPart}.${mac(key.secret, payloadPart).toString("base64url")}`, payload };
}

/** Decodes strict, canonical base64url: another spelling of the same bytes is a different token. */
function decodeSegment(part: string): Buffer | null {
  if (!B64URL.test(part)) return null;
  const bytes = Buffer.from(part, "base64url");
  return bytes.toString("base64url") === part ? bytes : null;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function refuse(code: keyof typeof TOKEN_MESSAGES): VerifyResult {
  return { ok: false, code, message: TOKEN_MESSAGES[code] };
}

function formatExpiry(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

/**
 * Checks a token's shape, signature, key and expiry. The signature is checked
 * before anything in the payload but its key id is trusted.
 */
export function verifyToken(ring: LinkKeyRing, token: unknown, now: Date): VerifyResult {
  if (typeof token !== "string" || token.length === 0 || token.length > MAX_TOKEN_LENGTH) return refuse("MALFORMED");
  const parts = token.split(".");
  if (parts.length !== 2) return refuse("MALFORMED");
  const [payloadPart, macPart] = parts;
  const payloadBytes = decodeSegment(payloadPart);
  const macBytes = decodeSegment(macPart);
  if (!payloadBytes || !macBytes || macBytes.length !== MAC_BYTES) return refuse("MALFORMED");

  let raw: unknown;
  try {
    raw = JSON.parse(utf8.decode(payloadBytes));
  } catch {
    return refuse("MALFORMED");
  }
  const kid = raw !== null && typeof raw === "object" && !Array.isArray(raw) ? (raw as { kid?: unknown }).kid : undefined;
  if (typeof kid !== "string") return refuse("MALFORMED");

  const found = ring.lookup(kid, now);
  if (!found) return refuse("FORGED");
  if (!crypto.timingSafeEqual(mac(found.key.secret, payloadPart), macBytes)) return refuse("FORGED");

  const parsed = LinkPayload.safeParse(raw);
  if (!parsed.success) return refuse("MALFORMED");
  if (!found.usable) return refuse("RETIRED_KEY");
  const payload = parsed.data;
  if (now.getTime() >= payload.expires_at * 1000) {
    return { ok: false, code: "EXPIRED", message: `This link expired at ${formatExpiry(payload.expires_at)}` };
  }
  return { ok: true, payload };
}

/** What the database keeps instead of the token. */
export function hashResumeToken(token: string): string {
  return crypto.createHash("sha256").update(token, "utf8").digest("hex");
}
