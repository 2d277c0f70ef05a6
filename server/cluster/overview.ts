// What Settings › System shows: every process of the deployment with what it
// is doing, the queue and the leases. One process (the default) has no
// registry, so it describes itself from its own run pool.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Db } from "@/server/db";
import type { Cluster } from "./join";
import { HEARTBEAT_MS, listProcesses, type ProcessRole, type ProcessView } from "./processes";

export type DeploymentMode = "one-process" | "several";

/** running: beating and (workers) holding its liveness lock; stopped: shut down cleanly; not responding: neither. */
export type ProcessState = "running" | "stopped" | "not responding";

export interface ProcessRow {
  id: string;
  role: ProcessRole;
  host: string;
  pid: number;
  version: string;
  startedAt: string;
  heartbeatAt: string;
  stoppedAt: string | null;
  runsOwned: number;
  leaseRenewals: number;
  /** Jobs waiting in the queue as this process last saw it (null: it does not report one). */
  queueDepth: number | null;
  /** Milliseconds from a job's enqueue to its start, the latest one this process took. */
  lagMs: number | null;
  lastError: string | null;
  alive: boolean;
  state: ProcessState;
  /** The process that answered this request. */
  self: boolean;
}

export interface DeploymentOverview {
  mode: DeploymentMode;
  processes: ProcessRow[];
  /** Runs waiting to start: the shared queue (several), or this process's run pool (one process); null when Redis does not answer. */
  queue: { depth: number | null };
  /** Runs a live worker holds a lease on (always 0 in one process, which needs no leases). */
  leases: { active: number };
  heartbeatMs: number;
}

export interface OverviewDeps {
  db: Db;
  cluster: Cluster | null;
  version: string;
  /** This process's run pool: runs executing and runs waiting for a slot. */
  pool: { active: number; waiting: number };
  now?: () => Date;
}

const numberOrNull = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** Rein's version from package.json, for callers not handed one (the server passes its own). */
export function packageVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(path.resolve("package.json"), "utf8")) as { version?: string }).version ?? "unknown";
  } catch {
    return "unknown";
  }
}

export function stateOf(p: Pick<ProcessView, "stoppedAt" | "alive">): ProcessState {
  if (p.stoppedAt) return "stopped";
  return p.alive ? "running" : "not responding";
}

export function processRow(p: ProcessView, selfId: string | null): ProcessRow {
  return {
    id: p.id,
    role: p.role,
    host: p.host,
    pid: p.pid,
    version: p.version,
    startedAt: p.startedAt.toISOString(),
    heartbeatAt: p.heartbeatAt.toISOString(),
    stoppedAt: p.stoppedAt?.toISOString() ?? null,
    runsOwned: p.runsOwned,
    leaseRenewals: p.leaseRenewals,
    queueDepth: numberOrNull(p.stats.queueDepth),
    lagMs: numberOrNull(p.stats.lagMs),
    lastError: typeof p.stats.lastError === "string" ? p.stats.lastError : null,
    alive: p.alive,
    state: stateOf(p),
    self: p.id === selfId,
  };
}

export async function describeDeployment(deps: OverviewDeps): Promise<DeploymentOverview> {
  const { cluster } = deps;
  const now = deps.now?.() ?? new Date();
  if (!cluster) {
    const startedAt = new Date(now.getTime() - Math.round(process.uptime() * 1000));
    const me: ProcessView = {
      id: `${os.hostname()}:${process.pid}`,
      role: "all",
      host: os.hostname(),
      pid: process.pid,
      version: deps.version,
      startedAt,
      heartbeatAt: now,
      stoppedAt: null,
      runsOwned: deps.pool.active,
      leaseRenewals: 0,
      stats: { queueDepth: deps.pool.waiting, lagMs: null },
      alive: true,
    };
    return {
      mode: "one-process",
      processes: [processRow(me, me.id)],
      queue: { depth: deps.pool.waiting },
      leases: { active: 0 },
      heartbeatMs: HEARTBEAT_MS,
    };
  }
  const [processes, depth, active] = await Promise.all([
    listProcesses(deps.db),
    cluster.queue.depth().catch(() => null),
    cluster.leases.active(),
  ]);
  return {
    mode: "several",
    processes: processes.map((p) => processRow(p, cluster.registry.id)),
    queue: { depth },
    leases: { active },
    heartbeatMs: HEARTBEAT_MS,
  };
}
