// The replay cache on SQLite through a direct connection (server/db/native.ts).
import {
  NO_FENCES,
  sqliteFence,
  sqliteNow,
  deferWrite,
  timeOrderedId,
  withBusyRetry,
  withDeferredWrites,
  type Fences,
  type NativeSqlite,
} from "@/server/db";
import type { CacheEntry, CacheKey, ReplayCache } from "./replay-cache";
import type { ReplayClass, ToolOutcome } from "./types";

export class SqliteReplayCache implements ReplayCache {
  private readonly q;
  /** Pure results waiting to ride the next transaction, by key. */
  private readonly unwritten = new Map<string, string>();
  private readonly writeIntentTx: (key: CacheKey, replayClass: ReplayClass) => void;
  private readonly writeResultTx: (key: CacheKey, replayClass: ReplayClass, result: string) => void;

  /** `fences`: the epochs this process holds; a held run's rows are fenced (server/db/fences.ts). */
  constructor(
    private readonly db: NativeSqlite,
    fences: Fences = NO_FENCES,
  ) {
    const where = `runId = ? AND nodeId = ? AND checkpointId = ? AND toolName = ? AND inputHash = ?`;
    this.q = {
      get: db.prepare(`SELECT status, result FROM "ToolCallResult" WHERE ${where}`),
      intent: db.prepare(
        `INSERT INTO "ToolCallResult" (id, runId, nodeId, checkpointId, toolName, inputHash, replayClass, status, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?, 'intent', ?)`,
      ),
      result: db.prepare(
        `INSERT INTO "ToolCallResult" (id, runId, nodeId, checkpointId, toolName, inputHash, replayClass, status, result, createdAt, completedAt)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'done', ?, ?, ?)
         ON CONFLICT (runId, nodeId, checkpointId, toolName, inputHash) DO UPDATE SET status = 'done', result = excluded.result, completedAt = excluded.completedAt`,
      ),
    };
    const checkFence = sqliteFence(db);
    const fence = (runId: string) => {
      const epoch = fences.epochOf(runId);
      if (epoch !== undefined) checkFence(runId, epoch);
    };
    // Deferred rows on this connection go first: a policy decision is stored before an unsafe call runs.
    this.writeIntentTx = withDeferredWrites(db, (key: CacheKey, replayClass: ReplayClass) => {
      fence(key.runId);
      this.q.intent.run(timeOrderedId(), ...this.args(key), replayClass, sqliteNow());
    });
    this.writeResultTx = withDeferredWrites(db, (key: CacheKey, replayClass: ReplayClass, result: string) => {
      fence(key.runId);
      const now = sqliteNow();
      this.q.result.run(timeOrderedId(), ...this.args(key), replayClass, result, now, now);
    });
  }

  private args(key: CacheKey) {
    return [key.runId, key.nodeId, key.checkpointId, key.toolName, key.inputHash] as const;
  }

  private idOf(key: CacheKey) {
    return JSON.stringify(this.args(key));
  }

  async get(key: CacheKey): Promise<CacheEntry | null> {
    const unwritten = this.unwritten.size ? this.unwritten.get(this.idOf(key)) : undefined;
    if (unwritten !== undefined) return { status: "done", outcome: JSON.parse(unwritten) };
    const row = this.q.get.get(...this.args(key)) as { status: string; result: string | null } | undefined;
    if (!row) return null;
    if (row.status === "done" && row.result !== null) return { status: "done", outcome: JSON.parse(row.result) };
    return { status: "intent" };
  }

  async writeIntent(key: CacheKey, replayClass: ReplayClass): Promise<void> {
    await withBusyRetry(() => this.writeIntentTx(key, replayClass));
  }

  async writeResult(key: CacheKey, replayClass: ReplayClass, outcome: ToolOutcome): Promise<void> {
    const result = JSON.stringify(outcome);
    // A pure call's result rides the step that records it: lost in a crash, the call just runs again.
    // Until it is written this process answers from memory, so the cache reads the same meanwhile.
    if (replayClass === "pure") {
      const id = this.idOf(key);
      this.unwritten.set(id, result);
      deferWrite(this.db, () => {
        try {
          this.writeResultTx(key, replayClass, result);
        } finally {
          if (this.unwritten.get(id) === result) this.unwritten.delete(id);
        }
      });
    } else await withBusyRetry(() => this.writeResultTx(key, replayClass, result));
  }
}
