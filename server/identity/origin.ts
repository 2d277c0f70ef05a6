// Cross-site request forgery (docs/security.md#cross-site-requests): a cookie
// travels with any page's request to this host, so a request that carries one
// is taken only from Rein's own pages. "Own" means the same scheme-less host
// and port as the request's Host, or the configured public URL; another port of
// the same host is another site. Requests with a bearer token carry no ambient
// authority and are not checked.
import type { IncomingMessage } from "node:http";

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export function isStateChanging(method: string | undefined): boolean {
  return STATE_CHANGING.has((method ?? "GET").toUpperCase());
}

/** Sent with a bearer token: a program, not a browser riding on a cookie. */
export function usesBearer(req: Pick<IncomingMessage, "headers">): boolean {
  return /^Bearer\s+\S/i.test(req.headers.authorization ?? "");
}

/** Is this origin (scheme://host[:port]) Rein's own? */
export function isOwnOrigin(origin: string, req: Pick<IncomingMessage, "headers">, publicUrl?: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  if (url.host === req.headers.host) return true;
  try {
    return !!publicUrl && new URL(publicUrl).origin === url.origin;
  } catch {
    return false;
  }
}

/**
 * For a websocket or socket.io handshake: a browser always names the page's
 * origin there, which must be Rein's; a program may send none.
 */
export function sameOriginOrNone(req: Pick<IncomingMessage, "headers">, publicUrl?: string): boolean {
  const origin = req.headers.origin;
  return origin === undefined || isOwnOrigin(origin, req, publicUrl);
}

/**
 * Why a state-changing request must be refused, or null. It must come from
 * Rein's own pages (Origin, or Referer when a browser sends no Origin) unless
 * it is authenticated by a bearer token.
 */
export function forgeryRefusal(req: Pick<IncomingMessage, "headers" | "method">, publicUrl?: string): string | null {
  if (!isStateChanging(req.method) || usesBearer(req)) return null;
  const origin = req.headers.origin;
  if (origin !== undefined) {
    return isOwnOrigin(origin, req, publicUrl)
      ? null
      : `This request came from another site (${origin === "null" ? "an opaque origin" : origin}); Rein takes changes only from its own pages or with an API token`;
  }
  const referer = req.headers.referer;
  if (referer !== undefined) {
    let refererOrigin: string;
    try {
      refererOrigin = new URL(referer).origin;
    } catch {
      return "This request's Referer is not a URL; Rein takes changes only from its own pages or with an API token";
    }
    return isOwnOrigin(refererOrigin, req, publicUrl)
      ? null
      : "This request came from another site; Rein takes changes only from its own pages or with an API token";
  }
  return "This request names no Origin; send it from Rein's pages, or authenticate with an API token (Authorization: Bearer …)";
}

/** JSON APIs take only JSON bodies: a form or text/plain body (what a foreign page can send without asking) is refused. */
export function nonJsonBody(req: Pick<IncomingMessage, "headers" | "method">): string | null {
  if (!isStateChanging(req.method)) return null;
  const length = Number(req.headers["content-length"] ?? 0);
  const hasBody = length > 0 || req.headers["transfer-encoding"] !== undefined;
  if (!hasBody) return null;
  const type = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  if (type === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(type)) return null;
  return `The body must be JSON, sent with Content-Type: application/json${type ? ` (it was ${type})` : ""}`;
}

/**
 * The origin invitation and reset links point at: the configured public URL,
 * else the page's own origin (a state-changing request carries it, and it was
 * checked to be Rein's), else this request's host.
 */
export function requestOrigin(req: Pick<IncomingMessage, "headers" | "socket">, publicUrl?: string): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, "");
  const origin = req.headers.origin;
  if (origin && isOwnOrigin(origin, req)) return origin;
  const tls = (req.socket as { encrypted?: boolean }).encrypted;
  return `${tls ? "https" : "http"}://${req.headers.host ?? "localhost"}`;
}

/**
 * Headers that forbid any page from framing Rein's answers (clickjacking):
 * a click in a frame is a click on Rein's own page, so the cross-site checks
 * above cannot tell it apart, and another port of the same host gets the
 * session cookie into its frame. See docs/security.md#cross-site-requests.
 */
export const NO_FRAMING: Readonly<Record<string, string>> = {
  "x-frame-options": "DENY",
  "content-security-policy": "frame-ancestors 'none'",
};
