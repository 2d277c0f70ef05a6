// Rein's composition root (docs/architecture.md#composition-root): every service
// the server runs is built here, once, in the order they depend on each other,
// and handed to the transports (tRPC, REST, MCP, sockets) as one Services
// object. start() and stop() hold the order they start in once the server
// listens, and the order they stop in.
import path from "node:path";
import type { ReinConfig } from "@/server/config";
import { closeNativeSqlite, dbDialect, openDb, openNativeSqlite, migrationState, startWalCheckpointer, type Db } from "@/server/db";
import { joinCluster, packageVersion, type Cluster } from "@/server/cluster";
import type { BootstrapResult } from "@/server/identity";
import { createKernel, event } from "@/server/kernel";
import { ModelGateway, TeamKeyGateway } from "@/server/gateway";
import { HostedPrograms, HostedRuns } from "@/server/hosted";
import { ExperimentRunner } from "@/server/evals";
import { Improve, closeSandboxWorkers } from "@/server/improve";
import {
  ChannelDispatcher,
  EmailChannel,
  SlackChannel,
  Webhooks,
  createSlackActionsHandler,
  remoteAgentTool,
  type SlackActionsHandler,
} from "@/server/channels";
import {
  DEFAULT_LIMITS,
  DesktopPool,
  PodPool,
  configureEgress,
  configureJail,
  desktopPoolSizeFromEnv,
  fileServices,
  probeSandbox,
  type SandboxStatus,
} from "@/server/compute";
import { DeviceHub, type DevicePresence } from "@/server/devices";
import {
  DeviceRuns,
  MachineRuns,
  TierController,
  connectTiers,
  defaultTierSettings,
  readTierSettings,
  type TierSettings,
} from "@/server/tiers";
import { HitlBroker, HumanGate, RequestBus, connectHitl, ladderFromEnv, openLinkKeyRing, type Hitl } from "@/server/hitl";
import { PolicyGate } from "@/server/policy";
import { setPrice, startTelemetry } from "@/server/telemetry";
import { Budgets, CircuitBreaker, RateLimiter, guardModel, rpsFromEnv } from "@/server/limits";
import { DefaultModelRouter, ModelAdmin, ModelCatalog } from "@/server/models";
import { loadSecretKeyring } from "@/server/secrets";
import { McpElicitations, McpServers } from "@/server/mcp-client";
import { MemoryStore, createRunMemory, memoryTools, startMemoryListener } from "@/server/memory";
import { auditWriter } from "@/server/audit";
import { Retention } from "@/server/retention";
import { seedDatabase } from "./seed";
import type { Services } from "./services";

export interface Log {
  info(message: string): void;
  error(message: string, err?: unknown): void;
}

/** What the server's start-up message reports, once start() has run. */
export interface Started {
  improved: Awaited<ReturnType<Improve["start"]>>;
  mcp: Awaited<ReturnType<McpServers["start"]>>;
  /** Runs an earlier process left: interrupted ones resumed, queued ones started. */
  picked: { resumed: number; queued: number };
  evals: Awaited<ReturnType<ExperimentRunner["start"]>>;
  /** Runs waiting for a person that were answered while no server ran. */
  answered: number;
}

/** The composed server: its services, and what the HTTP server and the start-up message still need. */
export interface App {
  services: Services;
  /** null: one process; else this process's membership of several machines. */
  cluster: Cluster | null;
  /** The first admin, when this start created one. */
  admin: BootstrapResult | null;
  sandbox: SandboxStatus;
  tierSettings: TierSettings;
  catalog: ModelCatalog;
  terminals: PodPool;
  desktops: DesktopPool;
  /** What the Devices page says of a device here (docs/devices.md#with-several-machines). */
  devicePresence: DevicePresence;
  /** Human-request changes for the Inbox's sockets: with several machines, every process's. */
  socketRequests: RequestBus;
  slackActions: SlackActionsHandler;
  /** A web process, or the one process: starts what runs after the server listens, in order. */
  start(): Promise<Started>;
  /** A worker of several machines: starts executing runs; returns the tunnels that serve its desktops on its port. */
  startWorker(): Promise<Awaited<ReturnType<Cluster["exportDesktops"]>>>;
  /** Stops everything in order; `closeTransports` closes the sockets and the HTTP server, just before the database goes. */
  stop(closeTransports: () => void): Promise<void>;
}

