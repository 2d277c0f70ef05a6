// The model gateway (docs/gateway.md): hosted agents call OpenAI's and
// Anthropic's APIs here instead of the vendor. Each request carries a token
// bound to one run; Rein's router picks the model, the run's cap and budgets
// apply before the call, and every call is a model.turn on the run. The
// vendor's key never leaves Rein.
import fs from "node:fs";
import http from "node:http";
import { GatewayRefusal } from "./errors";
import { GATEWAY_MODEL_ALIAS } from "./models-list";
import { serveGatewayRequest } from "./serve";
import { TokenTable, presentedTokens } from "./tokens";
import { serveTurn, type Binding, type Caller } from "./turn";
import type { GatewayDeps, GatewayRun } from "./types";

export { GATEWAY_ROUTES, MAX_IN_FLIGHT } from "./serve";

/** Connections to one run's socket at once, and how long a request may take to arrive. */
const MAX_CONNECTIONS = 16;
const REQUEST_TIMEOUT_MS = 60_000;
const HEADERS_TIMEOUT_MS = 10_000;

const UNAUTHORIZED =
  "This request needs the token of a running Rein run: send it as 'Authorization: Bearer <token>' or 'x-api-key: <token>'. A token stops working when its run's agent stops.";

export class ModelGateway {
  private readonly tokens = new TokenTable<Caller>();

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
    };
    const deps = this.deps;
    const caller: Caller = {
      label: `run ${run.runId}`,
      kind: "run",
      inFlight: 0,
      models: () => ({ ids: [...new Set([run.model, GATEWAY_MODEL_ALIAS, ...(run.advertised ?? [])])], since: binding.boundAt }),
      turn: (request) => serveTurn(deps, binding, request),
    };
    const { token, revoke } = this.tokens.issue(caller);
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
  handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://gateway").pathname;
    return serveGatewayRequest(req, res, { path, log: this.deps.log, authenticate: (r) => this.authenticate(r) });
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

  private authenticate(req: http.IncomingMessage): Caller {
    for (const token of presentedTokens(req)) {
      const caller = this.tokens.lookup(token);
      if (caller) return caller;
    }
    throw new GatewayRefusal("unauthorized", UNAUTHORIZED, { "www-authenticate": 'Bearer realm="rein-gateway"' });
  }
}
