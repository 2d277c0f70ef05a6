// Rein's server: Next.js pages, Auth.js, tRPC, REST v1 and socket.io on one port,
// plus the in-process worker pool that executes runs
// (docs/architecture.md#one-process-one-port). With several machines
// (docs/several-machines.md#how-it-fits-together, REDIS_URL set) a process is
// either a web process (everything but executing runs, which go to the queue) or a
// worker (executes runs; serves /api/health and its desktops to the web processes).
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { ConfigError, DataDirLockedError, acquireDataDirLock, loadConfig, type ReinConfig } from "@/server/config";
import {
  closeNativeSqlite,
  dbDialect,
  isTransientDbError,
  openDb,
  openNativeSqlite,
  pendingMigrations,
  startWalCheckpointer,
  type Db,
} from "@/server/db";
import { joinCluster, listProcesses, type Cluster } from "@/server/cluster";
import {
  LoginThrottle,
  NO_FRAMING,
  authenticateRequest,
  bootstrapAdmin,
  forgeryRefusal,
  logIn,
  nonJsonBody,
  scheduleFromEnv,
} from "@/server/identity";
import { createKernel, event } from "@/server/kernel";
import { ExperimentRunner, seedBuiltinDatasets } from "@/server/evals";
import { Improve, closeSandboxWorkers, seedDemoRepository } from "@/server/improve";
import { createTrpcHandler } from "@/server/api";
import {
  ChannelDispatcher,
  EmailChannel,
  SLACK_ACTIONS_PATH,
  SlackChannel,
  Webhooks,
  createSlackActionsHandler,
  createMcpHandler,
  createRestHandler,
  isMcpPath,
} from "@/server/channels";
import { attachRealtime, attachVncProxy } from "@/server/realtime";
import { createAdapter as redisStreamsAdapter } from "@socket.io/redis-streams-adapter";
import {
  DEFAULT_LIMITS,
  DesktopPool,
  PodPool,
  configureEgress,
  configureJail,
  desktopPoolSizeFromEnv,
  fileServices,
  probeSandbox,
} from "@/server/compute";
import { TierController, connectTiers, defaultTierSettings, readTierSettings } from "@/server/tiers";
import { handleDemoSite } from "@/server/demo-site";
import { HitlBroker, HumanGate, RequestBus, connectHitl, ladderFromEnv, openLinkKeyRing, type Hitl } from "@/server/hitl";
import { PolicyGate } from "@/server/policy";
import { setPrice, startTelemetry } from "@/server/telemetry";
import { Budgets, CircuitBreaker, RateLimiter, guardModel, rpsFromEnv } from "@/server/limits";
import { DefaultModelRouter, ModelAdmin, ModelCatalog } from "@/server/models";
import { loadSecretKeyring } from "@/server/secrets";
import { McpElicitations, McpServers } from "@/server/mcp";
import { MemoryStore, createRunMemory, memoryTools, startMemoryListener } from "@/server/memory";
import { auditWriter, recordAudit } from "@/server/audit";
import { DomainError, httpErrorBody } from "@/server/errors";
import { CLIENT_ADDRESS_HEADER, installAuthBridge } from "@/lib/auth-bridge";

const PUBLIC_PREFIXES = ["/_next/", "/api/auth/", "/login", "/favicon", "/public/"];
/** Pages anyone may open: accepting an invitation, setting a password from a reset link (their token is the authority). */
const PUBLIC_PAGES = /^\/(invite|reset)(\?|$)/;

