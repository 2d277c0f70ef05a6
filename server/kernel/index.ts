// Runtime + Checkpointer: run loop, agent specs, handoffs, run state machine,
// event log, checkpoints, resume (docs/architecture.md#the-path-of-a-run).
import path from "node:path";
import type { Db } from "@/server/db";
import { DefaultModelRouter, type ModelRouter } from "@/server/models";
import { closeNativeSqlite, openNativeSqlite, type Fences, type NativeSqlite } from "@/server/db";
import {
  BUILTIN_TOOLS,
  PrismaReplayCache,
  SqliteReplayCache,
  ToolRegistry,
  ToolRunner,
  snapshotWorkspace,
  workspaceFor,
  type CallGate,
} from "@/server/tools";
import { ToolSecrets, type SecretKeyring } from "@/server/secrets";
import { RunEventBus } from "./bus";
import { PrismaRunStore } from "./prisma-store";
import { SqliteRunStore } from "./sqlite-store";
import { PrismaSpecSource, seedBuiltinSpecs } from "./specs";
import { WorkerPool, type RemoteRuns } from "./pool";
import { DEFAULT_DISK_RESERVE_BYTES, DiskGuard } from "./disk";
import { RedactingRunStore, redactingLog } from "./redaction";
import type { KernelDeps } from "./loop";
import type { RunServiceDeps } from "./runs";
import type { RunEventRecord } from "./events";

export * from "./states";
export * from "./events";
export * from "./checkpoint";
export { OUTBOX_TYPES, OUTBOX_TYPE_LABELS, outboxRowsFor, newMessageId, type OutboxType, type OutboxRow } from "./outbox";
export type { RunStore, RunRecord, StoredCheckpoint, StepCommit } from "./store";
export { PrismaRunStore } from "./prisma-store";
export { MemoryRunStore } from "./memory-store";
export { SqliteRunStore } from "./sqlite-store";
export {
  BUILTIN_SPECS,
  PrismaSpecSource,
  MemorySpecSource,
  UnknownAgentError,
  ArchivedAgentError,
  seedBuiltinSpecs,
  IMPROVER_AGENT,
  DEMO_FIX_AGENT,
  DEMO_HOSTED_AGENT,
  fromRow as specFromRow,
  specColumns,
  SPEC_SELECT,
  type AgentSpec,
  type SpecSource,
  type SpecRow,
} from "./specs";
export { agentVisibleTo, hiddenAgentNames, type AgentAccessRow } from "./agent-access";
export {
  driveRun,
  RunFailure,
  type HostedAgents,
  type KernelDeps,
  type RunControl,
  type DriveOutcome,
  type HumanWaits,
  type ModelCallLimits,
  type RunTiers,
  type RunExtensions,
  type RunMemories,
  type LoadedMemoryRef,
  routingSummary,
} from "./loop";
export { callModel, ModelCallError, modelName, type ModelCallDeps, type TurnResult } from "./model-call";
export { WorkerPool, type ControlResult, type ControlActor, type RemoteRuns } from "./pool";
export {
  sendMessage,
  retryRun,
  rerunRun,
  runLineage,
  SendMessageInput,
  RetryInput,
  RerunInput,
  SteeringConflictError,
  MAX_MESSAGE_CHARS,
  type MessageOutcome,
  type SteeringDeps,
} from "./steering";
export { forkRun, compareRuns, forkPoint, ForkInput, CompareInput, type CompareStep, type ForkDeps } from "./forks";
export { RunEventBus } from "./bus";
export {
  createRun,
  getRun,
  listRuns,
  listEvents,
  exportScenario,
  CreateRunInput,
  ListRunsInput,
  RunNotFoundError,
  type CreateRunOptions,
  TeamAccessError,
  launchTeam,
  rememberTeam,
  requireTeamRole,
  getRunAs,
  runsVisibleTo,
  type RunSummary,
  type RunServiceDeps,
} from "./runs";
export { RUN_SORTS, type RunSort } from "./run-sort";
export { reviewerStopReason, STOPPED_BY_REVIEWER, type ReviewerStop } from "./reviewer-stop";
export { TagSchema, TagsSchema, MAX_RUN_TAGS, MAX_TAG_CHARS } from "./run-tags";
export { setRunTags, SetTagsInput, cancelRuns, CancelRunsInput, MAX_BULK_CANCEL, type CancelOutcome } from "./run-actions";
export { DISK_FULL, DEFAULT_DISK_RESERVE_BYTES, DiskGuard, diskSpace, isDiskFull, type DiskSpace } from "./disk";
export { RUN_PARTS, prunedParts, requireKept, type RunPart, type PrunedPart } from "./pruned";

