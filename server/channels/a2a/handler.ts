// A2A over HTTP (docs/a2a.md): public, signed agent cards and the key that
// signs them; and each exposed agent's JSON-RPC endpoint, where a Rein API
// token sends messages, follows and cancels tasks. The SDK's transport-neutral
// JSON-RPC handler parses and answers the methods; Rein's ReinTaskHandler does
// the work. Every request is checked (token, size, JSON, version) first.
import type { IncomingMessage, ServerResponse } from "node:http";
import { A2A_VERSION_HEADER, formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS } from "@a2a-js/sdk";
import { JsonRpcTransportHandler, ServerCallContext } from "@a2a-js/sdk/server";
import { ContentTypeNotSupportedError, VersionNotSupportedError } from "@a2a-js/sdk/errors";
import type { Services } from "@/server/app";
import { recordAudit } from "@/server/audit";
import { authenticateToken, bearerFrom, type Actor } from "@/server/identity";
import { DomainError, ERROR_TABLE, INTERNAL_MESSAGE, jsonRpcError, type ErrorCode } from "@/server/errors";
import { HttpRefusal as Refusal, readJsonBody } from "../json-body";
import { A2A_PREFIX, A2A_PROTOCOL, JWKS_PATH, WELL_KNOWN_CARD_PATH, signedCardJson, unsignedCard } from "./card";
import { exposedById, wellKnownAgent, type ExposedAgent } from "./exposure";
import { CardSigner } from "./signing";
import { ReinTaskHandler } from "./tasks";

/** The largest request body an A2A endpoint reads (docs/a2a.md#limits). */
export const MAX_A2A_BODY = 256 * 1024;

export interface A2aHandlerOptions {
  /** Rein's public URL: where cards point. Never taken from a request's Host, which a caller chooses. */
  publicUrl: string;
  log?: { error(message: string, err?: unknown): void };
}

export function isA2aPath(url: string): boolean {
  const path = url.split("?")[0];
  return path === WELL_KNOWN_CARD_PATH || path.startsWith(`${A2A_PREFIX}/`);
}

const UNAUTHORIZED = new Refusal(
  "UNAUTHORIZED",
  "Send a Rein API token as 'Authorization: Bearer <token>' (create one in Settings or with: npm run rein -- token create)",
  { "www-authenticate": 'Bearer realm="rein"', connection: "close" },
);
const NO_AGENT = new Refusal("NOT_FOUND", "No agent is exposed over A2A at this address", { connection: "close" });

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(JSON.stringify(body));
}

function refuse(res: ServerResponse, refusal: DomainError, id: unknown = null) {
  if (res.headersSent) return void res.end();
  const headers = refusal instanceof Refusal ? refusal.headers : {};
  sendJson(
    res,
    ERROR_TABLE[refusal.code].status,
    { jsonrpc: "2.0", error: jsonRpcError(refusal), id },
    { "cache-control": "no-store", ...headers },
  );
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const value = await readJsonBody(req, MAX_A2A_BODY);
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw new Refusal("INVALID_INPUT", "Invalid request: send one JSON-RPC request object (batches are not taken)");
  return value as Record<string, unknown>;
}

/** Cards and the key are public and carry no credentials: any page may read them. */
const PUBLIC_HEADERS = { "cache-control": "public, max-age=60", "access-control-allow-origin": "*" };

const JSON_TYPES = new Set(["application/json", "application/a2a+json"]);

type Json = Record<string, unknown>;
const objectOf = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});
const idOf = (v: unknown) => (typeof v === "string" && v.length > 0 && v.length <= 200 ? v : null);

/** The task a call was about: the one it named, else the one it started. */
function taskIdOf(body: Json, result: unknown): string | null {
  const params = objectOf(body.params);
  const answer = objectOf(result);
  return idOf(params.id) ?? idOf(objectOf(params.message).taskId) ?? idOf(objectOf(answer.task).id) ?? idOf(answer.id);
}

/** The agent id of /a2a/agents/<id>[/...], or null. */
function agentIdOf(path: string): { id: string; rest: string } | null {
  const m = /^\/a2a\/agents\/([a-z0-9]{1,64})(\/.*)?$/.exec(path);
  return m ? { id: m[1], rest: m[2] ?? "" } : null;
}

