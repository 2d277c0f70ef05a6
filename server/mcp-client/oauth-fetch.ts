// The fetch the OAuth exchanges use (docs/mcp.md#oauth): an MCP server names
// its authorization server, so every address here comes from outside. Any
// origin but the MCP server's own must resolve to public addresses only (not
// this machine, a private network or cloud metadata). The admin chose the MCP
// server's origin (scheme, host and port), so it may be on a private network;
// but a name there that now resolves to this machine or to link-local
// addresses (cloud metadata) is refused unless the admin named this machine
// themselves. The connection goes to the address that was checked, so a name
// that resolves differently a moment later changes nothing. Each request gives
// up after 15 s, follows no redirect itself, and reads at most 256 KiB.
import dns from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { isOwnAddress, isPrivateAddress } from "@/server/compute";

/** Loopback, unspecified and link-local (cloud metadata) addresses, in IPv4, IPv6 and IPv4-mapped IPv6. */
const NEVER_BY_NAME = new net.BlockList();
NEVER_BY_NAME.addSubnet("127.0.0.0", 8, "ipv4");
NEVER_BY_NAME.addSubnet("0.0.0.0", 8, "ipv4");
NEVER_BY_NAME.addSubnet("169.254.0.0", 16, "ipv4");
NEVER_BY_NAME.addAddress("::1", "ipv6");
NEVER_BY_NAME.addAddress("::", "ipv6");
NEVER_BY_NAME.addSubnet("fe80::", 10, "ipv6");

function mappedIpv4(ip: string): string | null {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? m[1] : null;
}

/** This machine, or a link-local address: what a name on the admin's own origin may not turn into. */
function isThisMachineOrLinkLocal(ip: string): boolean {
  const v4 = net.isIPv4(ip) ? ip : mappedIpv4(ip);
  if (v4) return NEVER_BY_NAME.check(v4, "ipv4") || isOwnAddress(v4);
  return NEVER_BY_NAME.check(ip, "ipv6") || isOwnAddress(ip);
}

const isLoopbackName = (host: string) => host === "localhost" || host.endsWith(".localhost");

const TIMEOUT_MS = 15_000;
export const MAX_OAUTH_ANSWER_BYTES = 256 * 1024;

export class OAuthTargetRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OAuthTargetRefused";
  }
}

type Lookup = (host: string) => Promise<Array<{ address: string; family: number }>>;

/** The address to connect to: on the admin's own origin, a private one may do; anywhere else, only a public one. */
async function addressOf(url: URL, allowed: Allowed, lookup: Lookup): Promise<{ address: string; family: number }> {
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new OAuthTargetRefused(`Rein calls only http and https addresses, not ${url.protocol}`);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const literal = net.isIP(host) !== 0;
  const addresses = literal ? [{ address: host, family: net.isIPv6(host) ? 6 : 4 }] : await lookup(host).catch(() => []);
  if (!addresses.length) throw new OAuthTargetRefused(`${host} does not resolve`);
  if (allowed.origins.includes(url.origin)) {
    // The admin named this address, or this machine by name: as they gave it.
    if (literal || isLoopbackName(host)) return addresses[0];
    const inside = addresses.find((a) => isThisMachineOrLinkLocal(a.address));
    if (inside)
      throw new OAuthTargetRefused(
        `${host} now resolves to ${inside.address}, this machine or a link-local address; Rein does not call it`,
      );
    return addresses[0];
  }
  if (allowed.only)
    throw new OAuthTargetRefused(`Rein talks only to the authorization server an admin named for this server, not to ${url.origin}`);
  const inside = addresses.find((a) => isPrivateAddress(a.address) || isOwnAddress(a.address));
  if (inside)
    throw new OAuthTargetRefused(
      `Rein does not call ${url.host} for this server's authorization: it is ${inside.address}, an address of this machine or a private network`,
    );
  return addresses[0];
}

function bodyOf(init?: RequestInit): string | undefined {
  const body = init?.body;
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return body;
  if (body instanceof URLSearchParams) return body.toString();
  throw new OAuthTargetRefused("an OAuth request body Rein does not send");
}

/** One request to the checked address, its answer read up to the bound. */
function request(url: URL, to: { address: string; family: number }, init?: RequestInit): Promise<Response> {
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, key) => (headers[key] = value));
  const body = bodyOf(init);
  if (body !== undefined && !headers["content-length"]) headers["content-length"] = String(Buffer.byteLength(body));
  return new Promise<Response>((resolve, reject) => {
    const signal = init?.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(TIMEOUT_MS)]) : AbortSignal.timeout(TIMEOUT_MS);
    const req = (url.protocol === "https:" ? https : http).request(
      url,
      {
        method: init?.method ?? "GET",
        headers,
        signal,
        // The address checked above, whatever the name resolves to now.
        lookup: (_host, options, callback) =>
          (options as { all?: boolean }).all
            ? (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [to])
            : callback(null, to.address, to.family),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_OAUTH_ANSWER_BYTES) {
            req.destroy(new OAuthTargetRefused(`the answer from ${url.origin} was over ${MAX_OAUTH_ANSWER_BYTES / 1024} KiB`));
            return;
          }
          chunks.push(chunk);
        });
        res.on("error", reject);
        res.on("end", () => {
          try {
            resolve(responseOf(res, Buffer.concat(chunks).toString("utf8"), url));
          } catch (err) {
            reject(err);
          }
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** What the server answered, as a fetch Response; a status no HTTP server sends is refused, not thrown out of an event. */
function responseOf(res: http.IncomingMessage, body: string, url: URL): Response {
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) throw new OAuthTargetRefused(`${url.origin} answered with HTTP status ${status}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    try {
      if (typeof value === "string") headers.set(name, value);
      else if (Array.isArray(value)) value.forEach((v) => headers.append(name, v));
    } catch {
      // a header fetch cannot carry: left out
    }
  }
  const nullBody = status === 204 || status === 205 || status === 304;
  return new Response(nullBody ? null : body, { status, headers });
}

/** The origins an admin chose, and whether they are the only ones. */
interface Allowed {
  origins: string[];
  only: boolean;
}

/**
 * The fetch for the OAuth exchanges of the MCP server at `serverUrl`; with
 * `authorizationServer` (an admin's choice) no origin but those two is called.
 */
export function oauthFetchFor(serverUrl: string, authorizationServer?: string, lookup: Lookup = (h) => dns.lookup(h, { all: true })) {
  const allowed: Allowed = {
    origins: [new URL(serverUrl).origin, ...(authorizationServer ? [new URL(authorizationServer).origin] : [])],
    only: !!authorizationServer,
  };
  return async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input));
    return request(url, await addressOf(url, allowed, lookup), init);
  };
}
