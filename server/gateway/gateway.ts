// The model gateway (docs/gateway.md): hosted agents call OpenAI's and
// Anthropic's APIs here instead of the vendor. Each request carries a token
// bound to one run; Rein's router picks the model, the run's cap and budgets
// apply before the call, and every call is a model.turn on the run. The
// vendor's key never leaves Rein.
import fs from "node:fs";
import http from "node:http";
import { anthropicOrOpenAI } from "./protocol";
import { GatewayRefusal, errorAnswer, refusalOf } from "./errors";
import { refusalFor, type Exchange } from "./exchange";
import { readJson, sendJson } from "./http";
import { chatCompletions } from "./openai-chat";
import { messages } from "./anthropic";
import { countMessageTokens } from "./count-tokens";
import { listModels } from "./models-list";
import { responses } from "./responses";
import { TokenTable, presentedTokens } from "./tokens";
import { ClientGone, type Binding } from "./turn";
import type { GatewayDeps, GatewayRun, Protocol } from "./types";

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
 * Requests one run may have in flight at once (docs/gateway.md#limits): each
 * may hold a body of up to MAX_BODY_BYTES, and a budget is checked before a
 * call and charged after it, so calls at once could pass it together.
 */
export const MAX_IN_FLIGHT = 4;
/** Connections to one run's socket at once, and how long a request may take to arrive. */
const MAX_CONNECTIONS = 16;
const REQUEST_TIMEOUT_MS = 60_000;
const HEADERS_TIMEOUT_MS = 10_000;

const UNAUTHORIZED =
  "This request needs the token of a running Rein run: send it as 'Authorization: Bearer <token>' or 'x-api-key: <token>'. A token stops working when its run's agent stops.";

export class ModelGateway {
  private readonly tokens = new TokenTable<Binding>();

  constructor(private readonly deps: GatewayDeps) {}

  /** A random bearer token valid until unbind(), for one run. */
  bind(run: GatewayRun): { token: string; unbind(): void } {
    const binding: Binding = {
      run,
      boundAt: Date.now(),
      calls: 0,
      lastStep: 0,
      unbound: new AbortController(),
      recorded: new Set(),
      inFlight: 0,
    };
    const { token, revoke } = this.tokens.issue(binding);
    return {
      token,
      unbind() {
        revoke();
        binding.unbound.abort(new Error("The run's gateway token was unbound"));
      },
    };
  }

  /** Runs bound now. */
  get bound(): number {
    return this.tokens.size;
  }

  /** Node http handler for /v1/...; 404 for other paths. */
  async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://gateway").pathname;
    const route = GATEWAY_ROUTES.find((r) => r.path === path);
    // GET /v1/models serves both vendors' clients: an Anthropic client is told no in Anthropic's words.
    const protocol = route?.path === "/v1/models" || !route ? anthropicOrOpenAI(req, path) : route.protocol;
    const client = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) client.abort(new ClientGone());
    });
    let binding: Binding | null = null;
    let counted = false;
    try {
      if (!route) throw new GatewayRefusal("not_found", `The model gateway has no endpoint ${path.slice(0, 200)}`);
      binding = this.authenticate(req);
      if (req.method !== route.method)
        throw new GatewayRefusal("method_not_allowed", `${path} takes ${route.method} only`, { allow: route.method });
      if (binding.inFlight >= MAX_IN_FLIGHT)
        throw new GatewayRefusal("rate_limited", `This run already has ${MAX_IN_FLIGHT} model requests in flight; wait for one to end`);
      binding.inFlight++;
      counted = true;
      const body = route.method === "POST" ? await readJson(req) : undefined;
      await route.serve({ deps: this.deps, binding, req, res, signal: client.signal }, body);
    } catch (err) {
      if (err instanceof ClientGone || client.signal.aborted) return;
      const refusal = binding ? refusalFor({ deps: this.deps, binding }, err) : refusalOf(err);
      const answer = errorAnswer(protocol, refusal);
      sendJson(res, answer.status, answer.body, answer.headers);
    } finally {
      if (counted && binding) binding.inFlight--;
    }
  }

  /** Serves handle() on a unix socket only this user may open (mode 0600), for a sandbox with no network. */
  async listen(socketPath: string): Promise<{ close(): Promise<void> }> {
    // A socket left by a server that died is replaced; any other file there is not touched.
    const existing = await fs.promises.lstat(socketPath).catch(() => null);
    if (existing?.isSocket()) await fs.promises.rm(socketPath);
    const server = http.createServer(
      { requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS },
      (req, res) => void this.handle(req, res),
    );
    server.maxConnections = MAX_CONNECTIONS;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, () => resolve());
    });
    await fs.promises.chmod(socketPath, 0o600);
    return {
      close: async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await fs.promises.rm(socketPath, { force: true });
      },
    };
  }

  private authenticate(req: http.IncomingMessage): Binding {
    for (const token of presentedTokens(req)) {
      const binding = this.tokens.lookup(token);
      if (binding) return binding;
    }
    throw new GatewayRefusal("unauthorized", UNAUTHORIZED, { "www-authenticate": 'Bearer realm="rein-gateway"' });
  }
}
