// Rein's server: Next.js pages, Auth.js, tRPC, REST v1 and socket.io on one port,
// plus the in-process worker pool that executes runs
// (docs/architecture.md#one-process-one-port). With several machines
// (docs/several-machines.md#how-it-fits-together, REDIS_URL set) a process is
// either a web process (everything but executing runs, which go to the queue) or a
// worker (executes runs; serves /api/health and its desktops to the web processes).
import crypto from "node:crypto";
import http from "node:http";
import { ConfigError, DataDirLockedError, acquireDataDirLock, loadConfig, type ReinConfig } from "@/server/config";
import { isEchoOfLostWork, type Db } from "@/server/db";
import { listProcesses, type Cluster } from "@/server/cluster";
import { LoginThrottle, NO_FRAMING, authenticateRequest, forgeryRefusal, logIn, nonJsonBody, scheduleFromEnv } from "@/server/identity";
import { composeServices, loopbackHost, openDatabase, readVitals, startVitals, type App, type Started } from "@/server/app";
import { createTrpcHandler } from "@/server/api";
import { SLACK_ACTIONS_PATH, createA2aHandler, createRestHandler, isA2aPath } from "@/server/channels";
import { createMcpHandler, isMcpPath } from "@/server/mcp-server";
import { handleOAuthCallback, isOAuthCallbackPath } from "@/server/mcp-client";
import { attachRealtime, attachVncProxy } from "@/server/realtime";
import { createAdapter as redisStreamsAdapter } from "@socket.io/redis-streams-adapter";
import { handleDemoSite } from "@/server/demo-site";
import { GATEWAY_PATH } from "@/server/gateway";
import { attachDeviceSocket, createDeviceEndpoints, installDeviceHub, isDevicePath } from "@/server/devices";
import type { ModelCatalog } from "@/server/models";
import { recordAudit } from "@/server/audit";
import { DomainError, httpErrorBody } from "@/server/errors";
import { CLIENT_ADDRESS_HEADER, installAuthBridge } from "@/lib/auth-bridge";

const PUBLIC_PREFIXES = ["/_next/", "/api/auth/", "/login", "/favicon", "/public/"];
/** Pages anyone may open: accepting an invitation, setting a password from a reset link (their token is the authority). */
const PUBLIC_PAGES = /^\/(invite|reset)(\?|$)/;

const log = {
  info: (m: string) => console.log(m),
  error: (m: string, e?: unknown) => (e === undefined ? console.error(m) : console.error(m, e)),
};

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void> | void;

/** The key that seals /mcp's questions on 2026-07-28 (docs/mcp-server.md#human-requests), derived from the server's secret. */
const mcpStateKey = (authSecret: string) => crypto.createHmac("sha256", authSecret).update("rein mcp request state").digest();

function fail(message: string): never {
  console.error(`\n${message}\n`);
  process.exit(1);
}

