// The MCP transport's rule against DNS rebinding: a request that names an
// Origin (a browser's) must come from Rein's own origin. A program such as an
// MCP client in a terminal names none and is judged by its token alone.
import type { IncomingMessage } from "node:http";
import { isOwnOrigin } from "@/server/identity";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

function originOf(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/**
 * Why a request must be refused for its Origin, or null. isOwnOrigin trusts
 * an Origin that names the request's Host, and under DNS rebinding an
 * attacker's host name points at this machine, Host and Origin agreeing. So
 * a same-host Origin counts only for a loopback name; any other host must be
 * Rein's public URL.
 */
export function originRefusal(req: Pick<IncomingMessage, "headers">, publicUrl?: string): string | null {
  const origin = req.headers.origin;
  if (origin === undefined) return null;
  const named = origin === "null" ? "an opaque origin" : origin;
  const refusal = `This request came from a page at ${named}; Rein's MCP endpoint takes requests from programs with an API token, not from other sites`;
  const url = originOf(origin);
  if (!url || !isOwnOrigin(origin, req, publicUrl)) return refusal;
  const publicOrigin = publicUrl ? originOf(publicUrl)?.origin : undefined;
  if (url.origin === publicOrigin || LOOPBACK.has(url.hostname)) return null;
  return refusal;
}