export function createA2aHandler(services: Services, opts: A2aHandlerOptions) {
  const base = opts.publicUrl.replace(/\/+$/, "");
  const log = opts.log ?? { error: (message: string, err?: unknown) => console.error(message, err) };
  const signer = new CardSigner({ db: services.db, keyring: services.keyring });

  /** Every JSON-RPC call is in the audit log (channel a2a): who called which method on which task, and whether it was refused. */
  async function audit(actor: Actor, exposed: ExposedAgent, body: Json, result: unknown, error: unknown) {
    const code = error ? objectOf(error).code : undefined;
    try {
      await recordAudit(services.db, {
        kind: "a2a.call",
        actorId: actor.userId,
        actorName: actor.name || actor.email,
        channel: "a2a",
        subject: typeof body.method === "string" ? body.method.slice(0, 64) : "(no method)",
        runId: taskIdOf(body, result),
        detail: { agent: exposed.agent, ok: !error, ...(code !== undefined ? { error: code } : {}) },
      });
    } catch (err) {
      log.error("could not audit an A2A call", err);
    }
  }

  async function serveCard(res: ServerResponse, exposed: ExposedAgent | null) {
    const card = exposed ? await unsignedCard(services.db, exposed, base) : null;
    if (!card) return refuse(res, NO_AGENT);
    sendJson(res, 200, await signedCardJson(card, signer, base), PUBLIC_HEADERS);
  }

  async function serveRpc(req: IncomingMessage, res: ServerResponse, exposed: ExposedAgent) {
    const token = bearerFrom(req.headers.authorization);
    const actor = token ? await authenticateToken(services.db, token) : null;
    if (!actor) throw UNAUTHORIZED;
    const card = await unsignedCard(services.db, exposed, base);
    if (!card) throw NO_AGENT;
    const type = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
    const version = req.headers[A2A_VERSION_HEADER.toLowerCase()];
    const body = await readBody(req);
    const id = typeof body.id === "string" || typeof body.id === "number" ? body.id : null;
    // Refusals the protocol names go out as its errors, at 200 like the SDK's own server.
    const protocolError = !JSON_TYPES.has(type)
      ? new ContentTypeNotSupportedError(`Send the request as application/json, not ${type || "without a content type"}`)
      : version !== undefined && version !== A2A_PROTOCOL
        ? new VersionNotSupportedError(`Rein speaks A2A ${A2A_PROTOCOL}; the request asked for ${String(version)}`)
        : null;
    if (protocolError) return sendJson(res, 200, { jsonrpc: "2.0", id, error: JsonRpcTransportHandler.mapToJSONRPCError(protocolError) });

    const aborted = new AbortController();
    res.on("close", () => aborted.abort());
    const tasks = new ReinTaskHandler({ services, actor, exposed, signal: aborted.signal, log }, card);
    const answer = await new JsonRpcTransportHandler(tasks).handle(body, new ServerCallContext({ requestedVersion: A2A_PROTOCOL }));
    if (!(Symbol.asyncIterator in answer)) {
      await audit(actor, exposed, body, answer.result, answer.error);
      return sendJson(res, 200, answer);
    }
    // A stream: an error before its first event is a plain JSON-RPC answer, later ones an SSE error event.
    const events = answer[Symbol.asyncIterator]();
    let first: IteratorResult<{ result?: unknown }>;
    try {
      first = await events.next();
    } catch (err) {
      const error = JsonRpcTransportHandler.mapToJSONRPCError(err);
      await audit(actor, exposed, body, null, error);
      return sendJson(res, 200, { jsonrpc: "2.0", id, error });
    }
    await audit(actor, exposed, body, first.done ? null : objectOf(first.value.result).task, null);
    res.writeHead(200, SSE_HEADERS);
    try {
      if (!first.done) res.write(formatSSEEvent(first.value));
      for (let next = await events.next(); !next.done && !aborted.signal.aborted; next = await events.next())
        res.write(formatSSEEvent(next.value));
    } catch (err) {
      res.write(formatSSEErrorEvent({ jsonrpc: "2.0", id, error: JsonRpcTransportHandler.mapToJSONRPCError(err) }));
    } finally {
      await events.return?.(undefined);
      res.end();
    }
  }

  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? "/").split("?")[0];
    try {
      if (req.method === "GET" && path === WELL_KNOWN_CARD_PATH) return await serveCard(res, await wellKnownAgent(services.db));
      if (req.method === "GET" && path === JWKS_PATH) return sendJson(res, 200, await signer.jwks(), PUBLIC_HEADERS);
      const target = agentIdOf(path);
      if (!target) throw NO_AGENT;
      const exposed = await exposedById(services.db, target.id);
      if (req.method === "GET" && target.rest === WELL_KNOWN_CARD_PATH) return await serveCard(res, exposed);
      if (target.rest !== "" && target.rest !== "/") throw NO_AGENT;
      if (req.method !== "POST")
        throw new Refusal(
          "METHOD_NOT_ALLOWED",
          "Send A2A JSON-RPC requests with POST; the agent's card is at .well-known/agent-card.json",
          {
            allow: "POST",
          },
        );
      if (!exposed) throw NO_AGENT;
      await serveRpc(req, res, exposed);
    } catch (err) {
      if (!(err instanceof DomainError)) log.error("an A2A request failed", err);
      refuse(res, err instanceof DomainError ? err : new DomainError("INTERNAL_ERROR", INTERNAL_MESSAGE));
    }
  };
}