async function main() {
  let config: ReinConfig;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  startVitals();
  // One process per data directory; several machines share theirs on purpose (workspaces live there).
  let lock: { release(): void } = { release() {} };
  if (!config.redisUrl) {
    try {
      lock = acquireDataDirLock(config.dataDir);
    } catch (err) {
      if (err instanceof DataDirLockedError) fail(`Rein cannot start: ${err.message}`);
      throw err;
    }
  }

  const { db, pending, newer } = await openDatabase(config);
  if (newer.length) {
    lock.release();
    fail(
      `Rein cannot start: the database at ${config.databaseUrl} was migrated by a newer Rein (${newer.slice(0, 3).join(", ")}${newer.length > 3 ? ", …" : ""}), which this one does not know. Start that version or a later one; an older Rein never opens a newer database.`,
    );
  }
  if (pending.length) {
    lock.release();
    fail(
      `Rein cannot start: the database at ${config.databaseUrl} needs migrations (${pending.join(", ")}). Run npm start or npm run up, which apply them.`,
    );
  }
  guardProcess(config.role);
  const app = await composeServices(config, db, log);
  const { services, cluster } = app;
  if (cluster?.role === "worker") return runWorker(app, cluster, config);

  process.env.NEXTAUTH_SECRET = config.authSecret;
  process.env.NEXTAUTH_URL ??= config.publicUrl;
  installLogin(db);

  let nextHandler: Handler | null = null;
  if (config.ui) {
    const { default: next } = await import("next");
    const nextApp = next({ dev: process.env.NODE_ENV !== "production", dir: process.cwd(), port: config.port });
    await nextApp.prepare();
    nextHandler = nextApp.getRequestHandler();
  }

  // Invitation and reset links point at REIN_PUBLIC_URL when it is set, else at the address the admin's page used.
  const linksUrl = process.env.REIN_PUBLIC_URL ? config.publicUrl : undefined;
  const handleRequest = routeRequests(config, app, {
    trpc: createTrpcHandler(services, { authSecret: config.authSecret, publicUrl: linksUrl }),
    rest: createRestHandler(services, { authSecret: config.authSecret, publicUrl: linksUrl }),
    // The same key in every process of one Rein: a client's answers to wait_for_run's questions may reach any of them.
    mcp: createMcpHandler(services, { publicUrl: config.publicUrl, log, stateKey: mcpStateKey(config.authSecret) }),
    a2a: createA2aHandler(services, { publicUrl: config.publicUrl, log }),
    devices: createDeviceEndpoints({ db }),
    next: nextHandler,
  });
  // The handler catches its own errors (routeRequests); Node ignores what a request listener returns.
  const server = http.createServer((req, res) => void handleRequest(req, res));
  // A web process of several machines shows the workers' pods: a run's terminal lives where it executes.
  const terminalSource = cluster ? await cluster.terminals(app.terminals) : app.terminals;
  const io = attachRealtime(server, services, {
    terminals: terminalSource,
    requests: app.socketRequests,
    authSecret: config.authSecret,
    publicUrl: config.publicUrl,
    // Several web processes share their sockets' rooms through Redis Streams.
    ...(cluster ? { adapter: redisStreamsAdapter(cluster.redis) } : {}),
  });
  // The desktops' VNC websocket (/vnc/<runId>) and the Desktop tab's messages: the desktop tier's pool, or
  // on a web process of several machines the workers' desktops, reached through their signed tunnels.
  const desktopSource = cluster ? await cluster.remoteDesktops({ secret: config.authSecret }) : app.desktops;
  const vnc = attachVncProxy(server, {
    db,
    kernel: services.kernel,
    io,
    desktops: desktopSource,
    authSecret: config.authSecret,
    publicUrl: config.publicUrl,
  });

  // Devices connect out to this process (docs/devices.md#the-socket): a token in their first frame, never a cookie.
  const devices = app.services.devices;
  installDeviceHub(app.devicePresence);
  attachDeviceSocket(server, devices, { publicUrl: config.publicUrl });

  server.on("error", (err: NodeJS.ErrnoException) => {
    lock.release();
    fail(
      err.code === "EADDRINUSE"
        ? `Rein cannot start: port ${config.port} is in use. Set PORT to another port.`
        : `Rein cannot start: ${err.message}`,
    );
  });
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  printReady(config, app, await app.start());

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    console.log(`\n${signal}: stopping; runs in progress resume on the next start`);
    vnc.close();
    devices.close();
    await app.stop(() => {
      // Not awaited, as before: the process exits below; a failure to close the adapter is only logged.
      void io.close().catch((err) => console.error("closing the socket server failed", err));
      server.close();
    });
    lock.release();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

/** What the process does with an error nobody handled. */
function guardProcess(role: ReinConfig["role"]) {
  // Prisma ends a transaction whose connection PostgreSQL has already closed (a process frozen past the
  // idle-in-transaction limit, a database restart) from a timer nobody awaits, and a thawed worker's late
  // write for a run another worker took is refused. The loss itself is handled
  // where the transaction was used; only its echo lands here. Anything else still stops the process.
  process.on("unhandledRejection", (err) => {
    if (isEchoOfLostWork(err))
      return log.error("a database connection was lost, or a run was taken over, while a write was being ended; Rein goes on", err);
    console.error("Rein stops on an unhandled error:", err);
    process.exit(1);
  });
  // A throw nobody caught (a library's timer, a listener) is logged with where it came from and Rein keeps
  // serving: one bad input must not end every run's terminal and socket. Many in a minute mean the process
  // is broken, and it stops so that its supervisor starts a clean one (docs/architecture.md#errors-nobody-caught).
  const uncaught: number[] = [];
  process.on("uncaughtException", (err, origin) => {
    const now = Date.now();
    uncaught.push(now);
    while (uncaught.length && uncaught[0] < now - 60_000) uncaught.shift();
    log.error(`an error nobody caught (${origin}, role ${role}); Rein keeps serving`, err);
    if (uncaught.length > 10) {
      console.error("Rein stops: more than 10 errors nobody caught in a minute");
      process.exit(1);
    }
  });
}

/** Auth.js's password check: Rein's own login, with its throttle, and every failure in the audit log. */
function installLogin(db: Db) {
  const loginThrottle = new LoginThrottle(scheduleFromEnv());
  installAuthBridge({
    async verifyCredentials(email, password, address) {
      const actor = await logIn(
        {
          db,
          throttle: loginThrottle,
          onFailure: (f) =>
            void recordAudit(db, {
              kind: "login.failed",
              actorId: null,
              channel: "login",
              subject: f.email,
              detail: { address: f.address, reason: f.reason },
            }).catch((err) => console.error("could not audit a failed login", err)),
        },
        { email, password, address: address ?? null },
      );
      return actor ? { id: actor.userId, email: actor.email, name: actor.name, sessionVersion: actor.sessionVersion ?? 0 } : null;
    },
  });
}

/** Every path of the one port (docs/architecture.md#one-process-one-port) to what serves it. */
function routeRequests(
  config: ReinConfig,
  app: App,
  handlers: { trpc: Handler; rest: Handler; mcp: Handler; a2a: Handler; devices: Handler; next: Handler | null },
) {
  const { db, system } = app.services;
  const { cluster, version } = system;
  return async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = req.url ?? "/";
    // No page of another site may frame Rein and have a person click in it; the demo site is public and framed by nobody's session.
    if (!url.startsWith("/demo-site")) for (const [name, value] of Object.entries(NO_FRAMING)) res.setHeader(name, value);
    try {
      if (url === "/api/health" || url.startsWith("/api/health?"))
        return await health(req, res, { db, cluster, version, authSecret: config.authSecret });
      // MCP clients (docs/mcp-server.md#security): API tokens only, with the MCP transport's own Origin and body checks.
      if (isMcpPath(url)) return await handlers.mcp(req, res);
      // The model gateway for team keys (docs/gateway.md#team-keys): a key in a header is its only authority (no cookie, so no cross-site risk).
      if (url.startsWith(`${GATEWAY_PATH}/`)) return await app.services.gatewayKeys.handle(req, res);
      // Devices (docs/devices.md#pairing): a pairing code is the only authority of /api/devices/pair (no cookie, so no cross-site risk); the agent's tarball is public.
      if (isDevicePath(url)) return await handlers.devices(req, res);
      // A2A agents (docs/a2a.md#security): public signed cards, and tasks with API tokens only (no cookie, so no cross-site risk).
      if (isA2aPath(url)) return await handlers.a2a(req, res);
      // An authorization server sending an admin back (docs/mcp.md#oauth): a cross-site GET whose state only that admin's session can finish.
      if (isOAuthCallbackPath(url))
        return await handleOAuthCallback(req, res, {
          db,
          authSecret: config.authSecret,
          finish: (actor, query) => app.services.mcp.finishAuthorization(actor, query),
        });
      // Slack's button clicks carry no cookie: Slack's signature over the raw body is what makes them Slack's.
      if (url === SLACK_ACTIONS_PATH || url.startsWith(`${SLACK_ACTIONS_PATH}?`)) return await app.slackActions(req, res);
      // Rein's demo site is public and carries no authority; everything else that changes state comes from Rein's pages or a token.
      if (!url.startsWith("/demo-site")) {
        const forged = forgeryRefusal(req, config.publicUrl);
        if (forged) return refuseRequest(res, new DomainError("CROSS_ORIGIN", forged));
        const notJson = url.startsWith("/api/trpc/") || url.startsWith("/api/v1") ? nonJsonBody(req) : null;
        if (notJson) return refuseRequest(res, new DomainError("UNSUPPORTED_MEDIA_TYPE", notJson));
      }
      // The login throttle's per-address count: the socket's address, never what the client claims.
      if (url.startsWith("/api/auth/")) req.headers[CLIENT_ADDRESS_HEADER] = req.socket.remoteAddress ?? "";
      if (url.startsWith("/api/trpc/")) return handlers.trpc(req, res);
      // Rein's demo site: public, for the demo-browser agent's desktop, which has no login.
      if (url.startsWith("/demo-site") && (await handleDemoSite(req, res))) return;
      if (url.startsWith("/api/v1/") || url === "/api/v1") return await handlers.rest(req, res);
      if (!handlers.next) {
        res.writeHead(404, { "content-type": "application/json" });
        return res.end(JSON.stringify({ error: { code: "NOT_FOUND", message: "The web UI is off (REIN_UI=off)" } }));
      }
      if (!PUBLIC_PREFIXES.some((p) => url.startsWith(p)) && !PUBLIC_PAGES.test(url) && !url.startsWith("/api/")) {
        const actor = await authenticateRequest(db, req, config.authSecret);
        if (!actor) {
          res.writeHead(302, { location: `/login?next=${encodeURIComponent(url)}` });
          return res.end();
        }
      }
      await handlers.next(req, res);
    } catch (err) {
      console.error("request failed", err);
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end("Internal error");
    }
  };
}

