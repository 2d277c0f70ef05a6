// /mcp over HTTP (MCP Streamable HTTP, no sessions), in two revisions
// (docs/mcp-server.md#revisions): each POST is checked (Origin, API token,
// size, JSON) and then answered by a fresh McpServer for its caller, on the
// SDK's 2026-07-28 handler when the request says that revision in its `_meta`,
// else on a 2025-11-25 transport of Rein's own (which can put a question to
// the client's user while wait_for_run waits). Answers are JSON, except
// wait_for_run's, which stream its progress notifications as server-sent events.
import crypto from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler as createModernHandler,
  isLegacyRequest,
} from "@modelcontextprotocol/server";
import type { Services } from "@/server/app";
import type { Db } from "@/server/db";
import { authenticateToken, bearerFrom, requestOrigin, type Actor } from "@/server/identity";
import { DomainError, ERROR_TABLE, INTERNAL_MESSAGE, jsonRpcError, type ErrorCode } from "@/server/errors";
import { HttpRefusal as Refusal, readJsonBody } from "@/server/channels";
import { ClientCapabilities, PendingElicitations, clientKey, elicitor } from "./elicitation";
import { InflightCalls } from "./inflight";
import { questionStateCodec } from "./input-required";
import { buildMcpServer } from "./mcp-server";
import { originRefusal } from "./origin";

export const MCP_PATH = "/mcp";
/** The largest request body /mcp reads; tool arguments are small. */
export const MAX_MCP_BODY = 1024 * 1024;

/** The endpoint's own options; the services come beside them (docs/architecture.md#composition-root). */
export interface McpHandlerOptions {
  /** Rein's public URL: the one foreign-looking Origin allowed, and where links in answers point (else the request's host). */
  publicUrl?: string;
  /**
   * Who sent a request; by default the person of its API token. Only a test
   * whose client cannot send headers (the conformance suite) passes another.
   */
  authenticate?: (req: IncomingMessage) => Promise<Actor | null>;
  /**
   * Seals the state of wait_for_run's questions on 2026-07-28 (at least 32
   * bytes); every Rein process behind one URL needs the same one. A random
   * key when absent: answers then come back only to this process.
   */
  stateKey?: string | Uint8Array;
  log?: { error(message: string, err?: unknown): void };
}

export function isMcpPath(url: string): boolean {
  return url === MCP_PATH || url.startsWith(`${MCP_PATH}?`);
}

/** The HTTP status and the JSON-RPC error code both come from the one table (docs/development.md#errors). */
function refuse(res: ServerResponse, refusal: DomainError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const headers = refusal instanceof Refusal ? refusal.headers : {};
  res.writeHead(ERROR_TABLE[refusal.code].status, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    ...headers,
  });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: jsonRpcError(refusal), id: null }));
}

const tokenActor = (db: Db) => async (req: IncomingMessage) => {
  const token = bearerFrom(req.headers.authorization);
  return token ? authenticateToken(db, token) : null;
};

// The refused request's body is never read, so its connection is not reused.
const UNAUTHORIZED = new Refusal(
  "UNAUTHORIZED",
  "Send a Rein API token as 'Authorization: Bearer <token>' (create one in Settings or with: npm run rein -- token create)",
  {
    "www-authenticate": 'Bearer realm="rein"',
    connection: "close",
  },
);

/** The body as JSON, read up to MAX_MCP_BODY; a Refusal for too much, bad JSON or JSON nested too deep. */
const readBody = (req: IncomingMessage) => readJsonBody(req, MAX_MCP_BODY);

type Message = {
  method?: unknown;
  id?: unknown;
  result?: unknown;
  error?: unknown;
  params?: { name?: unknown; requestId?: unknown; capabilities?: { elicitation?: unknown } };
};
const messagesOf = (body: unknown): Message[] =>
  (Array.isArray(body) ? body : [body]).filter((m): m is Message => !!m && typeof m === "object");

/** wait_for_run answers as a stream, so its progress notifications reach the client while it waits. */
const streams = (body: unknown) => messagesOf(body).some((m) => m.method === "tools/call" && m.params?.name === "wait_for_run");

/**
 * The checked request as the SDK's handlers take it: its headers, with the
 * body already read and parsed (passed beside it). The URL is Rein's own path,
 * not one built from the Host header.
 */
function webRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  headers.delete("content-length");
  return new Request(`http://localhost${MCP_PATH}`, { method: req.method, headers, signal });
}

