// The audit rows written on a run's hot path (a policy decision before every
// tool call). Through Prisma a row costs ~1 ms, most of a production step; over
// the direct SQLite connection it costs what an event append does. The row is
// still written before the call runs, in its own transaction: a crash can
// lose no decision, so nothing needs rebuilding.
import { withBusyRetry, type NativeSqlite } from "@/server/db";
import { recordAudit, type AuditDb } from "./log";
import type { AuditInput } from "./types";

export interface AuditWriter {
  record(entry: AuditInput): Promise<void>;
}

/** DateTime as Prisma writes it in SQLite, so rows sort and filter alike whichever path wrote them. */
const iso = (d: Date) => d.toISOString().replace("Z", "+00:00");

class SqliteAuditWriter implements AuditWriter {
  private readonly insert;

  constructor(db: NativeSqlite) {
    this.insert = db.prepare(
      `INSERT INTO "AuditEntry" (at, kind, actorId, actorName, onBehalfOf, channel, runId, requestId, subject, fromState, toState, detail)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
  }

  async record(entry: AuditInput): Promise<void> {
    if (!entry.kind?.trim()) throw new Error("An audit entry needs a kind");
    const values = [
      iso(entry.at ?? new Date()),
      entry.kind,
      entry.actorId ?? null,
      entry.actorName ?? null,
      entry.onBehalfOf ?? null,
      entry.channel ?? null,
      entry.runId ?? null,
      entry.requestId ?? null,
      entry.subject ?? null,
      entry.fromState ?? null,
      entry.toState ?? null,
      JSON.stringify(entry.detail ?? {}),
    ];
    await withBusyRetry(() => this.insert.run(...values));
  }
}

/** The direct connection when there is one (SQLite), else Prisma (PostgreSQL). */
export function auditWriter(db: AuditDb, native?: NativeSqlite | null): AuditWriter {
  if (native) return new SqliteAuditWriter(native);
  return { record: async (entry) => void (await recordAudit(db, entry)) };
}
