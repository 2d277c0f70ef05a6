// Spans into SQLite over a direct connection, one transaction per batch.
// A model call's span is written once; only then does it count in the rollups,
// so projecting an event twice never counts its cost twice. Tool and request
// spans count in SpanRollup when they end, once; an ended one is never reopened.
import { withBusyRetry, type NativeSqlite } from "@/server/db";
import { KEEPS_ENDED, SPAN_COLUMNS, spanRollupKey, spanRow } from "./span-rows";
import type { SpanRecord, SpanSink } from "./types";

const iso = (d: Date | null) => (d ? d.toISOString().replace("Z", "+00:00") : null);
const row = (s: SpanRecord) => spanRow(s, iso);

export class SqliteSpanSink implements SpanSink {
  private readonly insertOnce;
  private readonly upsert;
  private readonly rollup;
  private readonly runTotals;
  private readonly traced;
  private readonly endedBefore;
  private readonly spanRollup;

  constructor(private readonly db: NativeSqlite) {
    const placeholders = SPAN_COLUMNS.map(() => "?").join(", ");
    const cols = SPAN_COLUMNS.map((c) => `"${c}"`).join(", ");
    this.insertOnce = db.prepare(`INSERT OR IGNORE INTO "Span" (${cols}) VALUES (${placeholders})`);
    const updates = SPAN_COLUMNS.filter((c) => c !== "spanId").map((c) => `"${c}" = excluded."${c}"`).join(", ");
    this.upsert = db.prepare(`INSERT INTO "Span" (${cols}) VALUES (${placeholders}) ON CONFLICT("spanId") DO UPDATE SET ${updates} WHERE ${KEEPS_ENDED}`);
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
    this.spanRollup.run(...spanRollupKey(s), s.status === "error" ? 1 : 0);
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