/** Writes the SDK's answer out; a client that goes away cancels the rest (and `onGone` tears the call down). */
async function answer(res: ServerResponse, response: Response, onGone: () => void): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  const reader = response.body?.getReader();
  if (res.destroyed) {
    // The client went away while the answer was made.
    void reader?.cancel().catch(() => {});
    return onGone();
  }
  res.writeHead(response.status, headers);
  res.on("close", () => {
    void reader?.cancel().catch(() => {});
    onGone();
  });
  if (!reader) return void res.end();
  try {
    for (let part = await reader.read(); !part.done; part = await reader.read()) res.write(part.value);
  } catch {
    // the stream was cancelled: the client went away
  }
  res.end();
}

export function createMcpHandler(services: Services, opts: McpHandlerOptions = {}) {
  const authenticate = opts.authenticate ?? tokenActor(services.db);
  const log = opts.log ?? { error: (message: string, err?: unknown) => console.error(message, err) };
  const inflight = new InflightCalls();
  const clients = new ClientCapabilities();
  const pending = new PendingElicitations();
  const questionState = questionStateCodec(opts.stateKey ?? crypto.randomBytes(32));
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      const foreign = originRefusal(req, opts.publicUrl);
      if (foreign) throw new Refusal("CROSS_ORIGIN", foreign, { connection: "close" });
      const actor = await authenticate(req);
      if (!actor) throw UNAUTHORIZED;
      if (req.method !== "POST") {
        throw new Refusal(
          "METHOD_NOT_ALLOWED",
          "Method not allowed: Rein's MCP endpoint keeps no sessions, so there is no stream to open or session to end; send JSON-RPC messages with POST",
          { allow: "POST" },
        );
      }
      const body = await readBody(req);
      const client = clientKey(req.headers.authorization, actor.userId);
      const messages = messagesOf(body);
      let answers = 0;
      for (const m of messages) {
        const id = m.params?.requestId;
        if (m.method === "notifications/cancelled" && (typeof id === "string" || typeof id === "number")) inflight.cancel(actor.userId, id);
        if (m.method === "initialize") clients.remember(client, !!m.params?.capabilities?.elicitation);
        if (m.method === undefined && pending.answer(actor.userId, m)) answers++;
      }
      // Only answers to Rein's elicitations: they were handed to the calls that wait for them.
      if (answers > 0 && answers === messages.length) {
        res.writeHead(202).end();
        return;
      }
      if (messages.some((m) => m.method === "subscriptions/listen")) {
        throw new Refusal(
          "METHOD_NOT_ALLOWED",
          "subscriptions/listen is not served: Rein's MCP endpoint keeps no stream open; follow a run with wait_for_run, or as a task",
        );
      }
      // A client that goes away ends its call, whether or not an answer has started (wait_for_run can wait minutes).
      const gone = new AbortController();
      res.once("close", () => gone.abort());
      const request = webRequest(req, gone.signal);
      const ctx = {
        ...services,
        actor,
        recheck: () => authenticate(req),
        baseUrl: requestOrigin(req, opts.publicUrl),
        inflight,
        questionState,
        log,
      };
      if (!(await isLegacyRequest(request, body, { maxRequestBodySize: MAX_MCP_BODY }))) {
        // 2026-07-28: the SDK's handler checks the revision, the envelope and the headers; a question to the user is input_required.
        const modern = createModernHandler(() => buildMcpServer(ctx, { modern: true }), {
          legacy: "reject",
          onerror: (err) => log.error("an MCP request (2026-07-28) failed", err),
        });
        gone.signal.addEventListener("abort", () => void modern.close(), { once: true });
        const response = await modern.fetch(request, { parsedBody: body });
        await answer(res, response, () => void modern.close());
        return;
      }
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !streams(body) });
      const protocolVersion = typeof req.headers["mcp-protocol-version"] === "string" ? req.headers["mcp-protocol-version"] : undefined;
      const asks = clients.canElicit(client, protocolVersion)
        ? elicitor({ userId: actor.userId, pending, send: (message, relatedRequestId) => transport.send(message, { relatedRequestId }) })
        : undefined;
      const server = buildMcpServer({ ...ctx, elicitor: asks });
      const end = () => {
        void transport.close();
        void server.close();
      };
      gone.signal.addEventListener("abort", end, { once: true });
      await server.connect(transport);
      const response = await transport.handleRequest(request, { parsedBody: body });
      await answer(res, response, end);
    } catch (err) {
      if (!(err instanceof DomainError)) log.error("an MCP request failed", err);
      refuse(res, err instanceof DomainError ? err : new DomainError("INTERNAL_ERROR", INTERNAL_MESSAGE));
    }
  };
}
