// Kernels for tests: the default wiring on a test database (createKernel), and
// the same wiring with the in-memory backends.
import crypto from "node:crypto";
import fs from "node:fs";
import {
  BUILTIN_SPECS,
  MemoryRunStore,
  MemorySpecSource,
  createKernel,
  isTerminal,
  type Kernel,
  type KernelDeps,
  type KernelOptions,
  type RunControl,
  type RunEventRecord,
  type RunState,
} from "@/server/kernel";
import { createUser, loadActor, ROLES, type Actor, type Role } from "@/server/identity";
import { DefaultModelRouter, ModelAdmin, ModelCatalog, type Scenario } from "@/server/models";
import { memoryKeyring, type SecretKeyring } from "@/server/secrets";
import { BUILTIN_TOOLS, MemoryReplayCache, ToolRegistry, ToolRunner, workspaceFor, type ReplayCache } from "@/server/tools";
import { HitlBroker, HumanGate, connectHitl, memoryKeyRing, newKeyRecord, type LinkContext, type TtlLadder } from "@/server/hitl";
import { PolicyGate } from "@/server/policy";
import { seedBuiltinDatasets } from "@/server/evals";
import { setPrice, startTelemetry } from "@/server/telemetry";
import { Budgets } from "@/server/limits";
import { dbDialect, openNativeSqlite, type Dialect, type NativeSqlite } from "@/server/db";
import { createTestDb, makeTempDir, type TestDb } from "./db";
import { createPgTestDb } from "./pg";
import { waitFor } from "./wait";

export const SILENT_LOG: KernelDeps["log"] = { info() {}, error() {} };

export interface MemoryKernel {
  deps: KernelDeps;
  store: MemoryRunStore;
  cache: ReplayCache;
  dataDir: string;
  /** Adds a queued run for the given agent (default demo-coder); returns its id. */
  addRun(opts?: { agent?: string; goal?: string; scenario?: Scenario | null; maxSteps?: number }): string;
  /** Every event of the run, in order. */
  events(runId: string): Promise<RunEventRecord[]>;
  cleanup(): void;
}

/** createKernel's wiring with MemoryRunStore, MemoryReplayCache and MemorySpecSource. */
export function createMemoryKernel(
  opts: { cache?: ReplayCache; onEvents?: (runId: string, events: RunEventRecord[]) => void } = {},
): MemoryKernel {
  const dataDir = makeTempDir("rein-test-kernel-");
  const store = new MemoryRunStore((runId, events) => opts.onEvents?.(runId, events));
  const cache = opts.cache ?? new MemoryReplayCache();
  const registry = new ToolRegistry(BUILTIN_TOOLS);
  const deps: KernelDeps = {
    store,
    specs: new MemorySpecSource(BUILTIN_SPECS.map((s) => ({ ...s, version: 1, builtIn: true }))),
    router: new DefaultModelRouter({ scriptedDelayMs: 0 }),
    registry,
    tools: new ToolRunner(registry, cache),
    workspaceFor: (runId) => workspaceFor(dataDir, runId),
    publishTransient() {},
    log: SILENT_LOG,
  };
  return {
    deps,
    store,
    cache,
    dataDir,
    addRun({ agent = "demo-coder", goal = "Test goal", scenario = null, maxSteps = 50 } = {}) {
      const spec = BUILTIN_SPECS.find((s) => s.name === agent);
      const id = `run-${crypto.randomUUID()}`;
      store.addRun({
        id,
        goal,
        agentName: agent,
        agentVersion: 1,
        status: "queued",
        model: scenario ? "scripted/run-scenario" : (spec?.model ?? "scripted/unknown"),
        scenario,
        maxSteps,
        createdById: "user-test",
        teamId: null,
      });
      return id;
    },
    events: (runId) => store.listEvents(runId, 0, 100_000),
    cleanup: () => fs.rmSync(dataDir, { recursive: true, force: true }),
  };
}

