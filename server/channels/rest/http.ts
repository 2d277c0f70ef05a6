// Small HTTP helpers for the REST API: JSON bodies with limits, clear errors.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import { DomainError, httpErrorBody, toDomainError } from "@/server/errors";
import { jsonInputProblem } from "./input";

const MAX_BODY = 2_000_000;

/** maxBytes: a route that takes a file in its body (a dataset's JSONL) may allow more than the default. */
export async function readJson(req: IncomingMessage, maxBytes = MAX_BODY): Promise<unknown> {
  const type = req.headers["content-type"] ?? "";
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new DomainError("PAYLOAD_TOO_LARGE", `The body is larger than ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (!text.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const hint =
      type && !type.includes("json") ? ` (it was sent as ${type.split(";")[0]}; send JSON with Content-Type: application/json)` : "";
    throw new DomainError("INVALID_JSON", `The body is not valid JSON: ${(err as Error).message}${hint}`);
  }
  const problem = jsonInputProblem(value);
  if (problem) throw new DomainError("INVALID_INPUT", `The body cannot be taken: ${problem}`);
  return value;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers });
  res.end(text);
}

/** Every REST error goes out here, mapped through the one table (docs/api.md#errors). */
export function sendError(res: ServerResponse, err: unknown) {
  const { status, body } = httpErrorBody(toDomainError(err, "REST API"));
  // The rest of a refused oversized body is never read: the connection cannot be reused.
  return sendJson(res, status, body, status === 413 ? { connection: "close" } : {});
}

/** A response body streamed as it is produced (archives), instead of JSON. */
export class StreamBody {
  constructor(
    public readonly stream: Readable,
    public readonly headers: Record<string, string>,
  ) {}
}

/**
 * Streams a body with backpressure. The status line waits for the first
 * bytes, so a producer that fails at once still gets a clear JSON error;
 * one that fails later cuts the connection (the client sees a broken
 * download, never a silently short one). A client that goes away stops it.
 */
export function sendStream(res: ServerResponse, status: number, body: StreamBody, onEarlyError: (err: unknown) => void): Promise<void> {
  const { stream, headers } = body;
  return new Promise((resolve) => {
    let started = false;
    const start = () => {
      if (started) return;
      started = true;
      res.writeHead(status, { "cache-control": "no-store", "x-content-type-options": "nosniff", ...headers });
    };
    stream.on("data", (chunk: Buffer) => {
      start();
      if (!res.write(chunk)) {
        stream.pause();
        res.once("drain", () => stream.resume());
      }
    });
    stream.on("end", () => {
      start();
      res.end();
      resolve();
    });
    stream.on("error", (err) => {
      if (started) res.destroy(err);
      else onEarlyError(err);
      resolve();
    });
    res.on("close", () => {
      stream.destroy();
      resolve();
    });
  });
}
