import type { IncomingMessage } from "node:http";
import { getToken } from "next-auth/jwt";
import type { Db } from "@/server/db";
import { authenticateToken, bearerFrom } from "./tokens";
import { loadActor } from "./users";
import type { Actor } from "./types";

/**
 * Who sent this request: an API token ("Authorization: Bearer rein_...") or an
 * Auth.js session cookie. The role is read fresh from the database every time.
 */
export async function authenticateRequest(
  db: Db,
  req: Pick<IncomingMessage, "headers">,
  authSecret: string,
): Promise<Actor | null> {
  const bearer = bearerFrom(req.headers.authorization);
  if (bearer) return authenticateToken(db, bearer);
  const jwt = await getToken({ req: req as never, secret: authSecret, logger: silentLogger } as never);
  const userId = typeof jwt?.sub === "string" ? jwt.sub : null;
  if (!userId) return null;
  return loadActor(db, userId);
}

const silentLogger = { error() {}, warn() {}, debug() {} };
