// One delivery attempt to a webhook endpoint (issue 19), with the SSRF guard:
// the host is resolved here and every address it has must be public
// (loopback, private, link-local such as cloud metadata, and reserved ranges
// are refused) unless an admin allowed that host and port; the connection goes
// to the address that was checked, so DNS cannot swap it in between. A 307 or
// 308 is followed (at most 3 times), each hop checked the same way; other
// redirects are not (they would turn the POST into a GET). What comes back is
// kept for the delivery log: status, headers, the first KiB of the body, and
// how long it took. Never throws: a refusal or a network error is a result.
import dns from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { isOwnAddress, isPrivateAddress } from "@/server/compute";
import { allowedOnOtherPort, allowedTarget } from "./allow-hosts";

export const DELIVERY_TIMEOUT_MS = 15_000;
export const RESPONSE_BODY_BYTES = 1024;
const MAX_REDIRECTS = 3;

export interface Delivery {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface SendOptions {
  /** Hosts (or addresses) with a port an admin allowed although they are not public; no port: the scheme's default port only. */
  allowHosts?: readonly string[];
  timeoutMs?: number;
  /** Name resolution (tests give a fake one to play DNS tricks). */
  lookup?: (host: string) => Promise<Array<{ address: string; family: number }>>;
}

export interface SendResult {
  /** The response's status, or null when there was none. */
  status: number | null;
  headers: Record<string, string>;
  /** The first KiB of the response body. */
  body: string;
  durationMs: number;
  /** Why there was no response: the guard refused, a timeout, a network error. */
  error?: string;
  /** The guard refused the target: not a failure of the endpoint, a configuration to fix. */
  refused?: boolean;
  /** The URL that answered, after redirects. */
  finalUrl: string;
}

type Target = { ok: true; address: string; family: 4 | 6 } | { ok: false; reason: string };

/** May a delivery go to this URL, and to which address? */
export async function checkTarget(url: URL, options: SendOptions = {}): Promise<Target> {
  if (url.protocol !== "https:" && url.protocol !== "http:") return { ok: false, reason: "only http:// and https:// endpoints are called" };
  if (url.username || url.password) return { ok: false, reason: "an endpoint URL carries no user name or password" };
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const allowed = allowedTarget(url, options.allowHosts ?? []);
  let addresses: Array<{ address: string; family: number }>;
  if (net.isIP(host)) addresses = [{ address: host, family: net.isIPv4(host) ? 4 : 6 }];
  else {
    try {
      addresses = await (options.lookup ?? ((h: string) => dns.lookup(h, { all: true })))(host);
    } catch {
      return { ok: false, reason: `${host} does not resolve` };
    }
  }
  if (addresses.length === 0) return { ok: false, reason: `${host} does not resolve` };
  if (!allowed) {
    // This machine's own LAN, public and IPv6 addresses count as inside too (docs/security.md#channels-that-reach-in-and-out).
    const inside = addresses.find((a) => isPrivateAddress(a.address) || isOwnAddress(a.address));
    if (inside) {
      const other = allowedOnOtherPort(url, options.allowHosts ?? []);
      if (other) return { ok: false, reason: `${host} is allowed on another port only; an admin can allow ${other}` };
      return {
        ok: false,
        reason: `${host} is ${inside.address === host ? "" : `${inside.address}, `}an address of this machine or a private network; an admin can allow the host and port`,
      };
    }
  }
  return { ok: true, address: addresses[0].address, family: addresses[0].family === 6 ? 6 : 4 };
}

function once(
  url: URL,
  target: { address: string; family: 4 | 6 },
  delivery: Delivery,
  timeoutMs: number,
): Promise<{ status: number; headers: Record<string, string>; body: string; location?: string }> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === "https:" ? https : http;
    const req = client.request(
      url,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "Rein-Webhooks/1",
          ...delivery.headers,
          "content-length": Buffer.byteLength(delivery.body),
        },
        // The checked address, whatever DNS says now.
        lookup: (_host, opts, cb) => {
          const done = cb as (err: Error | null, address: string | Array<{ address: string; family: number }>, family?: number) => void;
          if ((opts as { all?: boolean }).all) done(null, [{ address: target.address, family: target.family }]);
          else done(null, target.address, target.family);
        },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          if (size < RESPONSE_BODY_BYTES) chunks.push(c.subarray(0, RESPONSE_BODY_BYTES - size));
          size += c.length;
          if (size > 64 * RESPONSE_BODY_BYTES) res.destroy();
        });
        const done = () => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
          resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString("utf8"), location: res.headers.location });
        };
        res.on("end", done);
        res.on("close", done);
        res.on("error", done);
      },
    );
    req.on("timeout", () =>
      req.destroy(new Error(`no answer within ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`}`)),
    );
    req.on("error", reject);
    req.end(delivery.body);
  });
}

export async function sendWebhook(delivery: Delivery, options: SendOptions = {}): Promise<SendResult> {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = new URL(delivery.url);
  } catch {
    return {
      status: null,
      headers: {},
      body: "",
      durationMs: 0,
      error: "the endpoint URL is not a URL",
      refused: true,
      finalUrl: delivery.url,
    };
  }
  for (let hop = 0; ; hop++) {
    const target = await checkTarget(url, options);
    if (!target.ok)
      return {
        status: null,
        headers: {},
        body: "",
        durationMs: elapsed(),
        error: `Refused: ${target.reason}`,
        refused: true,
        finalUrl: url.href,
      };
    let res;
    try {
      res = await once(url, target, delivery, Math.max(1, timeoutMs - elapsed()));
    } catch (err) {
      return { status: null, headers: {}, body: "", durationMs: elapsed(), error: (err as Error).message, finalUrl: url.href };
    }
    const redirect = (res.status === 307 || res.status === 308) && res.location;
    if (!redirect || hop >= MAX_REDIRECTS) {
      const error =
        res.status >= 300 && res.status < 400
          ? `the endpoint redirected (HTTP ${res.status}); Rein follows only 307 and 308, at most ${MAX_REDIRECTS} times — update its URL`
          : undefined;
      return {
        status: res.status,
        headers: res.headers,
        body: res.body,
        durationMs: elapsed(),
        ...(error ? { error } : {}),
        finalUrl: url.href,
      };
    }
    try {
      url = new URL(res.location!, url);
    } catch {
      return {
        status: res.status,
        headers: res.headers,
        body: res.body,
        durationMs: elapsed(),
        error: "the endpoint redirected to something that is not a URL",
        finalUrl: url.href,
      };
    }
  }
}
