// The replay cache: tool_call_results(run_id, node_id, checkpoint_id,
// tool_name, input_hash) -> result, with intent rows for unsafe tools.
import crypto from "node:crypto";
import { checkFence, NO_FENCES, retryingTransaction, type Db, type Fences, type Prisma } from "@/server/db";
import type { CallAddress, ReplayClass, ToolOutcome } from "./types";

export interface CacheKey extends CallAddress {
  toolName: string;
  inputHash: string;
}

export type CacheEntry = { status: "intent" } | { status: "done"; outcome: ToolOutcome };

export interface ReplayCache {
  get(key: CacheKey): Promise<CacheEntry | null>;
  /** Writes the intent row before an unsafe tool runs. */
  writeIntent(key: CacheKey, replayClass: ReplayClass): Promise<void>;
  /** Records the result (over an intent row if there is one). */
  writeResult(key: CacheKey, replayClass: ReplayClass, outcome: ToolOutcome): Promise<void>;
}

/** Stable JSON: object keys sorted, so equal arguments hash equally. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

export function inputHash(args: unknown, idempotencyKey?: string): string {
  const h = crypto.createHash("sha256").update(canonicalJson(args));
  if (idempotencyKey !== undefined) h.update("\0key:").update(idempotencyKey);
  return h.digest("hex");
}

export class PrismaReplayCache implements ReplayCache {
  constructor(
    private readonly db: Db,
    /** The epochs this process holds; a held run's rows are fenced (server/db/fences.ts). */
    private readonly fences: Fences = NO_FENCES,
  ) {}

  /** Runs `write` in a transaction that first checks this worker still holds the run. */
  private fenced(runId: string, write: (tx: Prisma.TransactionClient) => Promise<unknown>): Promise<unknown> {
    const epoch = this.fences.epochOf(runId);
    if (epoch === undefined) return write(this.db);
    // Retried when another session's row locks hold it up (server/db/lock-waits.ts).
    return retryingTransaction(this.db, async (tx) => {
      await checkFence(tx, runId, epoch);
      return write(tx);
    });
  }

  private where(key: CacheKey) {
    return {
      runId_nodeId_checkpointId_toolName_inputHash: {
        runId: key.runId,
        nodeId: key.nodeId,
        checkpointId: key.checkpointId,
        toolName: key.toolName,
        inputHash: key.inputHash,
      },
    };
  }

  async get(key: CacheKey): Promise<CacheEntry | null> {
    const row = await this.db.toolCallResult.findUnique({
      where: this.where(key),
      select: { status: true, result: true },
    });
    if (!row) return null;
    if (row.status === "done" && row.result !== null) return { status: "done", outcome: JSON.parse(row.result) };
    return { status: "intent" };
  }

  async writeIntent(key: CacheKey, replayClass: ReplayClass): Promise<void> {
    await this.fenced(key.runId, (tx) => tx.toolCallResult.create({ data: { ...key, replayClass, status: "intent" } }));
  }

  async writeResult(key: CacheKey, replayClass: ReplayClass, outcome: ToolOutcome): Promise<void> {
    const result = JSON.stringify(outcome);
    await this.fenced(key.runId, (tx) =>
      tx.toolCallResult.upsert({
        where: this.where(key),
        create: { ...key, replayClass, status: "done", result, completedAt: new Date() },
        update: { status: "done", result, completedAt: new Date() },
      }),
    );
  }
}

export class MemoryReplayCache implements ReplayCache {
  private readonly rows = new Map<string, CacheEntry>();
  private id(key: CacheKey) {
    return [key.runId, key.nodeId, key.checkpointId, key.toolName, key.inputHash].join("\u0000");
  }
  async get(key: CacheKey) {
    return this.rows.get(this.id(key)) ?? null;
  }
  async writeIntent(key: CacheKey) {
    const id = this.id(key);
    if (this.rows.has(id)) throw new Error(`intent already recorded for ${key.toolName} ${key.nodeId}`);
    this.rows.set(id, { status: "intent" });
  }
  async writeResult(key: CacheKey, _replayClass: ReplayClass, outcome: ToolOutcome) {
    this.rows.set(this.id(key), { status: "done", outcome: structuredClone(outcome) });
  }
}
