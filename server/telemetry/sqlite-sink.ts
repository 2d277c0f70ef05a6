// Spans into SQLite over a direct connection, one transaction per batch.
// A model call's span is written once; only then does it count in the rollups,
// so projecting an event twice never counts its cost twice. Tool and request
// spans count in SpanRollup when they end, once.
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
  private readonly endedBefore;
  private readonly spanRollup;

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
    this.endedBefore = db.prepare(`SELECT endTime FROM "Span" WHERE spanId = ?`).pluck();
    this.spanRollup = db.prepare(
      `INSERT INTO "SpanRollup" (day, kind, name, bucket, count, errors) VALUES (?, ?, ?, ?, 1, ?)
       ON CONFLICT(day, kind, name, bucket) DO UPDATE SET count = count + 1, errors = errors + excluded.errors`,
    );
    this.traced = db.prepare(`UPDATE "Run" SET tracedSeq = MAX(tracedSeq, ?) WHERE id = ?`);
  }

  private countEnded(s: SpanRecord) {
    const ms = s.endTime!.getTime() - s.startTime.getTime();
    const bucket = ms < 1 ? 0 : Math.floor(Math.log2(ms)) + 1;
    const name = s.kind === "chat" ? s.model ?? "" : s.kind === "execute_tool" ? s.tool ?? "" : String(s.attributes["rein.human_request.kind"] ?? "");
    this.spanRollup.run(s.startTime.toISOString().slice(0, 10), s.kind, name, bucket, s.status === "error" ? 1 : 0);
  }

  async write(spans: SpanRecord[], traced: Array<{ runId: string; seq: number }>): Promise<void> {
    const tx = this.db.transaction(() => {
      for (const s of spans) {
        if (s.kind === "chat") {
          if (this.insertOnce.run(...row(s)).changes === 1) {
            this.rollup.run(s.startTime.toISOString().slice(0, 10), s.teamId ?? "", s.workflowId, s.model ?? "", s.inputTokens, s.outputTokens, s.cachedInputTokens, s.costUsd);
            this.countEnded(s);
          }
        } else {
          // A tool or request span is written open, then ended: it counts when it ends, once.
          const wasEnded = s.kind !== "run" && s.kind !== "invoke_agent" && s.endTime !== null && this.endedBefore.get(s.spanId);
          this.upsert.run(...row(s));
          if (s.kind === "run") this.runTotals.run(s.costUsd, s.runId);
          if ((s.kind === "execute_tool" || s.kind === "human_request") && s.endTime && !wasEnded) this.countEnded(s);
        }
      }
      for (const t of traced) this.traced.run(t.seq, t.runId);
    });
    await withBusyRetry(() => tx());
  }
}
