// The body of a JSON-RPC request over HTTP (/mcp, A2A), read the one careful
// way: at most `maxBytes` (counted as it arrives, whatever Content-Length
// says), well-formed JSON, and within the nesting and Unicode rules of every
// JSON input (rest/input.ts). What fails is an HttpRefusal the endpoint answers
// with its own JSON-RPC error.
import type { IncomingMessage } from "node:http";
import { DomainError, type ErrorCode } from "@/server/errors";
import { jsonInputProblem } from "./rest/input";

/** A request refused before any JSON-RPC method runs, with the headers its answer needs. */
export class HttpRefusal extends DomainError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(code, message);
  }
}

export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  // The refused request's body is not read to its end, so its connection is not reused.
  const tooLarge = new HttpRefusal("PAYLOAD_TOO_LARGE", `The body is larger than ${maxBytes} bytes`, { connection: "close" });
  if (Number(req.headers["content-length"] ?? 0) > maxBytes) throw tooLarge;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLarge;
    chunks.push(chunk as Buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch (err) {
    throw new HttpRefusal("INVALID_JSON", `Parse error: the body is not valid JSON (${(err as Error).message})`);
  }
  const problem = jsonInputProblem(value);
  if (problem) throw new HttpRefusal("INVALID_INPUT", `Invalid request: ${problem}`);
  return value;
}
