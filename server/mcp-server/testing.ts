// For tests of the MCP server: the handler on a real HTTP server on a free
// loopback port, and the SDK's own client connected to it with a token.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Services } from "@/server/app";
import { createMcpHandler, type McpHandlerOptions } from "./handler";

export interface McpTestServer {
  /** http://127.0.0.1:<port>/mcp */
  url: string;
  close(): Promise<void>;
}

export async function startMcpServer(services: Services, opts: McpHandlerOptions = {}): Promise<McpTestServer> {
  const handler = createMcpHandler(services, { log: { error() {} }, ...opts });
  const server = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return {
    url,
    close: () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      return closed;
    },
  };
}

/**
 * The SDK client always offers its latest revision in `initialize`, with no
 * option to offer an older one. This transport rewrites the offer on its way
 * out, so the server sees exactly what a client of that revision sends and
 * answers with it; the client accepts any revision it supports and sends it
 * in the MCP-Protocol-Version header from then on (read back here).
 */
export class PinnedVersionTransport extends StreamableHTTPClientTransport {
  constructor(
    url: URL,
    private readonly offered: string,
    opts: ConstructorParameters<typeof StreamableHTTPClientTransport>[1],
  ) {
    super(url, opts);
  }

  override send(message: JSONRPCMessage | JSONRPCMessage[], options?: Parameters<StreamableHTTPClientTransport["send"]>[1]) {
    const one = message as { method?: string; params?: Record<string, unknown> };
    if (!Array.isArray(message) && one.method === "initialize") {
      return super.send({ ...message, params: { ...one.params, protocolVersion: this.offered } } as JSONRPCMessage, options);
    }
    return super.send(message, options);
  }
}

/** An MCP client of Rein as the holder of `token`; `version` pins the protocol revision it offers. */
export async function connectClient(
  url: string,
  token: string | null,
  version?: string,
  options?: ConstructorParameters<typeof Client>[1],
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  const opts = { requestInit: { headers } };
  const transport = version
    ? new PinnedVersionTransport(new URL(url), version, opts)
    : new StreamableHTTPClientTransport(new URL(url), opts);
  const client = new Client({ name: "rein-test", version: "1.0.0" }, options);
  await client.connect(transport);
  return { client, transport };
}