/** A RunControl that never pauses, cancels or stops. */
export function plainControl(overrides: Partial<RunControl> = {}): RunControl {
  return {
    signal: new AbortController().signal,
    cancelRequested: () => false,
    pauseRequested: () => false,
    stopping: () => false,
    recovered: false,
    ...overrides,
  };
}

export interface TestKernel {
  t: TestDb;
  kernel: Kernel;
  /** Present when created with { hitl: true }: policy, human requests and the TTL ladder. */
  hitl?: { broker: HitlBroker; gate: HumanGate; policy: PolicyGate; clock: TestClock; links: LinkContext };
  /** Present when created with { telemetry: true }: spans from the kernel's events (flush before reading). */
  telemetry?: Awaited<ReturnType<typeof startTelemetry>>;
  /** Present when created with { models: true }: configured providers and models behind the kernel's router. */
  models?: { admin: ModelAdmin; catalog: ModelCatalog; router: DefaultModelRouter; keyring: SecretKeyring };
  /** Present when created with { secrets: true }: the key the kernel opens secrets for tools and redaction with (the models' key too). */
  keyring?: SecretKeyring;
  /** One user per role, all in the default team. */
  users: Record<Role, string>;
  actors: Record<Role, Actor>;
  /** Waits until the run reaches a terminal state; returns that state. */
  settle(runId: string): Promise<RunState>;
  cleanup(): Promise<void>;
}

/** A clock tests move forward (the TTL ladder, veto deadlines). */
export interface TestClock {
  now(): Date;
  advance(ms: number): void;
}

function testClock(): TestClock {
  let offset = 0;
  return { now: () => new Date(Date.now() + offset), advance: (ms) => void (offset += ms) };
}

/**
 * createKernel on a fresh test database, one worker, no streaming delay.
 * With `hitl`, the server's wiring: PolicyGate + HumanGate before every tool
 * call, the broker (its scheduler is not started: tests call runDue()).
 */
/** How long each step of a test kernel's cleanup may take. */
const CLEANUP_STEP_MS = 15_000;

