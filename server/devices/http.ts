// The device's endpoints on Rein's port (docs/devices.md#pairing): the
// unauthenticated POST /api/devices/pair (a pairing code is its only
// authority; bounded, validated, rate-limited per client address), the agent's
// npm tarball, and the device socket's upgrade.
import fs from "node:fs";
import path from "node:path";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { Db } from "@/server/db";
import { DomainError, httpErrorBody, invalidInput } from "@/server/errors";
import { sameOriginOrNone } from "@/server/identity";
import { RateLimiter } from "@/server/limits";
import { DEVICE_AGENT_PATH, DEVICE_PAIR_PATH, DEVICE_SOCKET_PATH } from "@/lib/device-protocol";
import type { DeviceHub } from "./hub";
import { pairDevice } from "./pairing";
import { PairBody } from "./schemas";

/** A pairing request's body is a code, a name and capabilities: a few hundred bytes. */
const MAX_PAIR_BODY = 16 * 1024;
/** Where `npm run build` puts the agent's tarball (scripts/build.sh). */
export const AGENT_TARBALL = path.join("dist", "device", "rein-device.tgz");

export interface PairEndpointDeps {
  db: Db;
  /** Pairing attempts per second per client address (default 1, in a burst of 1). */
  pairsPerSecond?: number;
}

const pathOf = (url: string | undefined) => (url ?? "/").split("?")[0];

export const isDevicePath = (url: string | undefined): boolean => {
  const p = pathOf(url);
  return p === DEVICE_PAIR_PATH || p === DEVICE_AGENT_PATH;
};

function answer(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers });
  res.end(JSON.stringify(body));
}

function refuse(res: ServerResponse, err: DomainError, headers: Record<string, string> = {}) {
  const { status, body } = httpErrorBody(err);
  answer(res, status, body, { connection: "close", ...headers });
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const tooLarge = new DomainError("PAYLOAD_TOO_LARGE", `A pairing request has at most ${MAX_PAIR_BODY} bytes`);
  if (Number(req.headers["content-length"] ?? 0) > MAX_PAIR_BODY) throw tooLarge;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_PAIR_BODY) throw tooLarge;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new DomainError("INVALID_JSON", "The body is not JSON: send {code, name, capabilities}");
  }
}

/** The handler of POST /api/devices/pair and GET /api/devices/agent.tgz. */
export function createDeviceEndpoints(deps: PairEndpointDeps) {
  const rate = deps.pairsPerSecond ?? 1;
  let limiter = new RateLimiter(() => rate);
  let limiterSince = Date.now();
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // The limiter keeps a bucket per address: started afresh every 10 minutes, so many addresses do not pile up.
    if (Date.now() - limiterSince > 10 * 60_000) {
      limiter = new RateLimiter(() => rate);
      limiterSince = Date.now();
    }
    const p = pathOf(req.url);
    if (p === DEVICE_AGENT_PATH) return serveAgentTarball(req, res);
    if (req.method !== "POST") return refuse(res, new DomainError("METHOD_NOT_ALLOWED", "Pair with POST"), { allow: "POST" });
    // The socket's address, never what the client claims; a token is taken only if one is left now.
    const address = req.socket.remoteAddress ?? "unknown";
    const admitted = await limiter.acquire(address, AbortSignal.timeout(5)).then(
      () => true,
      () => false,
    );
    if (!admitted)
      return refuse(res, new DomainError("RATE_LIMITED", "Too many pairing attempts from this address: wait a few seconds"), {
        "retry-after": "5",
      });
    try {
      if (!/^application\/json\b/i.test(req.headers["content-type"] ?? ""))
        throw new DomainError("UNSUPPORTED_MEDIA_TYPE", "Send the pairing request as application/json");
      const parsed = PairBody.safeParse(await readBody(req));
      if (!parsed.success) throw invalidInput(parsed.error);
      answer(res, 201, await pairDevice(deps.db, parsed.data));
    } catch (err) {
      if (err instanceof DomainError) return refuse(res, err);
      throw err;
    }
  };
}

function serveAgentTarball(req: IncomingMessage, res: ServerResponse) {
  if (req.method !== "GET" && req.method !== "HEAD") return refuse(res, new DomainError("METHOD_NOT_ALLOWED", "Download with GET"));
  let size: number;
  try {
    size = fs.statSync(AGENT_TARBALL).size;
  } catch {
    return refuse(res, new DomainError("NOT_FOUND", "This Rein has no device agent built: its admin runs npm run build"));
  }
  res.writeHead(200, {
    "content-type": "application/octet-stream",
    "content-length": String(size),
    "content-disposition": 'attachment; filename="rein-device.tgz"',
    "cache-control": "no-cache",
  });
  if (req.method === "HEAD") return void res.end();
  fs.createReadStream(AGENT_TARBALL).pipe(res);
}

/**
 * Routes upgrades of the device socket's path to the hub; other paths are
 * left to their owners (socket.io, the VNC proxy). A device sends no Origin;
 * a page of another site that tries is refused before the socket opens.
 */
export function attachDeviceSocket(server: Server, hub: DeviceHub, opts: { publicUrl?: string } = {}): () => void {
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (pathOf(req.url) !== DEVICE_SOCKET_PATH) return;
    if (!sameOriginOrNone(req, opts.publicUrl)) {
      socket.on("error", () => {});
      socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    hub.handleUpgrade(req, socket, head);
  };
  server.on("upgrade", onUpgrade);
  return () => void server.off("upgrade", onUpgrade);
}
