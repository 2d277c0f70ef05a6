// How much of what an MCP server sends Rein reads
// (docs/security.md#what-external-servers-send, docs/mcp.md#answer-size):
// a message of at most 2 MiB, 100,000 JSON values and 10,000 distinct member
// names (parse.ts says why), a tool answer of at most 1,000 content items, a
// tool list page of at most MAX_TOOLS tools. What the SDK checks item by item
// is bounded before the check runs. No answer keeps the event loop busy for long. Results are cut to 64 KiB later anyway (server/mcp-client/tool.ts).
import type { JSONRPCMessage } from "@modelcontextprotocol/client";

/** The longest message (one line of JSON, one HTTP body or SSE event) Rein reads from a server. */
export const MAX_MCP_MESSAGE_BYTES = 2 * 1024 * 1024;
/** The most JSON values (objects, arrays, strings, numbers...) of one message. */
export const MAX_JSON_VALUES = 100_000;
/** The most distinct member names of one message. */
export const MAX_DISTINCT_NAMES = 10_000;
/** The most content items of one tool answer. */
export const MAX_CONTENT_ITEMS = 1_000;
/** At most this many tools are read from one server. */
export const MAX_TOOLS = 500;
/** The JSON-RPC error code Rein gives a call whose answer it would not read (in the implementation-defined range). */
export const ANSWER_TOO_LARGE = -32_077;

const n = (x: number) => x.toLocaleString("en-US");

export function tooLargeMessage(bytes: number): string {
  return `The MCP server's answer was too large: ${n(bytes)} bytes, ${n(bytes - MAX_MCP_MESSAGE_BYTES)} over the limit of ${n(MAX_MCP_MESSAGE_BYTES)} bytes (2 MiB). Rein did not read it; ask the tool for less at a time`;
}

export function tooComplexMessage(over: string): string {
  const what = over === "names" ? `${n(MAX_DISTINCT_NAMES)} distinct member names` : `${n(MAX_JSON_VALUES)} JSON values`;
  return `The MCP server's answer has more than ${what}, more than Rein reads. Rein did not read it; ask the tool for less at a time`;
}

/**
 * Bounds the arrays of a parsed answer before the SDK checks them item by
 * item: too many content items fail the call (returned: the error answer that
 * replaces it); a tool list page longer than MAX_TOOLS is cut to MAX_TOOLS (Rein reads no more).
 */
export function checkContentItems(parsed: unknown): JSONRPCMessage | null {
  if (!parsed || typeof parsed !== "object") return null;
  const m = parsed as { id?: unknown; method?: unknown; result?: { content?: unknown; tools?: unknown } };
  const result = m.result;
  if (m.method !== undefined || (typeof m.id !== "string" && typeof m.id !== "number") || !result || typeof result !== "object")
    return null;
  if (Array.isArray(result.content) && result.content.length > MAX_CONTENT_ITEMS) {
    return {
      jsonrpc: "2.0",
      id: m.id,
      error: {
        code: ANSWER_TOO_LARGE,
        message: `The MCP server's answer has ${n(result.content.length)} content items, more than the ${n(MAX_CONTENT_ITEMS)} Rein reads; ask the tool for less at a time`,
      },
    };
  }
  if (Array.isArray(result.tools) && result.tools.length > MAX_TOOLS) result.tools.length = MAX_TOOLS;
  return null;
}