/** An address this machine reaches the server on, for the server's own desktops. */
export function loopbackHost(host: string): string {
  if (host === "0.0.0.0" || host === "::" || host === "localhost") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * The database, the migrations it still needs and those a newer Rein applied: Rein refuses to start
 * while any are pending, and on a database a newer Rein migrated (docs/operations.md#upgrades).
 */
export async function openDatabase(config: ReinConfig): Promise<{ db: Db; pending: string[]; newer: string[] }> {
  const db: Db = await openDb(config.databaseUrl);
  const postgres = dbDialect(db) === "postgres";
  const state = await migrationState(db, path.resolve("prisma", ...(postgres ? ["postgres", "migrations"] : ["migrations"])));
  return { db, ...state };
}

/**
 * Builds every service on the open database, in order. The warm pools, telemetry, the tier controller and the
 * memory listener run from here on; runs, experiments, the broker and the dispatcher wait for start() (or startWorker()).
 */
export async function composeServices(config: ReinConfig, db: Db, log: Log): Promise<App> {
  const postgres = dbDialect(db) === "postgres";
  const version = packageVersion();
  // Several machines: this process registers itself, holds its liveness lock and talks to the others through Redis.
  const cluster: Cluster | null =
    config.redisUrl && config.role !== "all"
      ? await joinCluster({
          db,
          databaseUrl: config.databaseUrl,
          redisUrl: config.redisUrl,
          role: config.role,
          version,
          prefix: config.redisPrefix,
          leaseTtlMs: config.leaseTtlMs,
          log,
        })
      : null;
  const runsHere = config.role !== "web";
  // The first admin, the built-in agents, the demo datasets and repository: once, whoever starts first.
  const admin = await seedDatabase(db, config, log);
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
  // Its WAL checkpoints (and Prisma's connection's) happen on a worker thread, not inside a step's commit.
  const walCheckpoints = native ? startWalCheckpointer(native, config.databaseUrl, { prisma: db }) : null;
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
    diskReserveBytes: config.diskReserveBytes,
    scriptedDelayMs: config.scriptedDelayMs,
    // Several machines: fenced writes and relayed events; a run to execute always goes to the queue, so it
    // executes only where its lease was won (a worker's queue consumer drives it through the pool).
    ...(cluster ? { fences: cluster.held, bus: cluster.bus, remote: cluster.remote, enqueue: cluster.enqueue } : {}),
  });
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
  // Hosted agents (docs/hosted-agents.md): their model calls come back through the gateway, under the same budgets.
  const gateway = new ModelGateway({
    router,
    limits: budgets,
    appendEvents: (runId, events) => kernel.store.appendEvents(runId, events),
    publishTransient: (message) => kernel.deps.publishTransient(message),
    log,
  });
  // Team gateway keys (docs/gateway.md#team-keys): a team's own programs call the gateway on Rein's port, under the key's and the team's budgets.
  const gatewayKeys = new TeamKeyGateway({
    db,
    router,
    teamBudget: budgets,
    spans: telemetry.sink,
    prices: telemetry.telemetry.prices,
    log,
  });
  kernel.deps.hosted = new HostedRuns({
    gateway,
    gate,
    db,
    requestChanges: requests,
    cancelRequest: (id, reason) => broker.cancel(id, reason),
    dataDir: config.dataDir,
    log,
  });
  // People's devices (docs/devices.md#the-hub): their sockets reach this process. Several machines: web processes
  // serve theirs to the workers, and a worker's T4 runs reach them through the web processes (#with-several-machines).
  const devices = new DeviceHub({ db, log });
  const deviceAccess = cluster ? cluster.devices(devices) : devices;
  // What the Devices page says: this process's devices, and with several machines the other web processes' too.
  const devicePresence = cluster ? cluster.devicePresence(devices) : devices;
  // Compute tiers (docs/desktops-and-tiers.md): upgrade_tier, the desktop of a run on T2, idle and run-end downgrades.
  const tiers = new TierController({
    db,
    runs: kernel.store,
    specs: kernel.specs,
    budgets,
    terminals,
    desktops,
    // T3: runs on registered machines over SSH, their connections held by the process executing them.
    remote: new MachineRuns({ db, keyring, terminals, workspaceFor: kernel.deps.workspaceFor, graceMs: config.machineGraceMs }),
    // T4: runs on people's devices, connected to this process or (a worker) relayed from the web processes.
    devices: new DeviceRuns({ db, hub: deviceAccess, terminals, workspaceFor: kernel.deps.workspaceFor, graceMs: config.machineGraceMs }),
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
    publicUrl: config.publicUrl,
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
  // Subtasks handed to remote A2A agents an admin added (docs/a2a.md#remote-agents): a tool an agent spec lists like any other.
  kernel.deps.registry.register(remoteAgentTool({ db, keyring }));
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
  const improve = Improve.withChanges({
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
    health: () => router.health(),
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
  // What is past its retention goes in the background, in one web process at a time (docs/operations.md#retention).
  const retention = new Retention({ db, dataDir: config.dataDir, databaseUrl: config.databaseUrl, log });
  // The Inbox's sockets hear every process's human requests (several machines).
  const socketRequests = cluster ? cluster.relayRequests(requests) : requests;

  const services: Services = {
    db,
    kernel,
    compute: { terminals, sandbox },
    hitl,
    policy,
    telemetry,
    models,
    tiers,
    keyring,
    experiments,
    improve,
    mcp,
    hosted: new HostedPrograms({ db, log }),
    gatewayKeys,
    devices,
    webhooks,
    system: { cluster, version },
    retention,
  };
  const worker = cluster?.role === "worker";

  return {
    services,
    cluster,
    admin,
    sandbox,
    tierSettings,
    catalog,
    terminals,
    desktops,
    devicePresence,
    socketRequests,
    slackActions,
    async start() {
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
      retention.start();
      return { improved, mcp: mcpStarted, picked, evals, answered };
    },
    async startWorker() {
      if (!cluster) throw new Error("Only a worker of several machines starts as one");
      // Live runtime tools and MCP tools are in the registry before any run starts here.
      await improve.start();
      await mcp.start();
      // The pods' output goes to the web processes' Terminal tabs, and keystrokes come back.
      await cluster.terminals(terminals);
      // Its desktops go to the web processes' Desktop tabs through a tunnel on this port.
      const desktopTunnels = await cluster.exportDesktops({ desktops, secret: config.authSecret, address: config.internalUrl });
      await cluster.start(kernel, { concurrency: config.workers });
      return desktopTunnels;
    },
    async stop(closeTransports) {
      // A worker started none of these: cluster.stop() below hands its runs back, each after its current step.
      if (!worker) {
        await broker.stop();
        await retention.stop();
        await dispatcher.stop();
        await experiments.stop();
        await kernel.pool.stop();
      }
      await cluster?.stop();
      await improve.stop();
      await mcp.stop();
      memory.stop();
      await memory.idle();
      await closeSandboxWorkers();
      await telemetry.stop();
      tiers.stop();
      devices.close();
      await terminals.stop();
      fileServices.stopAll();
      await desktops.stop();
      kernel.close();
      // Several machines run on PostgreSQL, so a worker has neither.
      await walCheckpoints?.stop();
      if (native) closeNativeSqlite(native);
      closeTransports();
      await db.$disconnect();
    },
  };
}
