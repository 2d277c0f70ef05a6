// The gateway's request loop, shared by run tokens on unix sockets and team
// keys on Rein's own port (docs/gateway.md): the route, the caller, the
// in-flight cap, the body, and every refusal in the vendor's own shape.
import type http from "node:http";
import { anthropicOrOpenAI } from "./protocol";
import { GatewayRefusal, errorAnswer, refusalOf } from "./errors";
import { refusalFor, type Exchange } from "./exchange";
import { readJson, sendJson } from "./http";
import { chatCompletions } from "./openai-chat";
import { messages } from "./anthropic";
import { countMessageTokens } from "./count-tokens";
import { listModels } from "./models-list";
import { responses } from "./responses";
import { ClientGone, type Caller } from "./turn";
import type { GatewayLog, Protocol } from "./types";

interface Route {
  method: "GET" | "POST";
  path: string;
  protocol: Protocol;
  serve(x: Exchange, body: unknown): Promise<void>;
}

/** The endpoints (docs/gateway.md#endpoints). */
export const GATEWAY_ROUTES: readonly Route[] = [
  { method: "POST", path: "/v1/chat/completions", protocol: "openai", serve: chatCompletions },
  { method: "POST", path: "/v1/responses", protocol: "openai", serve: responses },
  { method: "POST", path: "/v1/messages", protocol: "anthropic", serve: messages },
  { method: "POST", path: "/v1/messages/count_tokens", protocol: "anthropic", serve: countMessageTokens },
  { method: "GET", path: "/v1/models", protocol: "openai", serve: listModels },
];

/**
 * Requests one run or one team key may have in flight at once
 * (docs/gateway.md#limits): each may hold a body of up to MAX_BODY_BYTES, and
 * a budget is checked before a call and charged after it, so calls at once
 * could pass it together.
 */
export const MAX_IN_FLIGHT = 4;

/** Serves one request at `path` (/v1/...) for whoever `authenticate` finds; 404 for other paths. */
export async function serveGatewayRequest(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  opts: { path: string; log: GatewayLog; authenticate(req: http.IncomingMessage): Caller | Promise<Caller> },
): Promise<void> {
  const { path, log } = opts;
  const route = GATEWAY_ROUTES.find((r) => r.path === path);
  // GET /v1/models serves both vendors' clients: an Anthropic client is told no in Anthropic's words.
  const protocol = route?.path === "/v1/models" || !route ? anthropicOrOpenAI(req, path) : route.protocol;
  const client = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) client.abort(new ClientGone());
  });
  let caller: Caller | null = null;
  let counted = false;
  try {
    if (!route) throw new GatewayRefusal("not_found", `The model gateway has no endpoint ${path.slice(0, 200)}`);
    caller = await opts.authenticate(req);
    if (req.method !== route.method)
      throw new GatewayRefusal("method_not_allowed", `${path} takes ${route.method} only`, { allow: route.method });
    if (caller.inFlight >= MAX_IN_FLIGHT)
      throw new GatewayRefusal(
        "rate_limited",
        `This ${caller.kind} already has ${MAX_IN_FLIGHT} model requests in flight; wait for one to end`,
      );
    caller.inFlight++;
    counted = true;
    const body = route.method === "POST" ? await readJson(req) : undefined;
    await route.serve({ log, caller, req, res, signal: client.signal }, body);
  } catch (err) {
    if (err instanceof ClientGone || client.signal.aborted) return;
    const refusal = caller ? refusalFor({ log, caller }, err) : refusalOf(err);
    if (!caller && !(err instanceof GatewayRefusal)) log.error("model gateway: a request failed before its caller was known", err);
    const answer = errorAnswer(protocol, refusal);
    sendJson(res, answer.status, answer.body, answer.headers);
  } finally {
    if (counted && caller) caller.inFlight--;
  }
}
