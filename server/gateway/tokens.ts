// Run-bound bearer tokens (docs/gateway.md#authentication): 32 random bytes
// behind a prefix, kept only as their SHA-256, so a lookup compares digests,
// never the secret itself character by character.
import crypto from "node:crypto";
import type { IncomingMessage } from "node:http";

export const TOKEN_PREFIX = "rein_gw_";
/** Longer than any token or key Rein issues; a longer header is not hashed. */
export const MAX_TOKEN_CHARS = 256;

export const tokenDigest = (token: string) => crypto.createHash("sha256").update(token).digest("hex");
const digest = tokenDigest;

export class TokenTable<T> {
  private readonly byDigest = new Map<string, T>();

  issue(value: T): { token: string; revoke(): void } {
    const token = `${TOKEN_PREFIX}${crypto.randomBytes(32).toString("base64url")}`;
    const key = digest(token);
    this.byDigest.set(key, value);
    return { token, revoke: () => void this.byDigest.delete(key) };
  }

  lookup(token: string | null): T | null {
    if (!token || token.length > MAX_TOKEN_CHARS || !token.startsWith(TOKEN_PREFIX)) return null;
    return this.byDigest.get(digest(token)) ?? null;
  }

  get size(): number {
    return this.byDigest.size;
  }
}

/** `Authorization: Bearer <t>` (OpenAI's clients, Claude Code with an auth token) and `x-api-key: <t>` (Anthropic's clients). */
export function presentedTokens(req: IncomingMessage): string[] {
  const tokens: string[] = [];
  const auth = req.headers.authorization;
  const bearer = typeof auth === "string" ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
  if (bearer) tokens.push(bearer[1]);
  const key = req.headers["x-api-key"];
  if (typeof key === "string" && key.trim()) tokens.push(key.trim());
  return tokens;
}
