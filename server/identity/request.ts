import type { IncomingMessage } from "node:http";
import { getToken } from "next-auth/jwt";
import type { Db } from "@/server/db";
import { authenticateToken, bearerFrom } from "./tokens";
import { loadActor } from "./users";
import type { Actor } from "./types";

/**
 * Who sent this request: an API token ("Authorization: Bearer rein_...") or an
 * Auth.js session cookie. The role is read fresh from the database every time,
 * and a cookie minted before the person's sessions were ended (disabled,
 * password reset: User.sessionVersion raised) is refused.
 */
export async function authenticateRequest(db: Db, req: Pick<IncomingMessage, "headers">, authSecret: string): Promise<Actor | null> {
  const bearer = bearerFrom(req.headers.authorization);
  if (bearer) return authenticateToken(db, bearer);
  // getToken reads `req.cookies`, which a plain Node request does not have.
  const cookies = parseCookies(req.headers.cookie);
  const jwt = await getToken({ req: { headers: req.headers, cookies } as never, secret: authSecret, logger: silentLogger } as never);
  const userId = typeof jwt?.sub === "string" ? jwt.sub : null;
  if (!userId) return null;
  return loadActor(db, userId, { sessionVersion: sessionVersionOf(jwt), seen: true });
}

/** The session's "sv" claim; a cookie from before session versions existed counts as version 0. */
export function sessionVersionOf(jwt: Record<string, unknown> | null): number {
  const sv = jwt?.sv;
  return typeof sv === "number" && Number.isInteger(sv) ? sv : 0;
}

const silentLogger = { error() {}, warn() {}, debug() {} };

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? "").split(";").map((p) => p.trim())) {
    const eq = part.indexOf("=");
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    const raw = part.slice(eq + 1).trim();
    try {
      out[name] = decodeURIComponent(raw);
    } catch {
      out[name] = raw;
    }
  }
  return out;
}
