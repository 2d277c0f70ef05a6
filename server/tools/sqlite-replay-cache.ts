// The replay cache on SQLite through a direct connection (server/db/native.ts).
import crypto from "node:crypto";
import { sqliteNow, withBusyRetry, type NativeSqlite } from "@/server/db";
import type { CacheEntry, CacheKey, ReplayCache } from "./replay-cache";
import type { ReplayClass, ToolOutcome } from "./types";

export class SqliteReplayCache implements ReplayCache {
  private readonly q;

  constructor(db: NativeSqlite) {
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
  }

  private args(key: CacheKey) {
    return [key.runId, key.nodeId, key.checkpointId, key.toolName, key.inputHash] as const;
  }

  async get(key: CacheKey): Promise<CacheEntry | null> {
    const row = this.q.get.get(...this.args(key)) as { status: string; result: string | null } | undefined;
    if (!row) return null;
    if (row.status === "done" && row.result !== null) return { status: "done", outcome: JSON.parse(row.result) };
    return { status: "intent" };
  }

  async writeIntent(key: CacheKey, replayClass: ReplayClass): Promise<void> {
    await withBusyRetry(() => this.q.intent.run(crypto.randomUUID(), ...this.args(key), replayClass, sqliteNow()));
  }

  async writeResult(key: CacheKey, replayClass: ReplayClass, outcome: ToolOutcome): Promise<void> {
    const now = sqliteNow();
    await withBusyRetry(() => this.q.result.run(crypto.randomUUID(), ...this.args(key), replayClass, JSON.stringify(outcome), now, now));
  }
}
