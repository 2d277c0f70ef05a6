// For tests of the MCP server: the handler on a real HTTP server on a free
// loopback port, and the SDK's own client connected to it with a token.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** The handler on a real HTTP server on a free loopback port (the same helper as the attack suite's). */
export { serveMcp as startMcpServer, type McpHttpServer as McpTestServer } from "@/test/helpers/mcp-server";

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