/** The start-up message: where Rein is, how to log in, and what it found and started. */
function printReady(config: ReinConfig, app: App, started: Started) {
  const { cluster, admin, sandbox, desktops, tierSettings } = app;
  const { improved, mcp, picked, evals, answered } = started;
  console.log(
    `\nRein is ready at ${config.publicUrl}${cluster ? ` (web process ${cluster.registry.id}; runs execute on the workers)` : ""}`,
  );
  if (admin?.generatedPassword) {
    console.log(`  First start: log in as ${admin.email} with password ${admin.generatedPassword}`);
    console.log(`  (shown only this once; set REIN_ADMIN_EMAIL and REIN_ADMIN_PASSWORD to choose your own)`);
  } else if (admin?.created) {
    console.log(`  Log in as ${admin.email} with the password from REIN_ADMIN_PASSWORD`);
  } else {
    console.log(`  Log in with your Rein account${config.adminEmail ? ` (admin: ${config.adminEmail})` : ""}`);
  }
  console.log(`  ${modelsLine(app.catalog.snapshot)}`);
  if (sandbox.ok) console.log(`  ${sandbox.message}`);
  else if (config.sandbox === "none") console.log(`  WARNING: ${sandbox.message}. REIN_SANDBOX=none: agent shells run WITHOUT a sandbox.`);
  else console.log(`  WARNING: ${sandbox.message}. Runs cannot use the shell (set REIN_SANDBOX=none to run shells without a sandbox).`);
  const noDesktop = desktops.unavailable();
  if (!tierSettings.T2.enabled) console.log(`  Desktops (T2) are turned off in Settings › Tiers`);
  else if (noDesktop) console.log(`  ${noDesktop}`);
  else console.log(`  Desktops (T2): Xvfb, Chromium and x11vnc on loopback; ${desktops.stats().size} kept warm`);
  if (picked.resumed || picked.queued) console.log(`  Resuming ${picked.resumed} interrupted and ${picked.queued} queued run(s)`);
  if (evals.resumed) console.log(`  Continuing ${evals.resumed} experiment(s)`);
  if (improved.tools) console.log(`  ${improved.tools} runtime tool(s) live`);
  if (improved.extensions) console.log(`  ${improved.extensions} extension(s) installed`);
  if (improved.cycles.abandoned)
    console.log(`  ${improved.cycles.abandoned} hack cycle(s) could not go on after the restart and were abandoned`);
  if (improved.changes)
    console.log(`  ${improved.changes} change request(s) had their checks cut short by the restart; run them again from their page`);
  if (mcp.servers) console.log(`  ${mcp.servers} MCP server(s) attached; they start in the background (Settings › MCP servers)`);
  if (mcp.leftovers) console.log(`  Stopped ${mcp.leftovers} MCP server process(es) a previous Rein left running`);
  if (answered) console.log(`  ${answered} run(s) waiting for a person were answered while Rein was down; they continue`);
}

