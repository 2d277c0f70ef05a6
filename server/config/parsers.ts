// Parsers of the environment variables whose values have a shape of their own.
// They live here, free of other server folders, so the registry (./env.ts) can
// check every variable at start; the modules that use the values re-export them.
import { z } from "zod";

// --- REIN_HITL_LADDER (human requests, docs/human-requests-and-policy.md#deadlines-the-ttl-ladder) ---

export interface TtlLadder {
  level1Sec: number;
  level2Sec: number;
  hardCapSec: number;
}

export const DEFAULT_LADDER: TtlLadder = { level1Sec: 24 * 3600, level2Sec: 48 * 3600, hardCapSec: 7 * 24 * 3600 };

const UNIT_SEC: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** "90s", "30m", "24h", "7d" -> seconds. */
export function parseDuration(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([smhd])\s*$/.exec(text);
  if (!m) throw new Error(`"${text}" is not a duration (use e.g. 90s, 30m, 24h, 7d)`);
  return Math.round(Number(m[1]) * UNIT_SEC[m[2]]);
}

/** REIN_HITL_LADDER="24h,48h,7d" (level 1, level 2, hard cap). */
export function ladderFromEnv(value: string | undefined): TtlLadder {
  if (!value?.trim()) return DEFAULT_LADDER;
  const parts = value.split(",").map((p) => parseDuration(p));
  if (parts.length !== 3) throw new Error(`REIN_HITL_LADDER needs three durations (level 1, level 2, hard cap), got "${value}"`);
  const [level1Sec, level2Sec, hardCapSec] = parts;
  if (hardCapSec < level1Sec) throw new Error("REIN_HITL_LADDER: the hard cap must not be shorter than level 1");
  return { level1Sec, level2Sec, hardCapSec };
}

// --- REIN_PROVIDER_RPS (limits) ---

/** REIN_PROVIDER_RPS="openai=5,anthropic=2": requests per second per provider. */
export function rpsFromEnv(value: string | undefined): (provider: string) => number | undefined {
  const table = new Map<string, number>();
  for (const part of (value ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [name, rate] = part.split("=");
    const n = Number(rate);
    if (!name || !Number.isFinite(n) || n <= 0) throw new Error(`REIN_PROVIDER_RPS: "${part}" is not provider=requests-per-second`);
    table.set(name.trim(), n);
  }
  return (provider) => table.get(provider);
}

// --- REIN_DESKTOP_POOL_SIZE (the desktop tier) ---

/** More warm desktops than this would only hold memory (each is a Chromium). */
export const MAX_DESKTOP_POOL_SIZE = 16;

/** REIN_DESKTOP_POOL_SIZE, checked: a whole number from 0 to 16. */
export function desktopPoolSizeFromEnv(value = process.env.REIN_DESKTOP_POOL_SIZE): number {
  if (value === undefined || value.trim() === "") return 1;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > MAX_DESKTOP_POOL_SIZE) {
    throw new Error(`REIN_DESKTOP_POOL_SIZE must be a whole number from 0 to ${MAX_DESKTOP_POOL_SIZE}, not ${JSON.stringify(value)}`);
  }
  return n;
}

// --- REIN_SECRET_KEY (secrets) ---

type ErrorClass = new (message: string) => Error;

const SECRET_KEY_BYTES = 32;
const HOW_TO_MAKE = "Generate one with: openssl rand -base64 32";

/** Decodes 32 bytes written as 64 hex characters or as base64 / base64url. Never echoes the input. */
export function parseSecretKey(text: string, source: string, Failure: ErrorClass = Error): Buffer {
  const s = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(s)) return Buffer.from(s, "hex");
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(s)) {
    const bytes = Buffer.from(s.replace(/-/g, "+").replace(/_/g, "/"), "base64");
    const canonical = bytes.toString("base64").replace(/=+$/, "");
    if (bytes.length === SECRET_KEY_BYTES && canonical === s.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "")) return bytes;
    throw new Failure(
      `${source} must hold ${SECRET_KEY_BYTES} bytes as base64 (44 characters) or hex (64 characters); ` +
        `it has ${s.length} characters${bytes.length !== SECRET_KEY_BYTES ? ` that decode to ${bytes.length} bytes` : " that are not valid base64"}. ${HOW_TO_MAKE}`,
    );
  }
  throw new Failure(
    `${source} must hold ${SECRET_KEY_BYTES} bytes as base64 (44 characters) or hex (64 characters); it has ${s.length} characters that are neither. ${HOW_TO_MAKE}`,
  );
}

// --- REIN_LINK_KEYS (resume links, docs/human-requests-and-policy.md#signed-resume-links) ---

const LINK_SECRET_BYTES = 32;

const KeyRecord = z.strictObject({
  kid: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "kid must be 1-64 base64url characters"),
  secret: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, "secret must be base64url")
    .refine((s) => Buffer.from(s, "base64url").length >= LINK_SECRET_BYTES, `secret must hold at least ${LINK_SECRET_BYTES} bytes`),
  createdAt: z.iso.datetime(),
});
const RetiredKeyRecord = KeyRecord.extend({ retiredAt: z.iso.datetime() });

/** The shape of `link-keys.json` and of `REIN_LINK_KEYS`. */
export const LinkKeysFile = z.strictObject({
  version: z.literal(1),
  current: KeyRecord,
  previous: RetiredKeyRecord.nullable().optional(),
});
export type LinkKeysFile = z.infer<typeof LinkKeysFile>;

/** Reads link keys from JSON; the errors name `source` and never echo a secret. */
export function parseLinkKeys(json: string, source: string, Failure: ErrorClass = Error): LinkKeysFile {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new Failure(`${source} is not JSON`);
  }
  const parsed = LinkKeysFile.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    throw new Failure(`${source} is not a valid link key file: ${problems}`);
  }
  if (parsed.data.previous && parsed.data.previous.kid === parsed.data.current.kid) {
    throw new Failure(`${source}: the current and previous keys have the same kid`);
  }
  return parsed.data;
}

// --- REIN_FAILPOINTS (crash tests) ---

export const FAILPOINT_NAMES = ["after-tool-executed", "session-boundary"] as const;
export type FailpointName = (typeof FAILPOINT_NAMES)[number];

/** REIN_FAILPOINTS="name:n[,name:n]": kill the process at the n-th hit of `name` (n defaults to 1). */
export function parseFailpoints(value: string | undefined): Map<string, number> {
  const armed = new Map<string, number>();
  for (const item of (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [name, n, ...rest] = item.split(":");
    const at = n === undefined ? 1 : Number(n);
    if (!(FAILPOINT_NAMES as readonly string[]).includes(name) || rest.length || !Number.isInteger(at) || at < 1) {
      throw new Error(`REIN_FAILPOINTS: "${item}" is not name:n with a name of ${FAILPOINT_NAMES.join(", ")} and n a whole number from 1`);
    }
    armed.set(name, at);
  }
  return armed;
}
