// Rein's /mcp handler on a real HTTP server on a free loopback port, for tests
// that talk to it as clients do (the official SDKs, or raw requests).
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Services } from "@/server/app";
import { createMcpHandler, type McpHandlerOptions } from "@/server/mcp-server";

export interface McpHttpServer {
  /** http://127.0.0.1:<port>/mcp */
  url: string;
  close(): Promise<void>;
}

export async function serveMcp(services: Services, opts: McpHandlerOptions = {}): Promise<McpHttpServer> {
  const handler = createMcpHandler(services, { log: { error() {} }, ...opts });
  const server = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
