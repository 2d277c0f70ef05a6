// The same bounds for a Streamable HTTP server as for a stdio one
// (docs/security.md#what-external-servers-send): a fetch for the SDK's
// transport that reads a JSON body or an SSE event up to MAX_MCP_MESSAGE_BYTES
// and checks a long one off the event loop (parse.ts) before the SDK parses
// it. What goes over answers the POST's requests with a clear JSON-RPC error
// in its place, so the call fails and the connection goes on; an error page
// is cut short. Oversized bytes are counted and dropped as they arrive.
import { INLINE_PARSE_BYTES, checkParse } from "./parse";
import { ANSWER_TOO_LARGE, MAX_MCP_MESSAGE_BYTES, tooComplexMessage, tooLargeMessage } from "./limits";

/** Past this much a body the server would not stop sending is given up (its size is then "at least" this). */
const COUNT_AT_MOST = 64 * 1024 * 1024;
/** What Rein reads of an error page (the SDK shows it in the error). */
const ERROR_BODY_BYTES = 4 * 1024;

type Id = string | number;

/** The ids of the requests a POST carries (the SDK sends one JSON-RPC message or a batch, as a string). */
function requestIds(body: unknown): Id[] {
  if (typeof body !== "string" || body.length > MAX_MCP_MESSAGE_BYTES) return [];
  try {
    const parsed: unknown = JSON.parse(body);
    return (Array.isArray(parsed) ? parsed : [parsed])
      .filter(
        (m): m is { id: Id; method: string } =>
          !!m && typeof m === "object" && "method" in m && (typeof m.id === "string" || typeof m.id === "number"),
      )
      .map((m) => m.id);
  } catch {
    return [];
  }
}

const errorsFor = (ids: Id[], message: string) =>
  ids.map((id) => ({ jsonrpc: "2.0" as const, id, error: { code: ANSWER_TOO_LARGE, message } }));

function withBody(response: Response, body: BodyInit | null): Response {
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  headers.delete("content-encoding");
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

/** Reads a body up to `max` bytes; past it, counts the rest (up to COUNT_AT_MOST) without keeping it. */
async function readBounded(body: ReadableStream<Uint8Array>, max: number): Promise<{ bytes: Buffer } | { over: number }> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      total += value.length;
      if (total <= max) chunks.push(value);
      else chunks.length = 0;
      if (total > COUNT_AT_MOST) break;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return total > max ? { over: total } : { bytes: Buffer.concat(chunks) };
}

async function boundedJson(response: Response, ids: Id[]): Promise<Response> {
  const read = await readBounded(response.body!, MAX_MCP_MESSAGE_BYTES);
  let refusal: string | null = null;
  if ("over" in read) refusal = tooLargeMessage(read.over);
  else if (read.bytes.length > INLINE_PARSE_BYTES) {
    const checked = await checkParse(read.bytes);
    // Not JSON: the SDK says so when it parses it.
    if (!checked.ok && checked.tooComplex) refusal = tooComplexMessage(checked.message);
  }
  if (refusal === null) return withBody(response, "bytes" in read ? new Uint8Array(read.bytes) : null);
  return withBody(response, JSON.stringify(ids.length === 1 ? errorsFor(ids, refusal)[0] : errorsFor(ids, refusal)));
}

/** The data of one SSE event (its `data:` lines joined), or null when it has none. */
function eventData(event: string): string | null {
  const data: string[] = [];
  for (const line of event.split(/\r\n|\r|\n/)) {
    if (line.startsWith("data:")) data.push(line.slice(line[5] === " " ? 6 : 5));
  }
  return data.length ? data.join("\n") : null;
}

/**
 * Splits an SSE stream into events (a blank line ends one) and passes each on
 * whole, at most MAX_MCP_MESSAGE_BYTES; a long one is checked off the event
 * loop first. One over a limit, on a POST's stream, becomes an error event
 * answering the POST's requests, and the rest of the stream is dropped; on the
 * standing GET stream it is dropped alone.
 */
function boundedSse(ids: Id[]): TransformStream<Uint8Array, Uint8Array> {
  let chunks: Uint8Array[] = [];
  let size = 0;
  let skipped = 0;
  let lineEmpty = true;
  let lastCr = false;
  let done = false;
  const encoder = new TextEncoder();

  const refuse = (controller: TransformStreamDefaultController<Uint8Array>, message: string) => {
    if (!ids.length) return;
    for (const e of errorsFor(ids, message)) controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(e)}\n\n`));
    // The POST is answered: the rest of its stream is not read.
    done = true;
    controller.terminate();
  };

  const endEvent = async (controller: TransformStreamDefaultController<Uint8Array>) => {
    const event = Buffer.concat(chunks);
    const over = skipped;
    chunks = [];
    size = 0;
    skipped = 0;
    if (over) return refuse(controller, tooLargeMessage(over));
    if (event.length > INLINE_PARSE_BYTES) {
      const data = eventData(event.toString("utf8"));
      const checked = data === null ? null : await checkParse(Buffer.from(data));
      if (checked && !checked.ok && checked.tooComplex) return refuse(controller, tooComplexMessage(checked.message));
    }
    controller.enqueue(event);
  };

  return new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, controller) {
      if (done) return;
      let start = 0;
      for (let i = 0; i < chunk.length; i++) {
        const c = chunk[i];
        if (c === 0x0a && lastCr) {
          lastCr = false;
          continue;
        }
        if (c !== 0x0a && c !== 0x0d) {
          lastCr = false;
          lineEmpty = false;
          continue;
        }
        lastCr = c === 0x0d;
        if (!lineEmpty) {
          lineEmpty = true;
          continue;
        }
        // A blank line: the event ends here.
        take(chunk.subarray(start, i + 1));
        start = i + 1;
        await endEvent(controller);
        if (done) return;
      }
      take(chunk.subarray(start));
    },
    async flush(controller) {
      if (!done && (size || skipped)) await endEvent(controller);
    },
  });

  function take(part: Uint8Array) {
    if (!part.length) return;
    if (skipped || size + part.length > MAX_MCP_MESSAGE_BYTES) {
      skipped += size + part.length;
      chunks = [];
      size = 0;
      return;
    }
    chunks.push(part.slice());
    size += part.length;
  }
}

/** A fetch for StreamableHTTPClientTransport that holds the server's answers to Rein's bounds. */
export function boundedMcpFetch(inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (!response.body) return response;
    const type = (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (!response.ok)
      return withBody(
        response,
        await readBounded(response.body, ERROR_BODY_BYTES).then((r) =>
          "bytes" in r ? new Uint8Array(r.bytes) : `(an error page of ${r.over} bytes, not shown)`,
        ),
      );
    if (type === "application/json") return boundedJson(response, requestIds(init?.body));
    if (type === "text/event-stream") return withBody(response, response.body.pipeThrough(boundedSse(requestIds(init?.body))));
    return response;
  };
}
