// The fetch the OAuth exchanges use (docs/mcp.md#oauth): an MCP server names
// its authorization server, so every address here comes from outside. The
// admin chose the MCP server's host; any other host must resolve to public
// addresses only (not this machine, a private network or cloud metadata), and
// the connection goes to the address that was checked, so a name that
// resolves differently a moment later changes nothing. Each request gives up
// after 15 s, follows no redirect (metadata, registration and token answers
// never need one), and reads at most 256 KiB of an answer.
import dns from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { isOwnAddress, isPrivateAddress } from "@/server/compute";

const TIMEOUT_MS = 15_000;
export const MAX_OAUTH_ANSWER_BYTES = 256 * 1024;

export class OAuthTargetRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OAuthTargetRefused";
  }
}

type Lookup = (host: string) => Promise<Array<{ address: string; family: number }>>;

/** The address to connect to: the host's own when the admin chose it, otherwise a public one. */
async function addressOf(url: URL, ownHost: string, lookup: Lookup): Promise<{ address: string; family: number }> {
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new OAuthTargetRefused(`Rein calls only http and https addresses, not ${url.protocol}`);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = net.isIP(host) ? [{ address: host, family: net.isIPv6(host) ? 6 : 4 }] : await lookup(host).catch(() => []);
  if (!addresses.length) throw new OAuthTargetRefused(`${host} does not resolve`);
  if (url.hostname === ownHost) return addresses[0];
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
          const answer = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (typeof value === "string") answer.set(name, value);
            else if (Array.isArray(value)) value.forEach((v) => answer.append(name, v));
          }
          const status = res.statusCode ?? 502;
          const nullBody = status === 204 || status === 304 || (status >= 100 && status < 200);
          resolve(new Response(nullBody ? null : Buffer.concat(chunks).toString("utf8"), { status, headers: answer }));
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** The fetch for the OAuth exchanges of the MCP server at `serverUrl`. */
export function oauthFetchFor(serverUrl: string, lookup: Lookup = (h) => dns.lookup(h, { all: true })) {
  const ownHost = new URL(serverUrl).hostname;
  return async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input));
    return request(url, await addressOf(url, ownHost, lookup), init);
  };
}
