// The desktop browser's only way out (docs/security.md#network): an HTTP proxy on a
// unix socket of Rein's, reached from inside the browser's own network
// namespace (which has nothing but its loopback), deciding every connection
// with the egress policy. Plain HTTP is forwarded request by request; HTTPS
// and websockets go through CONNECT tunnels to the checked address.
import http from "node:http";
import net from "node:net";
import fs from "node:fs";
import { decideEgress } from "./policy";

export interface EgressProxy {
  socketPath: string;
  close(): Promise<void>;
}

function refusePage(reason: string): string {
  const safe = reason.replace(/[<>&"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" })[c]!);
  return `<!doctype html><title>Blocked by Rein</title><h1>Blocked by Rein</h1><p>${safe}.</p>`;
}

export async function startEgressProxy(socketPath: string, log?: { error(m: string, e?: unknown): void }): Promise<EgressProxy> {
  fs.rmSync(socketPath, { force: true });
  const server = http.createServer((req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? "");
      if (url.protocol !== "http:") throw new Error("not http");
    } catch {
      res.writeHead(400, { "content-type": "text/plain" });
      return res.end("Rein's egress proxy takes absolute http:// URLs");
    }
    const port = Number(url.port || 80);
    void decideEgress(url.hostname, port, url.pathname).then((decision) => {
      if (!decision.ok) {
        res.writeHead(403, { "content-type": "text/html; charset=utf-8", "x-rein-egress": "blocked" });
        return res.end(refusePage(decision.reason));
      }
      const headers = { ...req.headers };
      delete headers["proxy-connection"];
      delete headers["proxy-authorization"];
      const upstream = http.request(
        {
          host: decision.address,
          family: decision.family,
          port,
          method: req.method,
          path: `${url.pathname}${url.search}`,
          headers,
          setHost: false,
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      upstream.on("error", () => {
        if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
        res.end();
      });
      req.pipe(upstream);
    });
  });
  server.on("connect", (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    client.on("error", () => {});
    const target = /^\[?([^\]]+?)\]?:(\d+)$/.exec(req.url ?? "");
    if (!target) return void client.end("HTTP/1.1 400 Bad Request\r\n\r\n");
    void decideEgress(target[1], Number(target[2]), null).then((decision) => {
      if (!decision.ok) return void client.end(`HTTP/1.1 403 Forbidden\r\nX-Rein-Egress: blocked\r\n\r\n`);
      const upstream = net.connect({ host: decision.address, port: Number(target[2]), family: decision.family }, () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        if (head.length) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on("error", () => client.destroy());
      client.on("close", () => upstream.destroy());
    });
  });
  server.on("clientError", (_err, socket) => socket.destroy());
  server.on("error", (err) => log?.error("the desktop's egress proxy failed", err));
  await new Promise<void>((resolve, reject) => server.listen(socketPath, resolve).once("error", reject));
  fs.chmodSync(socketPath, 0o600);
  return {
    socketPath,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}