/**
 * /api/health: this process (its role, and with several machines its queue,
 * leases and streams); every process of the deployment for an admin's
 * session or API token (hosts and pids are not for everyone). 503 while this
 * process has lost PostgreSQL's liveness lock or Redis.
 */
async function health(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  deps: { db: Db; cluster: Cluster | null; version: string; authSecret: string },
) {
  const body: Record<string, unknown> = { status: "ok", role: deps.cluster?.role ?? "all", version: deps.version };
  // Only a request that carries a session or a token is looked up: a load balancer's probe costs no query.
  const credentials = Boolean(req.headers.authorization || req.headers.cookie);
  const admin = credentials && (await authenticateRequest(deps.db, req, deps.authSecret).catch(() => null))?.role === "admin";
  // Memory and the event loop's delay (docs/operations.md#watching-a-server): for admins only.
  if (admin) body.vitals = readVitals();
  if (deps.cluster) {
    const me = await deps.cluster.health();
    if (!me.alive || me.redis !== "ready") body.status = "degraded";
    if (admin) {
      body.process = me;
      body.processes = await listProcesses(deps.db).catch(() => null);
    } else {
      // The process's id names its host and pid: for admins only.
      const { id: _id, ...figures } = me;
      body.process = figures;
    }
  }
  res.writeHead(body.status === "ok" ? 200 : 503, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

/**
 * A worker process (several machines): executes the runs it wins from the
 * queue and serves /api/health (and its desktops to the web processes). SIGTERM lets each run end its step and
 * hands it back, so another worker resumes it within about a second.
 */
async function runWorker(app: App, cluster: Cluster, config: ReinConfig): Promise<void> {
  const { db, system } = app.services;
  const desktopTunnels = await app.startWorker();
  const server = http.createServer((req, res) => {
    const url = req.url ?? "/";
    if (url === "/api/health" || url.startsWith("/api/health?")) {
      void health(req, res, { db, cluster, version: system.version, authSecret: config.authSecret }).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
      return;
    }
    // Rein's demo site, for the demo-browser agent's desktop here (it reaches only this port).
    if (url.startsWith("/demo-site")) {
      void handleDemoSite(req, res)
        .then((handled) => {
          if (!handled) notFound(res);
        })
        .catch(() => {
          if (!res.headersSent) res.writeHead(500);
          res.end();
        });
      return;
    }
    notFound(res);
  });
  server.on("upgrade", (req, socket) => {
    if (!desktopTunnels.handleUpgrade(req, socket)) socket.destroy();
  });
  server.on("error", (err: NodeJS.ErrnoException) =>
    fail(
      err.code === "EADDRINUSE"
        ? `Rein's worker cannot start: port ${config.port} is in use. Set PORT to another port.`
        : `Rein's worker cannot start: ${err.message}`,
    ),
  );
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  console.log(`\nRein worker ${cluster.registry.id} is executing runs (up to ${config.workers} at once)`);
  console.log(`  Health: http://${loopbackHost(config.host)}:${config.port}/api/health`);
  console.log(`  Web processes reach its desktops at ${config.internalUrl}`);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    console.log(`\n${signal}: handing this worker's runs back; other workers resume them`);
    await app.stop(() => server.close());
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

function notFound(res: http.ServerResponse) {
  res.writeHead(404, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      error: {
        code: "NOT_FOUND",
        message: "This is a Rein worker: it executes runs and serves only /api/health. Open a web process instead.",
      },
    }),
  );
}

/** A refused request: a JSON error, and the connection closed (its body is never read). */
function refuseRequest(res: http.ServerResponse, refusal: DomainError) {
  const { status, body } = httpErrorBody(refusal);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", connection: "close" });
  res.end(JSON.stringify(body));
}

main().catch((err) => {
  console.error("Rein failed to start:", err);
  process.exit(1);
});

/** What runs will use, for the start-up message: the configured providers and models, or the scripted demo model. */
function modelsLine(snapshot: ModelCatalog["snapshot"]): string {
  const providers = snapshot.providers.size;
  const models = snapshot.models.size;
  if (!providers) return "Model: the built-in scripted demo model (no provider configured)";
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  return `Models: ${plural(providers, "provider")} and ${plural(models, "model")} configured (Settings › Models); the demo agents use the scripted model unless a run picks another`;
}
