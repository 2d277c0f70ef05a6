// Spans into SQLite over a direct connection, one transaction per batch.
// A model call's span is written once; only then does it count in the rollups,
// so projecting an event twice never counts its cost twice.
import { withBusyRetry, type NativeSqlite } from "@/server/db";
import type { SpanRecord, SpanSink } from "./types";

const COLUMNS = [
  "spanId", "traceId", "parentSpanId", "runId", "kind", "name", "startTime", "endTime", "status", "teamId", "workflowId", "userId",
  "model", "tool", "inputTokens", "outputTokens", "cachedInputTokens", "costUsd", "attributes", "detail",
] as const;

const iso = (d: Date | null) => (d ? d.toISOString().replace("Z", "+00:00") : null);

function row(s: SpanRecord): unknown[] {
  return [
    s.spanId, s.traceId, s.parentSpanId, s.runId, s.kind, s.name, iso(s.startTime), iso(s.endTime), s.status, s.teamId, s.workflowId, s.userId,
    s.model, s.tool, s.inputTokens, s.outputTokens, s.cachedInputTokens, s.costUsd, JSON.stringify(s.attributes), s.detail ? JSON.stringify(s.detail) : null,
  ];
}

export class SqliteSpanSink implements SpanSink {
  private readonly insertOnce;
  private readonly upsert;
  private readonly rollup;
  private readonly runTotals;
  private readonly traced;

  constructor(private readonly db: NativeSqlite) {
    const placeholders = COLUMNS.map(() => "?").join(", ");
    const cols = COLUMNS.map((c) => `"${c}"`).join(", ");
    this.insertOnce = db.prepare(`INSERT OR IGNORE INTO "Span" (${cols}) VALUES (${placeholders})`);
    const updates = COLUMNS.filter((c) => c !== "spanId").map((c) => `"${c}" = excluded."${c}"`).join(", ");
    this.upsert = db.prepare(`INSERT INTO "Span" (${cols}) VALUES (${placeholders}) ON CONFLICT("spanId") DO UPDATE SET ${updates}`);
    this.rollup = db.prepare(
      `INSERT INTO "CostRollup" (day, teamId, workflowId, model, calls, inputTokens, outputTokens, cachedInputTokens, costUsd)
       VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?)
       ON CONFLICT(day, teamId, workflowId, model) DO UPDATE SET calls = calls + 1, inputTokens = inputTokens + excluded.inputTokens,
         outputTokens = outputTokens + excluded.outputTokens, cachedInputTokens = cachedInputTokens + excluded.cachedInputTokens,
         costUsd = costUsd + excluded.costUsd`,
    );
    this.runTotals = db.prepare(`UPDATE "Run" SET costUsd = ? WHERE id = ?`);
    this.traced = db.prepare(`UPDATE "Run" SET tracedSeq = MAX(tracedSeq, ?) WHERE id = ?`);
  }

  async write(spans: SpanRecord[], traced: Array<{ runId: string; seq: number }>): Promise<void> {
    const tx = this.db.transaction(() => {
      for (const s of spans) {
        if (s.kind === "chat") {
          if (this.insertOnce.run(...row(s)).changes === 1) {
            this.rollup.run(s.startTime.toISOString().slice(0, 10), s.teamId ?? "", s.workflowId, s.model ?? "", s.inputTokens, s.outputTokens, s.cachedInputTokens, s.costUsd);
          }
        } else {
          this.upsert.run(...row(s));
          if (s.kind === "run") this.runTotals.run(s.costUsd, s.runId);
        }
      }
      for (const t of traced) this.traced.run(t.seq, t.runId);
    });
    await withBusyRetry(() => tx());
  }
}
