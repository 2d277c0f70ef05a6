// The gateway's HTTP edges: a request body read with a bound before it is
// parsed (docs/gateway.md#limits), JSON answers, and server-sent events.
import type { IncomingMessage, ServerResponse } from "node:http";
import { GatewayRefusal } from "./errors";

/** The largest request body read (agents send whole conversations: Claude Code's prompts are big). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Deeper JSON is refused before anything walks it (tool schemas nest a dozen levels at most). */
export const MAX_JSON_DEPTH = 64;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** At most `maxBytes`, counted as it arrives whatever Content-Length says; well-formed, not too deep. */
export async function readJson(req: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<unknown> {
  // The rest of a refused body is not read, so its connection is not reused.
  const tooLarge = () =>
    new GatewayRefusal("too_large", `The request body is larger than ${maxBytes} bytes, the model gateway's limit`, {
      connection: "close",
    });
  if (Number(req.headers["content-length"] ?? 0) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch (err) {
    throw new GatewayRefusal("invalid_json", `The request body is not valid JSON (${(err as Error).message})`);
  }
  const problem = jsonProblem(value);
  if (problem) throw new GatewayRefusal("invalid_request", `Invalid request: ${problem}`);
  return value;
}

/** Nesting and Unicode, walked without recursion. */
function jsonProblem(value: unknown): string | null {
  const stack: Array<{ v: unknown; depth: number }> = [{ v: value, depth: 0 }];
  while (stack.length) {
    const { v, depth } = stack.pop()!;
    if (typeof v === "string") {
      if (LONE_SURROGATE.test(v)) return "the body holds text that is not valid Unicode (a lone surrogate)";
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (depth >= MAX_JSON_DEPTH) return `the body is nested more than ${MAX_JSON_DEPTH} levels deep`;
    for (const [k, x] of Object.entries(v)) {
      if (LONE_SURROGATE.test(k)) return "the body has a key that is not valid Unicode (a lone surrogate)";
      stack.push({ v: x, depth: depth + 1 });
    }
  }
  return null;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  if (res.headersSent) return void res.end();
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** A server-sent event stream; nothing is written until the first event, so a call that fails first can still answer with a status. */
export class EventStream {
  constructor(private readonly res: ServerResponse) {}

  get started(): boolean {
    return this.res.headersSent;
  }

  private start() {
    if (this.res.headersSent) return;
    this.res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  }

  /** `data:` only (OpenAI Chat Completions), or `event:` and `data:` (Anthropic, the Responses API). */
  send(data: unknown, event?: string) {
    if (this.res.writableEnded || this.res.destroyed) return;
    this.start();
    this.res.write(`${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
  }

  end() {
    if (this.res.writableEnded) return;
    this.start();
    this.res.end();
  }
}
