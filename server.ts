// Rein's server: Next.js pages, Auth.js, tRPC, REST v1 and socket.io on one
// port, plus the in-process worker pool that executes runs (SPEC section 1).
import http from "node:http";
import path from "node:path";
import { ConfigError, DataDirLockedError, acquireDataDirLock, loadConfig, type ReinConfig } from "@/server/config";
import { openDb, openNativeSqlite, pendingMigrations, type Db } from "@/server/db";
import { LoginThrottle, authenticateRequest, bootstrapAdmin, forgeryRefusal, logIn, nonJsonBody, scheduleFromEnv } from "@/server/identity";
import { createKernel } from "@/server/kernel";
import { ExperimentRunner, seedBuiltinDatasets } from "@/server/evals";
import { Improve, closeSandboxWorkers, seedDemoRepository } from "@/server/improve";
import { createTrpcHandler } from "@/server/api";
import { createRestHandler } from "@/server/channels";
import { attachRealtime, attachVncProxy } from "@/server/realtime";
import { DEFAULT_LIMITS, DesktopPool, PodPool, configureEgress, configureJail, desktopPoolSizeFromEnv, fileServices, probeSandbox } from "@/server/compute";
import { TierController, connectTiers, defaultTierSettings, readTierSettings } from "@/server/tiers";
import { handleDemoSite } from "@/server/demo-site";
import { HitlBroker, HumanGate, RequestBus, connectHitl, ladderFromEnv, openLinkKeyRing, type Hitl } from "@/server/hitl";
import { PolicyGate } from "@/server/policy";
import { setPrice, startTelemetry } from "@/server/telemetry";
import { Budgets, CircuitBreaker, RateLimiter, guardModel, rpsFromEnv } from "@/server/limits";
import { DefaultModelRouter, ModelAdmin, ModelCatalog } from "@/server/models";
import { loadSecretKeyring } from "@/server/secrets";
import { recordAudit } from "@/server/audit";
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
  let lock;
  try {
    lock = acquireDataDirLock(config.dataDir);
  } catch (err) {
    if (err instanceof DataDirLockedError) fail(`Rein cannot start: ${err.message}`);
    throw err;
  }

  const db: Db = await openDb(config.databaseUrl);
  const pending = await pendingMigrations(db, path.resolve("prisma", "migrations"));
  if (pending.length) {
    lock.release();
    fail(`Rein cannot start: the database at ${config.databaseUrl} needs migrations (${pending.join(", ")}). Run npm start or npm run up, which apply them.`);
  }
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
    size: tierSettings.T1.enabled ? tierSettings.T1.poolSize : 0,
    limits: DEFAULT_LIMITS,
    sandbox,
    allowUnsandboxed: config.sandbox === "none",
    log: { info: (m) => console.log(m), error: (m, e) => console.error(m, e) },
  });
  await terminals.start();
  // T2: one desktop (Xvfb, openbox, Chromium, x11vnc) per run that moves up to it, some kept warm.
  const desktops = new DesktopPool({ dataDir: config.dataDir, size: tierSettings.T2.enabled ? tierSettings.T2.poolSize : 0, log: { info: (m) => console.log(m), error: (m, e) => console.error(m, e) } });
  await desktops.start();
  const log = { info: (m: string) => console.log(m), error: (m: string, e?: unknown) => console.error(m, e) };
  // Policy and people before every tool call (SPEC sections 4, 5, 7).
  const ladder = ladderFromEnv(process.env.REIN_HITL_LADDER);
  const requests = new RequestBus();
  const policy = new PolicyGate(db, { onError: (err) => log.error("reloading the policy failed; the loaded one stays in force", err) });
  const gate = new HumanGate({ db, policy, ladder, onCreated: (c) => requests.publish(c) });
  // Every model call waits for its provider's rate limit and skips a provider whose circuit is open.
  const guards = { limiter: new RateLimiter(rpsFromEnv(process.env.REIN_PROVIDER_RPS)), breaker: new CircuitBreaker() };
  // Configured providers and models (SPEC section 6); their API keys are secrets sealed with the data directory's key.
  const keyring = loadSecretKeyring({ dataDir: config.dataDir });
  const catalog = new ModelCatalog({ db, keyring, log });
  await catalog.reload();
  const router = new DefaultModelRouter({ scriptedDelayMs: config.scriptedDelayMs, guard: (m) => guardModel(m, guards), catalog });
  const kernel = await createKernel({ terminals, gate, router, keyring, db, databaseUrl: config.databaseUrl, dataDir: config.dataDir, workers: config.workers, scriptedDelayMs: config.scriptedDelayMs });
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
  // Spans from the run event log (SPEC section 9); runs whose spans fell behind are projected again first.
  const telemetry = await startTelemetry({ db, kernel, native: openNativeSqlite(config.databaseUrl), keyring, log });
  // Budgets before every model call read the spend the telemetry has written (flushed first).
  const budgets = new Budgets({ db, flush: () => telemetry.sink.flush() });
  kernel.deps.limits = budgets;
  // Compute tiers (SPEC section 8): upgrade_tier, the desktop of a run on T2, idle and run-end downgrades.
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
  // Evals: an experiment's items run as ordinary runs through the pool above, scored when they end.
  const experiments = new ExperimentRunner({ db, runs: kernel, store: kernel.store, workspaceFor: kernel.deps.workspaceFor, terminals, bus: kernel.bus, router, prices: telemetry.telemetry.prices, cancelRun: (runId, by) => kernel.pool.cancel(runId, by), log });
  // Self-improvement (SPEC section 10): friction from every run's events, hack cycles, live runtime tools.
  const improve = new Improve({ db, kernel, onRequestCreated: (c) => requests.publish(c), ladder, log, changes: { broker, dataDir: config.dataDir } });
  requests.on((change) => void improve.onRequestChange(change).catch((err) => log.error("a decision on a promotion or a change request could not be applied", err)));
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
            void recordAudit(db, { kind: "login.failed", actorId: null, channel: "login", subject: f.email, detail: { address: f.address, reason: f.reason } }).catch((err) =>
              console.error("could not audit a failed login", err),
            ),
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
  const trpc = createTrpcHandler({ db, kernel, terminals, sandbox, hitl, policy, telemetry: telemetry.telemetry, telemetryControl: telemetry, models, tiers, keyring, authSecret: config.authSecret, publicUrl: linksUrl, experiments, improve });
  const rest = createRestHandler({ db, kernel, hitl, models, keyring, authSecret: config.authSecret, publicUrl: linksUrl, experiments, improve });

  const server = http.createServer(async (req, res) => {
    const url = req.url ?? "/";
    try {
      if (url === "/api/health" || url.startsWith("/api/health?")) {
        res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
        return res.end(JSON.stringify({ status: "ok" }));
      }
      // Rein's demo site is public and carries no authority; everything else that changes state comes from Rein's pages or a token.
      if (!url.startsWith("/demo-site")) {
        const forged = forgeryRefusal(req, config.publicUrl);
        if (forged) return refuseRequest(res, 403, "CROSS_ORIGIN", forged);
        const notJson = url.startsWith("/api/trpc/") || url.startsWith("/api/v1") ? nonJsonBody(req) : null;
        if (notJson) return refuseRequest(res, 415, "UNSUPPORTED_MEDIA_TYPE", notJson);
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
  });
  const io = attachRealtime(server, { db, kernel, terminals, requests, authSecret: config.authSecret, publicUrl: config.publicUrl });
  // The desktops' VNC websocket (/vnc/<runId>) and the Desktop tab's messages; `desktops` is the desktop tier's pool.
  const vnc = attachVncProxy(server, { db, kernel, io, desktops, authSecret: config.authSecret, publicUrl: config.publicUrl });

  server.on("error", (err: NodeJS.ErrnoException) => {
    lock.release();
    fail(err.code === "EADDRINUSE" ? `Rein cannot start: port ${config.port} is in use. Set PORT to another port.` : `Rein cannot start: ${err.message}`);
  });
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  // Live runtime tools are in the registry before any run resumes.
  const improved = await improve.start();
  const picked = await kernel.pool.start();
  const evals = await experiments.start();
  // Answers given while no server ran (another process, the CLI) take effect now; then the TTL ladder runs.
  const answered = await broker.reconcile();
  broker.start();

  console.log(`\nRein is ready at ${config.publicUrl}`);
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
  if (improved.cycles.abandoned) console.log(`  ${improved.cycles.abandoned} hack cycle(s) could not go on after the restart and were abandoned`);
  if (improved.changes) console.log(`  ${improved.changes} change request(s) had their checks cut short by the restart; run them again from their page`);
  if (answered) console.log(`  ${answered} run(s) waiting for a person were answered while Rein was down; they continue`);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    console.log(`\n${signal}: stopping; runs in progress resume on the next start`);
    vnc.close();
    await broker.stop();
    await experiments.stop();
    await kernel.pool.stop();
    await improve.stop();
    await closeSandboxWorkers();
    await telemetry.stop();
    tiers.stop();
    await terminals.stop();
    fileServices.stopAll();
    await desktops.stop();
    kernel.close();
    io.close();
    server.close();
    await db.$disconnect();
    lock.release();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

/** A refused request: a JSON error, and the connection closed (its body is never read). */
function refuseRequest(res: http.ServerResponse, status: number, code: string, message: string) {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", connection: "close" });
  res.end(JSON.stringify({ error: { code, message } }));
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

