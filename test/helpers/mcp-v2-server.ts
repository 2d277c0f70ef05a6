// An MCP server on the official SDK v2 (@modelcontextprotocol/server), served
// over Streamable HTTP on a loopback port for tests: it speaks 2026-07-28 (no
// session; `server/discover`; a tool that asks for input answers
// `input_required`; a tool that reports progress) and, on the same URL,
// 2025-11-25 to a client that sends `initialize` (the SDK's stateless legacy
// leg). A real peer, not a mock.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer, acceptedContent, createMcpHandler, inputRequired, type McpHttpHandler } from "@modelcontextprotocol/server";
import { z } from "zod";

export interface V2McpServer {
  url: string;
  /** Every JSON-RPC method the server was sent, in order (a batch counts each). */
  methods: string[];
  close(): Promise<void>;
}

const CONFIRM = z.object({ confirm: z.boolean() });
const COUNT = z.object({ n: z.number().int().min(1).max(1000), everyMs: z.number().min(0).max(10_000).default(0) });

function fixture(): McpServer {
  const server = new McpServer({ name: "rein-v2-fixture", version: "2.4.0" });
  server.registerTool(
    "echo",
    { description: "Says back the text it is given", inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  server.registerTool(
    "confirm",
    {
      description: "Asks a person to confirm before it says it went ahead",
      inputSchema: z.object({ what: z.string() }),
      // Safe to call again with the same arguments: a run that resumes after a restart makes the call again.
      annotations: { idempotentHint: true },
    },
    async ({ what }, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, "confirm", CONFIRM);
      if (!answer) {
        return inputRequired({
          inputRequests: { confirm: inputRequired.elicit({ message: `Go ahead with ${what}?`, requestedSchema: CONFIRM }) },
        });
      }
      return { content: [{ type: "text", text: answer.confirm ? `went ahead with ${what}` : `did not go ahead with ${what}` }] };
    },
  );
  server.registerTool(
    "flood",
    {
      description: "Asks n questions in one answer (a hostile server's move)",
      inputSchema: z.object({ n: z.number().int().min(1).max(10_000) }),
    },
    async ({ n }, ctx) => {
      const responses = ctx.mcpReq.inputResponses;
      if (!responses) {
        const ask = (i: number) => inputRequired.elicit({ message: `Question ${i}?`, requestedSchema: CONFIRM });
        return inputRequired({ inputRequests: Object.fromEntries(Array.from({ length: n }, (_, i) => [`q${i}`, ask(i)])) });
      }
      const accepted = Array.from({ length: n }, (_, i) => acceptedContent(responses, `q${i}`, CONFIRM)).filter(Boolean).length;
      return { content: [{ type: "text", text: `accepted ${accepted} of ${n}` }] };
    },
  );
  server.registerTool(
    "count",
    { description: "Counts to n: a progress notification at once, then one every everyMs", inputSchema: COUNT },
    async ({ n, everyMs }, ctx) => {
      // A client asks for progress by sending a progressToken in the call's _meta (docs/mcp.md#time-limits-and-cancellation).
      const token = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= n; i++) {
        if (token !== undefined)
          await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress: i, total: n } });
        if (everyMs && i < n) await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
      return { content: [{ type: "text", text: `counted to ${n}` }] };
    },
  );
  return server;
}

/** The fixture behind one fetch-shaped handler: 2026-07-28 and, for a client that sends `initialize`, 2025-11-25. */
export function createV2McpHandler(): McpHttpHandler {
  return createMcpHandler(() => fixture(), { legacy: "stateless" });
}

/** Reads a node request's body whole. */
async function readWholeBody(req: http.IncomingMessage): Promise<Buffer<ArrayBuffer>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Adds the JSON-RPC methods a request body carries to `methods` (a batch counts each). */
function recordMethods(body: Buffer, methods: string[]): void {
  try {
    const sent: unknown = body.length ? JSON.parse(body.toString("utf8")) : null;
    for (const m of Array.isArray(sent) ? sent : [sent]) {
      if (m && typeof m === "object" && typeof (m as { method?: unknown }).method === "string")
        methods.push((m as { method: string }).method);
    }
  } catch {
    // not JSON: the handler answers it
  }
}

/**
 * Answers a node request with the handler. `body` is the request's body, already read (so a caller
 * can bound or inspect it first); a failure answers 500.
 */
export async function serveV2McpRequest(
  handler: McpHttpHandler,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body: Buffer<ArrayBuffer>,
): Promise<void> {
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers,
      ...(body.length && req.method !== "GET" && req.method !== "HEAD" ? { body } : {}),
    });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) {
      const reader = response.body.getReader();
      for (let part = await reader.read(); !part.done; part = await reader.read()) res.write(part.value);
    }
    res.end();
  } catch (err) {
    if (!res.headersSent) res.writeHead(500);
    res.end(String(err));
  }
}

/** Serves the fixture at http://127.0.0.1:<port>/mcp. */
export async function startV2McpServer(): Promise<V2McpServer> {
  const handler = createV2McpHandler();
  const methods: string[] = [];
  const server = http.createServer((req, res) => {
    void (async () => {
      const body = await readWholeBody(req);
      recordMethods(body, methods);
      await serveV2McpRequest(handler, req, res, body);
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    methods,
    async close() {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