export async function createTestKernel(
  opts: {
    hitl?: boolean;
    ladder?: TtlLadder;
    telemetry?: boolean;
    models?: boolean;
    secrets?: boolean;
    terminals?: KernelOptions["terminals"];
    /** The test database: SQLite (default) or a PostgreSQL schema of its own. */
    database?: Dialect;
  } = {},
): Promise<TestKernel> {
  const t = opts.database === "postgres" ? await createPgTestDb(makeTempDir("rein-test-pg-")) : await createTestDb();
  const clock = testClock();
  const policy = new PolicyGate(t.db);
  const gate = new HumanGate({ db: t.db, policy, ladder: opts.ladder, now: clock.now });
  let models: TestKernel["models"];
  const sharedKeyring = memoryKeyring();
  const keyring = opts.secrets ? sharedKeyring : undefined;
  if (opts.models) {
    const keyring = sharedKeyring;
    const catalog = new ModelCatalog({ db: t.db, keyring });
    const router = new DefaultModelRouter({ scriptedDelayMs: 0, catalog, timeoutMs: 5_000 });
    const admin = new ModelAdmin({
      db: t.db,
      keyring,
      catalog,
      setPrice: async (input, actor) => void (await setPrice(t.db, input, actor)),
      testTimeoutMs: 5_000,
      health: () => router.health(),
    });
    models = { admin, catalog, router, keyring };
  }
  const kernel = await createKernel({
    db: t.db,
    dataDir: t.dir,
    workers: 1,
    scriptedDelayMs: 0,
    log: SILENT_LOG,
    keyring,
    terminals: opts.terminals,
    ...(opts.hitl ? { gate } : {}),
    ...(models ? { router: models.router } : {}),
  });
  await seedBuiltinDatasets(t.db);
  // As the server wires it: provider keys reach the redactor when they are saved.
  models?.catalog.onKeys((keys) => kernel.secrets?.redactor.remember(keys));
  let hitl: TestKernel["hitl"];
  if (opts.hitl) {
    const broker = new HitlBroker({
      db: t.db,
      runs: kernel.store,
      enqueue: (id) => kernel.enqueue(id),
      validateArgs: (tool, args) => kernel.deps.registry.validate(tool, args),
      ladder: opts.ladder,
      now: clock.now,
    });
    connectHitl(kernel, broker);
    hitl = {
      broker,
      gate,
      policy,
      clock,
      links: { db: t.db, keys: memoryKeyRing({ version: 1, current: newKeyRecord(new Date()) }), now: clock.now },
    };
  }
  let native: NativeSqlite | null = null;
  let telemetry: TestKernel["telemetry"];
  if (opts.telemetry) {
    native = dbDialect(t.db) === "sqlite" ? openNativeSqlite(t.url) : null;
    telemetry = await startTelemetry({ db: t.db, kernel, native, keyring: sharedKeyring, sink: { intervalMs: 20 } });
    // As server.ts wires them: reads over the direct connection, the spend still queued counted without a flush.
    kernel.deps.limits = new Budgets({
      db: t.db,
      native,
      flush: () => telemetry!.sink.flush(),
      unwritten: (scope) => telemetry!.sink.unwrittenCalls(scope),
    });
  }
  const users = {} as Record<Role, string>;
  const actors = {} as Record<Role, Actor>;
  // One user per role, all with the password test-password-1: the first is made as a person would be,
  // the others with its password's hash and teams (scrypt costs about 50 ms a hash, in every test kernel).
  let first: { passwordHash: string; memberships: Array<{ teamId: string }> } | null = null;
  for (const role of ROLES) {
    const email = `${role}@test.local`;
    if (!first) {
      users[role] = await createUser(t.db, { email, password: "test-password-1", role });
      first = await t.db.user.findUniqueOrThrow({
        where: { id: users[role] },
        select: { passwordHash: true, memberships: { select: { teamId: true } } },
      });
    } else {
      const made = await t.db.user.create({
        data: { email, name: role, passwordHash: first.passwordHash, role, memberships: { create: first.memberships } },
        select: { id: true },
      });
      users[role] = made.id;
    }
    const actor = await loadActor(t.db, users[role]);
    if (!actor) throw new Error(`no actor for the ${role} test user`);
    actors[role] = actor;
  }
  return {
    t,
    kernel,
    hitl,
    telemetry,
    models,
    keyring,
    users,
    actors,
    async settle(runId) {
      return waitFor(async () => {
        const run = await t.db.run.findUnique({ where: { id: runId }, select: { status: true } });
        return run && isTerminal(run.status as RunState) ? (run.status as RunState) : null;
      }, `run ${runId} to finish`);
    },
    async cleanup() {
      // Each step within a limit: one that outlives it is named on stderr with what the pool still ran,
      // and the cleanup goes on, so that a hang shows as a line to look into, not as a hook timeout.
      const within = async (what: string, work: () => Promise<unknown> | undefined) => {
        let timer: NodeJS.Timeout | undefined;
        const over = new Promise<"over">((r) => (timer = setTimeout(() => r("over"), CLEANUP_STEP_MS)));
        const ended = await Promise.race([Promise.resolve(work()).then(() => "done" as const), over]);
        clearTimeout(timer);
        if (ended === "over")
          console.error(
            `test kernel cleanup: ${what} did not finish within ${CLEANUP_STEP_MS / 1000} s; going on (pool: ${JSON.stringify(kernel.pool.stats())})`,
          );
      };
      await within("stopping the request broker", () => hitl?.broker.stop());
      await within("stopping the pool", () => kernel.pool.stop(5_000));
      await within("stopping telemetry", () => telemetry?.stop());
      native?.close();
      await within("closing the database", () => t.cleanup());
    },
  };
}