export interface Kernel extends RunServiceDeps {
  bus: RunEventBus;
  /** Closes the kernel's own database connection, if it has one (after pool.stop()). */
  close(): void;
  pool: WorkerPool;
  deps: KernelDeps;
  /** Secrets for tools and the redactor every result and event passes (absent without a keyring). */
  secrets?: ToolSecrets;
}

export interface KernelOptions {
  db: Db;
  /** The database URL; for SQLite the run loop gets its own direct connection. */
  databaseUrl?: string;
  dataDir: string;
  workers: number;
  scriptedDelayMs: number;
  router?: ModelRouter;
  /** Terminal pods for runs (server.ts passes the PodPool); absent in unit tests. */
  terminals?: KernelDeps["terminals"];
  /** Policy and human requests before every tool call (server/hitl); absent: every call allowed. */
  gate?: CallGate;
  /** Opens secrets for tools and redaction (docs/secrets.md#redaction-where-the-value-is-hidden); absent: tools get no secrets and nothing is redacted. */
  keyring?: SecretKeyring;
  log?: KernelDeps["log"];
  /** Several machines: the epochs this worker holds; every write for a held run is fenced (server/db/fences.ts). */
  fences?: Fences;
  /** Several machines: the bus that relays events between processes (server/cluster). */
  bus?: RunEventBus;
  /** Several machines: pause and cancel of a run executing on another process. */
  remote?: RemoteRuns;
  /** Several machines (web processes): hands a run to the queue instead of this process's pool. */
  enqueue?: (runId: string) => void;
  /**
   * The direct SQLite connection to use instead of opening one (server.ts shares one between the
   * kernel, the gate's audit rows, spans and budgets, so a deferred audit row rides a step's
   * transaction). Its owner closes it.
   */
  native?: NativeSqlite;
  /** false: no workspace snapshots per checkpoint (benchmarks of the bare step); forks then start with an empty workspace. */
  snapshots?: boolean;
  /**
   * Free space in the data directory a step needs, or the run pauses until there is (docs/operations.md#a-full-disk);
   * 0 checks nothing ahead and pauses only when a write fails for want of space. Default 64 MB.
   */
  diskReserveBytes?: number;
  /** How often the space is looked at while runs wait for it (ms; default 5 s). */
  diskPollMs?: number;
}

/** Wires the default backends: Prisma store, scripted router, built-in tools, in-process pool. */
export async function createKernel(options: KernelOptions): Promise<Kernel> {
  const { db } = options;
  await seedBuiltinSpecs(db);
  const bus = options.bus ?? new RunEventBus();
  const publish = (runId: string, events: RunEventRecord[]) => bus.publish(runId, events);
  const ownNative = !options.native && options.databaseUrl?.startsWith("file:") ? openNativeSqlite(options.databaseUrl) : null;
  const native = options.native ?? ownNative;
  const baseLog: KernelDeps["log"] = options.log ?? { info: (m) => console.log(m), error: (m, e) => console.error(m, e) };
  const secrets = options.keyring ? new ToolSecrets({ db, keyring: options.keyring, native, log: baseLog }) : undefined;
  const rawStore = native ? new SqliteRunStore(native, publish, options.fences) : new PrismaRunStore(db, publish, options.fences);
  const store = secrets ? new RedactingRunStore(rawStore, secrets) : rawStore;
  const cache = native ? new SqliteReplayCache(native, options.fences) : new PrismaReplayCache(db, options.fences);
  const specs = new PrismaSpecSource(db);
  const router = options.router ?? new DefaultModelRouter({ scriptedDelayMs: options.scriptedDelayMs });
  const registry = new ToolRegistry(BUILTIN_TOOLS);
  const deps: KernelDeps = {
    terminals: options.terminals,
    store,
    specs,
    router,
    registry,
    tools: new ToolRunner(registry, cache, options.gate, secrets),
    workspaceFor: (runId) => workspaceFor(path.resolve(options.dataDir), runId),
    snapshot: options.snapshots === false ? undefined : snapshotWorkspace,
    publishTransient: (m) => bus.publishTransient(m),
    log: secrets ? redactingLog(baseLog, secrets) : baseLog,
    disk: new DiskGuard(path.resolve(options.dataDir), options.diskReserveBytes ?? DEFAULT_DISK_RESERVE_BYTES),
  };
  const pool = new WorkerPool(deps, {
    concurrency: options.workers,
    remote: options.remote,
    dispatch: options.enqueue,
    diskPollMs: options.diskPollMs,
  });
  return {
    db,
    store,
    specs,
    router,
    bus,
    pool,
    deps,
    secrets,
    enqueue: (id) => pool.enqueue(id),
    close: () => ownNative && closeNativeSqlite(ownNative),
  };
}
