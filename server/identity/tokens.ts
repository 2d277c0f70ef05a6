// API tokens for programs. Only a SHA-256 hash is stored; the token is shown once.
import crypto from "node:crypto";
import type { Db } from "@/server/db";
import type { Actor } from "./types";
import { loadActor } from "./users";

const TOKEN_PREFIX = "rein_";

export function hashToken(token: string): string {
  return crypto.createHash("sha256").update(token).digest("hex");
}

export interface CreatedToken {
  id: string;
  name: string;
  token: string;
  prefix: string;
  expiresAt: Date | null;
}

export async function createApiToken(db: Db, input: { userId: string; name: string; expiresInDays?: number }): Promise<CreatedToken> {
  const token = TOKEN_PREFIX + crypto.randomBytes(32).toString("base64url");
  const prefix = token.slice(0, TOKEN_PREFIX.length + 6);
  const expiresAt = input.expiresInDays ? new Date(Date.now() + input.expiresInDays * 86_400_000) : null;
  const row = await db.apiToken.create({
    data: { userId: input.userId, name: input.name, prefix, tokenHash: hashToken(token), expiresAt },
    select: { id: true },
  });
  return { id: row.id, name: input.name, token, prefix, expiresAt };
}

export async function listApiTokens(db: Db, userId: string) {
  return db.apiToken.findMany({
    where: { userId },
    select: { id: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, expiresAt: true, revokedAt: true },
    orderBy: { createdAt: "desc" },
  });
}

export async function revokeApiToken(db: Db, userId: string, id: string): Promise<boolean> {
  const res = await db.apiToken.updateMany({ where: { id, userId, revokedAt: null }, data: { revokedAt: new Date() } });
  return res.count === 1;
}

/** Resolves a bearer token to its actor; null for unknown, revoked or expired tokens. */
export async function authenticateToken(db: Db, token: string): Promise<Actor | null> {
  if (!token.startsWith(TOKEN_PREFIX)) return null;
  const row = await db.apiToken.findUnique({
    where: { tokenHash: hashToken(token) },
    select: { id: true, userId: true, revokedAt: true, expiresAt: true, lastUsedAt: true },
  });
  if (!row || row.revokedAt || (row.expiresAt && row.expiresAt.getTime() <= Date.now())) return null;
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > 60_000) {
    await db.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: new Date() } });
  }
  const actor = await loadActor(db, row.userId, { seen: true });
  return actor ? { ...actor, via: "token" } : null;
}

/** Reads "Authorization: Bearer <token>". */
export function bearerFrom(header: string | string[] | undefined): string | null {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value?.match(/^Bearer\s+(\S+)$/i);
  return match ? match[1] : null;
}
