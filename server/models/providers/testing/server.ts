// A local HTTP server for provider fakes: 127.0.0.1 on a free port, records
// every request, and plays queued behaviours (a reply, an error status, a
// connection that hangs, a stream cut short). Used by the contract tests and
// end-to-end tests.
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface FakeToolCall {
  id: string;
  name: string;
  /** The JSON arguments as text; streamed in pieces of `chunkSize`. */
  arguments: string;
}

/** Usage in neutral terms; each fake writes it the way its provider does. */
export interface FakeUsage {
  /** Input tokens neither read from nor written to the cache. */
  uncachedInputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  outputTokens: number;
}

export interface FakeReply {
  text?: string;
  toolCalls?: FakeToolCall[];
  usage?: FakeUsage;
  /** Characters per streamed text or argument delta (default 4). */
  chunkSize?: number;
  /** Pause between streamed events, in ms (default 0). */
  delayMs?: number;
  stopReason?: "stop" | "length";
}

export type FakeBehaviour =
  | { type: "reply"; reply: FakeReply }
  | { type: "status"; status: number; headers?: Record<string, string>; message?: string }
  /** Accepts the request and never answers. */
  | { type: "hang" }
  /** Streams the headers and the first text delta, then goes silent. */
  | { type: "hang-mid-stream"; reply: FakeReply }
  /** Streams the headers and the first text delta, then ends the response without the provider's closing events. */
  | { type: "end-mid-stream"; reply: FakeReply };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (tests read into it freely). */
  body: any;
}

export const DEFAULT_USAGE: FakeUsage = { uncachedInputTokens: 10, outputTokens: 5 };

export interface Exchange {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  request: RecordedRequest;
  /** The next queued behaviour (a short text reply when the queue is empty). */
  behaviour: () => FakeBehaviour;
}

export type Route = (exchange: Exchange) => Promise<void> | void;

export class FakeServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: FakeBehaviour[] = [];
  private readonly sockets = new Set<Socket>();
  private server?: http.Server;
  baseUrl = "";

  constructor(private readonly route: (path: string, method: string) => Route | null) {}

  async start(): Promise<this> {
    const server = http.createServer((req, res) => void this.handle(req, res));
    server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.server = server;
    this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    return this;
  }

  /** Behaviours for the next requests, in order. */
  enqueue(...behaviours: FakeBehaviour[]): this {
    this.queue.push(...behaviours);
    return this;
  }

  reset(): void {
    this.queue.length = 0;
    this.requests.length = 0;
  }

  lastRequest(): RecordedRequest {
    const last = this.requests[this.requests.length - 1];
    if (!last) throw new Error("The fake server has received no request");
    return last;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      /* keep the text */
    }
    const url = new URL(req.url ?? "/", "http://fake");
    const request: RecordedRequest = { method: req.method ?? "GET", path: url.pathname + url.search, headers: req.headers, body };
    this.requests.push(request);
    const route = this.route(url.pathname, request.method);
    if (!route) {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: `No route ${request.method} ${url.pathname}` } }));
      return;
    }
    await route({ req, res, request, behaviour: () => this.queue.shift() ?? { type: "reply", reply: { text: "Hello from the fake." } } });
  }
}

export function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
}

export function pieces(text: string, size = 4): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

export function startSse(res: http.ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  res.flushHeaders();
}
