// Rein's OAuth callback (docs/mcp.md#oauth): the authorization server sends
// the admin's browser here with a code and the state Rein made. A top-level
// GET from another site, so no Origin check applies; what makes it safe is the
// state, which only the session that pressed Authorize can finish, once,
// within 10 minutes. The browser ends on the server's page, which says how it
// went; a callback Rein cannot place gets a short page in words.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Db } from "@/server/db";
import { DomainError, ERROR_TABLE } from "@/server/errors";
import { authenticateRequest, type Actor } from "@/server/identity";
import { OAUTH_CALLBACK_PATH, type OAuthCallback, type OAuthOutcome } from "./oauth";

export function isOAuthCallbackPath(url: string): boolean {
  return url === OAUTH_CALLBACK_PATH || url.startsWith(`${OAUTH_CALLBACK_PATH}?`);
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(res: ServerResponse, status: number, message: string) {
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
    "referrer-policy": "no-referrer",
  });
  res.end(
    `<!doctype html><meta charset="utf-8"><title>Rein · MCP authorization</title>` +
      `<main style="font:16px system-ui;max-width:40em;margin:4em auto"><h1>The authorization did not finish</h1>` +
      `<p data-testid="oauth-callback-error">${escapeHtml(message)}</p><p><a href="/settings/mcp">Back to Settings › MCP servers</a></p></main>`,
  );
}

/** One value of the query: the first, bounded; a repeated or huge parameter is not an answer Rein takes. */
function param(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length !== 1) return undefined;
  return values[0].slice(0, 4096);
}

export async function handleOAuthCallback(
  req: IncomingMessage,
  res: ServerResponse,
  deps: { db: Db; authSecret: string; finish: (actor: Actor, query: OAuthCallback) => Promise<OAuthOutcome> },
): Promise<void> {
  if (req.method !== "GET") {
    res.writeHead(405, { allow: "GET" });
    return void res.end();
  }
  const url = new URL(req.url ?? "/", "http://rein.invalid");
  const actor = await authenticateRequest(deps.db, req, deps.authSecret);
  if (!actor) {
    // Logged out meanwhile: log in and come back to the same answer (it is still within its 10 minutes).
    res.writeHead(302, { location: `/login?next=${encodeURIComponent(url.pathname + url.search)}` });
    return void res.end();
  }
  const q = url.searchParams;
  const query: OAuthCallback = {};
  for (const name of ["state", "code", "iss", "error", "error_description"] as const) {
    const value = param(q, name);
    if (value !== undefined) query[name] = value;
  }
  try {
    const outcome = await deps.finish(actor, query);
    const to = `/settings/mcp/${encodeURIComponent(outcome.server)}?oauth=${outcome.ok ? "authorized" : "failed"}`;
    res.writeHead(303, { location: to, "cache-control": "no-store", "referrer-policy": "no-referrer" });
    res.end();
  } catch (err) {
    if (err instanceof DomainError) return page(res, ERROR_TABLE[err.code].status, err.message);
    throw err;
  }
}
