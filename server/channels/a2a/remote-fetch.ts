// The fetch the A2A client uses to reach a remote agent
// (docs/a2a.md#remote-agents), with the webhooks' SSRF guard: each request's
// host is resolved and must be public, unless the admin said the agent lives
// on a private network (then only its own host and port are let through); the
// connection goes to the address that was checked, redirects are not
// followed, and an answer is read up to a bound.
import http from "node:http";
import https from "node:https";
import { checkTarget } from "../webhooks";

export const REMOTE_ANSWER_BYTES = 1024 * 1024;

export interface GuardOptions {
  /** host:port entries allowed although they are private (the remote's own, when it is on a private network). */
  allowHosts: string[];
  timeoutMs: number;
  /** Name resolution (tests give a fake one). */
  lookup?: (host: string) => Promise<Array<{ address: string; family: number }>>;
}

export class RemoteRefusal extends Error {}

function headersOf(init: RequestInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, key) => (out[key] = value));
  return out;
}

export function guardedFetch(opts: GuardOptions): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const target = await checkTarget(url, { allowHosts: opts.allowHosts, lookup: opts.lookup });
    if (!target.ok) throw new RemoteRefusal(`Rein does not call ${url.host}: ${target.reason}`);
    const body = typeof init?.body === "string" ? init.body : undefined;
    return new Promise<Response>((resolve, reject) => {
      const client = url.protocol === "https:" ? https : http;
      const req = client.request(
        url,
        {
          method: init?.method ?? "GET",
          headers: { ...headersOf(init), ...(body !== undefined ? { "content-length": String(Buffer.byteLength(body)) } : {}) },
          // The checked address, whatever DNS says now.
          lookup: (_host, lookupOpts, cb) => {
            const done = cb as (err: Error | null, address: string | Array<{ address: string; family: number }>, family?: number) => void;
            if ((lookupOpts as { all?: boolean }).all) done(null, [{ address: target.address, family: target.family }]);
            else done(null, target.address, target.family);
          },
          timeout: opts.timeoutMs,
          signal: init?.signal ?? undefined,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (c: Buffer) => {
            size += c.length;
            if (size > REMOTE_ANSWER_BYTES) return res.destroy(new RemoteRefusal(`the answer is larger than ${REMOTE_ANSWER_BYTES} bytes`));
            chunks.push(c);
          });
          res.on("error", reject);
          res.on("end", () => {
            const headers = new Headers();
            for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
            const status = res.statusCode ?? 502;
            resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers }));
          });
        },
      );
      req.on("timeout", () => req.destroy(new RemoteRefusal(`no answer within ${Math.round(opts.timeoutMs / 1000)} s`)));
      req.on("error", reject);
      req.end(body);
    });
  };
}
