// A desktop on another process (several machines). The run's desktop lives on
// the worker executing it, with its VNC server on that worker's 127.0.0.1; the
// browser is connected to any web process. The web process asks the worker
// for the desktop over an HTTP upgrade (`Upgrade: rein-vnc`); the worker logs
// in to the VNC server with its password (which never leaves the worker),
// answers 101, sends the server's ServerInit framed by its length, and then
// relays bytes both ways. The web process's proxy goes on as with a local
// desktop: it greets the browser and filters what the browser sends.
import http from "node:http";
import https from "node:https";
import type net from "node:net";
import type { Duplex } from "node:stream";
import { ByteQueue, VncHandshakeError, type VncSession } from "./handshake";

export const TUNNEL_PROTOCOL = "rein-vnc";
const TIMEOUT_MS = 10_000;
/** A ServerInit is 24 bytes and the desktop's name. */
const MAX_SERVER_INIT = 24 + 4096;

/** The worker's side, once the request is admitted: logs in to the desktop, then relays until either side closes. */
export async function serveVncTunnel(socket: Duplex, open: () => Promise<VncSession>): Promise<void> {
  socket.on("error", () => {});
  let session: VncSession;
  try {
    session = await open();
  } catch (err) {
    return refuseTunnel(socket, 502, `Could not connect to the desktop: ${(err as Error).message}`);
  }
  if (socket.destroyed) return void session.socket.destroy();
  const length = Buffer.alloc(4);
  length.writeUInt32BE(session.serverInit.length);
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${TUNNEL_PROTOCOL}\r\n\r\n`);
  socket.write(Buffer.concat([length, session.serverInit, session.rest]));
  const vnc = session.socket;
  const end = () => {
    socket.destroy();
    vnc.destroy();
  };
  vnc.on("close", end);
  socket.on("close", end);
  // pipe() keeps each side's backpressure: a slow web process slows the VNC server, not memory.
  vnc.pipe(socket);
  socket.pipe(vnc);
  vnc.resume();
}

export function refuseTunnel(socket: Duplex, status: number, message: string) {
  if (!socket.writable) return void socket.destroy();
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ""}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The web process's side: asks the worker at `url` for the desktop and
 * returns a session as connectVnc does, its socket the tunnel.
 */
export function openVncTunnel(opts: { url: string; authorization: string; timeoutMs?: number }): Promise<VncSession> {
  const url = new URL(opts.url);
  const client = url.protocol === "https:" ? https : http;
  return new Promise<VncSession>((resolve, reject) => {
    const req = client.request(url, {
      method: "GET",
      headers: { connection: "Upgrade", upgrade: TUNNEL_PROTOCOL, authorization: opts.authorization },
      timeout: opts.timeoutMs ?? TIMEOUT_MS,
    });
    const failed = (message: string) => {
      req.destroy();
      reject(new VncHandshakeError(message));
    };
    req.on("timeout", () => failed("the run's worker did not answer in time"));
    req.on("error", (err) => failed(`the run's worker is not reachable: ${err.message}`));
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (body.length < 4096) body += chunk;
      });
      res.on("end", () => {
        let said = body.slice(0, 300);
        try {
          said = (JSON.parse(body) as { error?: string }).error ?? said;
        } catch {
          /* not JSON: the text as it came */
        }
        failed(`the run's worker refused the desktop (HTTP ${res.statusCode}): ${said}`);
      });
    });
    req.on("upgrade", (_res, socket, head) => {
      socket.setTimeout(0);
      const queue = new ByteQueue();
      if (head.length) queue.push(head);
      const onData = (chunk: Buffer) => queue.push(chunk);
      const onClose = () => queue.fail(new VncHandshakeError("the run's worker closed the desktop's connection during the handshake"));
      socket.on("data", onData);
      socket.on("close", onClose);
      socket.on("error", onClose);
      const timer = setTimeout(
        () => queue.fail(new VncHandshakeError("the run's worker did not finish the handshake in time")),
        opts.timeoutMs ?? TIMEOUT_MS,
      );
      void (async () => {
        const length = (await queue.read(4)).readUInt32BE(0);
        if (length < 24 || length > MAX_SERVER_INIT) throw new VncHandshakeError("the run's worker sent a malformed ServerInit");
        const serverInit = await queue.read(length);
        return serverInit;
      })().then(
        (serverInit) => {
          clearTimeout(timer);
          socket.off("data", onData);
          socket.off("close", onClose);
          socket.off("error", onClose);
          // Until the relay takes over, data waits in the socket (the relay resumes it).
          socket.pause();
          socket.on("error", () => {});
          resolve({
            socket: socket as net.Socket,
            serverInit,
            width: serverInit.readUInt16BE(0),
            height: serverInit.readUInt16BE(2),
            rest: queue.drain(),
          });
        },
        (err: Error) => {
          clearTimeout(timer);
          socket.destroy();
          reject(err instanceof VncHandshakeError ? err : new VncHandshakeError(err.message));
        },
      );
    });
    req.end();
  });
}