/** An address this machine reaches the server on, for the server's own desktops. */
function loopbackHost(host: string): string {
  if (host === "0.0.0.0" || host === "::" || host === "localhost") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}

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

  const db: Db = await openDb(config.databaseUrl);
  const postgres = dbDialect(db) === "postgres";
  const pending = await pendingMigrations(db, path.resolve("prisma", ...(postgres ? ["postgres", "migrations"] : ["migrations"])));
  if (pending.length) {
    lock.release();
    fail(
      `Rein cannot start: the database at ${config.databaseUrl} needs migrations (${pending.join(", ")}). Run npm start or npm run up, which apply them.`,
    );
  }
  const log = {
    info: (m: string) => console.log(m),
    error: (m: string, e?: unknown) => (e === undefined ? console.error(m) : console.error(m, e)),
  };
  // Prisma ends a transaction whose connection PostgreSQL has already closed (a process frozen past the
  // idle-in-transaction limit, a database restart) from a timer nobody awaits. The loss itself is handled
  // where the transaction was used; only its echo lands here. Anything else still stops the process.
  process.on("unhandledRejection", (err) => {
    if (isTransientDbError(err))
      return log.error("a database connection was lost while a transaction was being ended; Rein reconnects", err);
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
    log.error(`an error nobody caught (${origin}, role ${config.role}); Rein keeps serving`, err);
    if (uncaught.length > 10) {
      console.error("Rein stops: more than 10 errors nobody caught in a minute");
      process.exit(1);
    }
  });
  // Several machines: this process registers itself, holds its liveness lock and talks to the others through Redis.
  const cluster: Cluster | null =
    config.redisUrl && config.role !== "all"
      ? await joinCluster({
          db,
          databaseUrl: config.databaseUrl,
          redisUrl: config.redisUrl,
          role: config.role,
          version: reinVersion,
          prefix: config.redisPrefix,
          leaseTtlMs: config.leaseTtlMs,
          log,
        })
      : null;
  const runsHere = config.role !== "web";
  const admin = await bootstrapAdmin(db, { email: config.adminEmail, password: config.adminPassword });
  const sandbox = probeSandbox();
  // Workspace files are opened only in the file sandbox; without bubblewrap only an explicit REIN_SANDBOX=none opens them unconfined.
  configureJail({ allowUnsandboxed: config.sandbox === "none" });
  // A desktop's browser reaches nothing of this machine but Rein's demo site (and the public internet).
  configureEgress({ allow: [{ host: loopbackHost(config.host).replace(/^\[|\]$/g, ""), port: config.port, pathPrefix: "/demo-site" }] });
  // Tier settings (Settings › Tiers) size the warm pools; before an admin saves any, the environment does.
  const tierDefaults = defaultTierSettings({ terminal: config.podPoolSize, desktop: desktopPoolSizeFromEnv() });
  const { settings: tierSettings } = await readTierSettings(db, tierDefaults);
  const terminals = new PodPool({
    dataDir: config.dataDir,
    // A web process executes no run: it keeps no warm pods.
    size: tierSettings.T1.enabled && runsHere ? tierSettings.T1.poolSize : 0,
    limits: DEFAULT_LIMITS,
    sandbox,
    allowUnsandboxed: config.sandbox === "none",
    log: { info: (m) => console.log(m), error: (m, e) => console.error(m, e) },
  });
  await terminals.start();
  // T2: one desktop (Xvfb, openbox, Chromium, x11vnc) per run that moves up to it, some kept warm.
  const desktops = new DesktopPool({
    dataDir: config.dataDir,
    size: tierSettings.T2.enabled && runsHere ? tierSettings.T2.poolSize : 0,
    log: { info: (m) => console.log(m), error: (m, e) => console.error(m, e) },
  });
  await desktops.start();
  // Policy and people before every tool call (docs/human-requests-and-policy.md#how-a-call-is-decided).
  const ladder = ladderFromEnv(process.env.REIN_HITL_LADDER);
  const requests = new RequestBus();
  const policy = new PolicyGate(db, { onError: (err) => log.error("reloading the policy failed; the loaded one stays in force", err) });
  // The hot path's reads and writes (steps, decisions, spans, budgets) share one direct SQLite connection.
  const native = postgres ? null : openNativeSqlite(config.databaseUrl);
  // Its WAL checkpoints happen on a worker thread, not inside a step's commit.
  const walCheckpoints = native ? startWalCheckpointer(native, config.databaseUrl) : null;
  const gate = new HumanGate({ db, policy, ladder, audit: auditWriter(db, native), onCreated: (c) => requests.publish(c) });
  // Every model call waits for its provider's rate limit and skips a provider whose circuit is open.
  const guards = { limiter: new RateLimiter(rpsFromEnv(process.env.REIN_PROVIDER_RPS)), breaker: new CircuitBreaker() };
  // Configured providers and models (docs/models.md#providers); their API keys are secrets sealed with the data directory's key.
  const keyring = loadSecretKeyring({ dataDir: config.dataDir });
  const catalog = new ModelCatalog({ db, keyring, log });
  await catalog.reload();
  const router = new DefaultModelRouter({ scriptedDelayMs: config.scriptedDelayMs, guard: (m) => guardModel(m, guards), catalog });
  const kernel = await createKernel({
    terminals,
    gate,
    router,
    keyring,
    db,
    native: native ?? undefined,
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    workers: config.workers,
    scriptedDelayMs: config.scriptedDelayMs,
    // Several machines: fenced writes and relayed events; a run to execute always goes to the queue, so it
    // executes only where its lease was won (a worker's queue consumer drives it through the pool).
    ...(cluster ? { fences: cluster.held, bus: cluster.bus, remote: cluster.remote, enqueue: cluster.enqueue } : {}),
  });
  // The built-in demo dataset, as createKernel seeds the built-in agents.
  await seedBuiltinDatasets(db);
  // The demo repository for reviewed changes (tier 4); without git the rest of Rein still starts.
  await seedDemoRepository(db, config.dataDir).catch((err) => log.error("the demo repository could not be set up", err));
  // Provider keys are redacted from the moment they are saved, not when the redactor next looks.
  catalog.onKeys((keys) => kernel.secrets?.redactor.remember(keys));
  const broker = new HitlBroker({
    db,
    runs: kernel.store,
    enqueue: (runId) => kernel.enqueue(runId),
    onChange: (c) => requests.publish(c),
    validateArgs: (tool, args) => kernel.deps.registry.validate(tool, args),
    ladder,
    log,
  });
  connectHitl(kernel, broker, log);
  // Spans from the run event log (docs/traces-and-costs.md#how-spans-are-stored); runs whose spans fell behind are projected again first.
  const telemetry = await startTelemetry({ db, kernel, native, keyring, log });
  // Budgets before every model call read the spend the telemetry has written, plus what it still has queued.
  const budgets = new Budgets({
    db,
    native,
    flush: () => telemetry.sink.flush(),
    unwritten: (scope) => telemetry.sink.unwrittenCalls(scope),
    log,
  });
  kernel.deps.limits = budgets;
  // Compute tiers (docs/desktops-and-tiers.md): upgrade_tier, the desktop of a run on T2, idle and run-end downgrades.
  const tiers = new TierController({
    db,
    runs: kernel.store,
    specs: kernel.specs,
    budgets,
    terminals,
    desktops,
    workspaceFor: kernel.deps.workspaceFor,
    // The desktop's Chromium opens Rein's own pages (the demo site) on loopback.
    selfUrl: `http://${loopbackHost(config.host)}:${config.port}`,
    defaults: tierDefaults,
    log,
  });
  connectTiers(kernel, tiers, log);
  tiers.start();
  // MCP servers (docs/mcp.md): their enabled tools go through the same gate, cache and spans; stdio servers run in the sandbox.
  const mcp = new McpServers({
    db,
    registry: kernel.deps.registry,
    dataDir: config.dataDir,
    keyring,
    secrets: kernel.secrets?.redactor,
    warn: async (runId, payload) => void (await kernel.store.appendEvents(runId, [event("mcp.tools_omitted", payload)])),
    // A server asking a person during a call: a human request in the Inbox, with its TTL and signed link.
    elicitations: new McpElicitations({
      db,
      ladder,
      onRequestCreated: (c) => requests.publish(c),
      appendEvents: (runId, events) => kernel.store.appendEvents(runId, events),
      cancel: (id, reason) => broker.cancel(id, reason),
    }),
    log,
  });
  kernel.deps.mcp = mcp;
  // Memory that outlives a run: remember and recall, memories in each session's prompt, an episode per run.
  const memoryStore = new MemoryStore({ db });
  for (const tool of memoryTools(memoryStore, {
    db,
    specs: kernel.specs,
    redactor: kernel.secrets,
    appendEvents: (runId, events) => kernel.store.appendEvents(runId, events),
    onRequestCreated: (c) => requests.publish(c),
    ladder,
  })) {
    kernel.deps.registry.register(tool);
  }
  kernel.deps.memory = createRunMemory(memoryStore);
  const memory = startMemoryListener({ db, bus: kernel.bus, store: memoryStore, redactor: kernel.secrets, log });
  // Evals: an experiment's items run as ordinary runs through the pool above, scored when they end.
  const experiments = new ExperimentRunner({
    db,
    runs: kernel,
    store: kernel.store,
    workspaceFor: kernel.deps.workspaceFor,
    terminals,
    bus: kernel.bus,
    router,
    prices: telemetry.telemetry.prices,
    cancelRun: (runId, by) => kernel.pool.cancel(runId, by),
    log,
  });
  // Self-improvement (docs/improvements.md): friction from every run's events, hack cycles, live runtime tools.
  const improve = new Improve({
    db,
    kernel,
    onRequestCreated: (c) => requests.publish(c),
    ladder,
    log,
    changes: { broker, dataDir: config.dataDir },
  });
  requests.on(
    (change) =>
      void improve
        .onRequestChange(change)
        .catch((err) => log.error("a decision on a promotion or a change request could not be applied", err)),
  );
  const models = new ModelAdmin({
    db,
    keyring,
    catalog,
    async setPrice(input, actor) {
      await setPrice(db, input, actor);
      await telemetry.telemetry.loadPrices();
    },
  });
  const hitl: Hitl = { broker, links: { db, keys: openLinkKeyRing(config.dataDir), baseUrl: config.publicUrl } };
  // Outbound channels (docs/channels.md#the-outbox): the outbox the run stores write with the events goes out as signed
  // webhooks (and Slack and e-mail notices); every write nudges the dispatcher, which also looks once a second.
  const webhooks = new Webhooks({ db, keyring, publicUrl: config.publicUrl, log });
  // Approvers who asked for it get a mail per request with their own signed link (Settings › Channels › E-mail).
  const email = new EmailChannel({ db, keyring, links: hitl.links, requests: broker, log });
  // A request posts to its team's Slack channel with buttons; every copy is updated when anyone decides (Settings › Channels › Slack).
  const slack = new SlackChannel({ db, keyring, broker, links: hitl.links, publicUrl: config.publicUrl, log });
  const slackActions = createSlackActionsHandler({ db, keyring, broker, log });
  const dispatcher = new ChannelDispatcher({ db, webhooks, listeners: [email.onMessage, slack.onMessage], log });
  // Web processes send (a worker's outbox rows are in the database, which the dispatcher also reads every second).
  if (config.role !== "worker") {
    kernel.bus.onAny(() => dispatcher.kick());
    requests.on(() => dispatcher.kick());
  }
  // The Inbox's sockets hear every process's human requests (several machines).
  const socketRequests = cluster ? cluster.relayRequests(requests) : requests;

  if (cluster?.role === "worker") {
    return runWorker({ cluster, config, db, kernel, improve, mcp, memory, tiers, telemetry, terminals, desktops, log });
  }

  process.env.NEXTAUTH_SECRET = config.authSecret;
  process.env.NEXTAUTH_URL ??= config.publicUrl;
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

  let nextHandler: ((req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>) | null = null;
  if (config.ui) {
    const { default: next } = await import("next");
    const app = next({ dev: process.env.NODE_ENV !== "production", dir: process.cwd(), port: config.port });
    await app.prepare();
    nextHandler = app.getRequestHandler();
  }

  // Invitation and reset links point at REIN_PUBLIC_URL when it is set, else at the address the admin's page used.
  const linksUrl = process.env.REIN_PUBLIC_URL ? config.publicUrl : undefined;
  const trpc = createTrpcHandler({
    db,
    kernel,
    terminals,
    sandbox,
    hitl,
    policy,
    telemetry: telemetry.telemetry,
    telemetryControl: telemetry,
    models,
    tiers,
    keyring,
    authSecret: config.authSecret,
    publicUrl: linksUrl,
    experiments,
    improve,
    mcp,
    channels: { webhooks, dispatcher },
    system: { cluster, version: reinVersion },
  });
  const rest = createRestHandler({
    db,
    kernel,
    hitl,
    models,
    keyring,
    authSecret: config.authSecret,
    publicUrl: linksUrl,
    experiments,
    improve,
    mcp,
    webhooks,
  });
  const mcpEndpoint = createMcpHandler({ db, kernel, hitl, authSecret: config.authSecret, publicUrl: config.publicUrl, log });

  const handleRequest = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = req.url ?? "/";
    // No page of another site may frame Rein and have a person click in it; the demo site is public and framed by nobody's session.
    if (!url.startsWith("/demo-site")) for (const [name, value] of Object.entries(NO_FRAMING)) res.setHeader(name, value);
    try {
      if (url === "/api/health" || url.startsWith("/api/health?"))
        return await health(req, res, { db, cluster, authSecret: config.authSecret });
      // MCP clients (docs/mcp-server.md#security): API tokens only, with the MCP transport's own Origin and body checks.
      if (isMcpPath(url)) return await mcpEndpoint(req, res);
      // Slack's button clicks carry no cookie: Slack's signature over the raw body is what makes them Slack's.
      if (url === SLACK_ACTIONS_PATH || url.startsWith(`${SLACK_ACTIONS_PATH}?`)) return await slackActions(req, res);
      // Rein's demo site is public and carries no authority; everything else that changes state comes from Rein's pages or a token.
      if (!url.startsWith("/demo-site")) {
        const forged = forgeryRefusal(req, config.publicUrl);
        if (forged) return refuseRequest(res, new DomainError("CROSS_ORIGIN", forged));
        const notJson = url.startsWith("/api/trpc/") || url.startsWith("/api/v1") ? nonJsonBody(req) : null;
        if (notJson) return refuseRequest(res, new DomainError("UNSUPPORTED_MEDIA_TYPE", notJson));
      }
      // The login throttle's per-address count: the socket's address, never what the client claims.
      if (url.startsWith("/api/auth/")) req.headers[CLIENT_ADDRESS_HEADER] = req.socket.remoteAddress ?? "";
      if (url.startsWith("/api/trpc/")) return trpc(req, res);
      // Rein's demo site: public, for the demo-browser agent's desktop, which has no login.
      if (url.startsWith("/demo-site") && (await handleDemoSite(req, res))) return;
      if (url.startsWith("/api/v1/") || url === "/api/v1") return await rest(req, res);
      if (!nextHandler) {
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
      await nextHandler(req, res);
    } catch (err) {
      console.error("request failed", err);
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end("Internal error");
    }
  };
  // The handler catches its own errors (above); Node ignores what a request listener returns.
  const server = http.createServer((req, res) => void handleRequest(req, res));
  // A web process of several machines shows the workers' pods: a run's terminal lives where it executes.
  const terminalSource = cluster ? await cluster.terminals(terminals) : terminals;
  const io = attachRealtime(server, {
    db,
    kernel,
    terminals: terminalSource,
    requests: socketRequests,
    authSecret: config.authSecret,
    publicUrl: config.publicUrl,
    // Several web processes share their sockets' rooms through Redis Streams.
    ...(cluster ? { adapter: redisStreamsAdapter(cluster.redis) } : {}),
  });
  // The desktops' VNC websocket (/vnc/<runId>) and the Desktop tab's messages: the desktop tier's pool, or
  // on a web process of several machines the workers' desktops, reached through their signed tunnels.
  const desktopSource = cluster ? await cluster.remoteDesktops({ secret: config.authSecret }) : desktops;
  const vnc = attachVncProxy(server, {
    db,
    kernel,
    io,
    desktops: desktopSource,
    authSecret: config.authSecret,
    publicUrl: config.publicUrl,
  });

  server.on("error", (err: NodeJS.ErrnoException) => {
    lock.release();
    fail(
      err.code === "EADDRINUSE"
        ? `Rein cannot start: port ${config.port} is in use. Set PORT to another port.`
        : `Rein cannot start: ${err.message}`,
    );
  });
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  // Live runtime tools and MCP tools are in the registry before any run resumes.
  const improved = await improve.start();
  const mcpStarted = await mcp.start();
  // One process executes what the last one left; a web process leaves runs to the workers.
  const picked = cluster ? { resumed: 0, queued: 0 } : await kernel.pool.start();
  await cluster?.start(kernel, { concurrency: config.workers });
  const evals = await experiments.start();
  // Answers given while no server ran (another process, the CLI) take effect now; then the TTL ladder runs.
  const answered = await broker.reconcile();
  broker.start();
  // What was written while no server ran (or before a crash) goes out now, then as it comes.
  dispatcher.start();

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
  console.log(`  ${modelsLine(catalog.snapshot)}`);
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
  if (mcpStarted.servers)
    console.log(`  ${mcpStarted.servers} MCP server(s) attached; they start in the background (Settings › MCP servers)`);
  if (mcpStarted.leftovers) console.log(`  Stopped ${mcpStarted.leftovers} MCP server process(es) a previous Rein left running`);
  if (answered) console.log(`  ${answered} run(s) waiting for a person were answered while Rein was down; they continue`);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    console.log(`\n${signal}: stopping; runs in progress resume on the next start`);
    vnc.close();
    await broker.stop();
    await dispatcher.stop();
    await experiments.stop();
    await kernel.pool.stop();
    await cluster?.stop();
    await improve.stop();
    await mcp.stop();
    memory.stop();
    await memory.idle();
    await closeSandboxWorkers();
    await telemetry.stop();
    tiers.stop();
    await terminals.stop();
    fileServices.stopAll();
    await desktops.stop();
    kernel.close();
    await walCheckpoints?.stop();
    if (native) closeNativeSqlite(native);
    // Not awaited, as before: the process exits below; a failure to close the adapter is only logged.
    void io.close().catch((err) => console.error("closing the socket server failed", err));
    server.close();
    await db.$disconnect();
    lock.release();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

/** Rein's version (package.json), in the process registry and /api/health. */
const reinVersion: string = (() => {
  try {
    return (JSON.parse(fs.readFileSync(path.resolve("package.json"), "utf8")) as { version?: string }).version ?? "unknown";
  } catch {
    return "unknown";
  }
})();

/**
 * /api/health: this process (its role, and with several machines its queue,
 * leases and streams); every process of the deployment for an admin's
 * session or API token (hosts and pids are not for everyone). 503 while this
 * process has lost PostgreSQL's liveness lock or Redis.
 */
async function health(req: http.IncomingMessage, res: http.ServerResponse, deps: { db: Db; cluster: Cluster | null; authSecret: string }) {
  const body: Record<string, unknown> = { status: "ok", role: deps.cluster?.role ?? "all", version: reinVersion };
  if (deps.cluster) {
    const me = await deps.cluster.health();
    if (!me.alive || me.redis !== "ready") body.status = "degraded";
    const actor = await authenticateRequest(deps.db, req, deps.authSecret).catch(() => null);
    if (actor?.role === "admin") {
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

interface WorkerDeps {
  cluster: Cluster;
  config: ReinConfig;
  db: Db;
  kernel: Awaited<ReturnType<typeof createKernel>>;
  improve: Improve;
  mcp: McpServers;
  memory: { stop(): void; idle(): Promise<void> };
  tiers: TierController;
  telemetry: Awaited<ReturnType<typeof startTelemetry>>;
  terminals: PodPool;
  desktops: DesktopPool;
  log: { info(m: string): void; error(m: string, e?: unknown): void };
}

/**
 * A worker process (several machines): executes the runs it wins from the
 * queue and serves /api/health (and its desktops to the web processes). SIGTERM lets each run end its step and
 * hands it back, so another worker resumes it within about a second.
 */
async function runWorker(d: WorkerDeps): Promise<void> {
  // Live runtime tools and MCP tools are in the registry before any run starts here.
  await d.improve.start();
  await d.mcp.start();
  // The pods' output goes to the web processes' Terminal tabs, and keystrokes come back.
  await d.cluster.terminals(d.terminals);
  // Its desktops go to the web processes' Desktop tabs through a tunnel on this port.
  const address = d.config.internalUrl;
  const desktopTunnels = await d.cluster.exportDesktops({ desktops: d.desktops, secret: d.config.authSecret, address });
  await d.cluster.start(d.kernel, { concurrency: d.config.workers });
  const server = http.createServer((req, res) => {
    const url = req.url ?? "/";
    if (url === "/api/health" || url.startsWith("/api/health?")) {
      void health(req, res, { db: d.db, cluster: d.cluster, authSecret: d.config.authSecret }).catch(() => {
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
        ? `Rein's worker cannot start: port ${d.config.port} is in use. Set PORT to another port.`
        : `Rein's worker cannot start: ${err.message}`,
    ),
  );
  await new Promise<void>((resolve) => server.listen(d.config.port, d.config.host, resolve));
  console.log(`\nRein worker ${d.cluster.registry.id} is executing runs (up to ${d.config.workers} at once)`);
  console.log(`  Health: http://${loopbackHost(d.config.host)}:${d.config.port}/api/health`);
  console.log(`  Web processes reach its desktops at ${address}`);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    console.log(`\n${signal}: handing this worker's runs back; other workers resume them`);
    await d.cluster.stop();
    await d.improve.stop();
    await d.mcp.stop();
    d.memory.stop();
    await d.memory.idle();
    await closeSandboxWorkers();
    await d.telemetry.stop();
    d.tiers.stop();
    await d.terminals.stop();
    fileServices.stopAll();
    await d.desktops.stop();
    d.kernel.close();
    server.close();
    await d.db.$disconnect();
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
