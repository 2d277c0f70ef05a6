// A webhook receiver written from the Standard Webhooks specification, not
// from Rein's code, so Rein's signatures are checked by someone else's
// reading of the spec: strip `whsec_`, base64-decode the key, HMAC-SHA256 of
// "<webhook-id>.<webhook-timestamp>.<raw body>", base64, compare with every
// space-separated `v1,` entry of webhook-signature; refuse a timestamp more
// than five minutes away. It records what arrived and answers as told.
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  id: string;
  timestamp: number;
  body: string;
  headers: http.IncomingHttpHeaders;
  /** The signature checked out against the receiver's secret. */
  verified: boolean;
}

export function specVerify(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  nowSec = Math.floor(Date.now() / 1000),
): boolean {
  const id = String(headers["webhook-id"] ?? "");
  const ts = String(headers["webhook-timestamp"] ?? "");
  const sig = String(headers["webhook-signature"] ?? "");
  if (!id || !/^\d+$/.test(ts) || Math.abs(nowSec - Number(ts)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = crypto.createHmac("sha256", key).update(`${id}.${ts}.${body}`).digest("base64");
  return sig.split(" ").some((part) => {
    const [version, value] = part.split(",", 2);
    return (
      version === "v1" &&
      value !== undefined &&
      value.length === expected.length &&
      crypto.timingSafeEqual(Buffer.from(value), Buffer.from(expected))
    );
  });
}

export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** What the next requests are answered with (status, headers); default 200. "hang" never answers. */
  answer(status: number | "hang", headers?: Record<string, string>): void;
  /** The secret deliveries are verified with from now on (Rein shows it when the endpoint is added). */
  useSecret(secret: string): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(secret = ""): Promise<WebhookReceiver> {
  const received: Received[] = [];
  let reply: { status: number | "hang"; headers: Record<string, string> } = { status: 200, headers: {} };
  let current = secret;
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({
        id: String(req.headers["webhook-id"]),
        timestamp: Number(req.headers["webhook-timestamp"]),
        body,
        headers: req.headers,
        verified: !!current && specVerify(current, req.headers, body),
      });
      if (reply.status === "hang") {
        hanging.add(res);
        return;
      }
      res.writeHead(reply.status, { "content-type": "text/plain", ...reply.headers });
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    answer(status, headers = {}) {
      reply = { status, headers };
    },
    useSecret(s) {
      current = s;
    },
    close: () =>
      new Promise((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
