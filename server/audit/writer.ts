// The audit rows written on a run's hot path (a policy decision before every
// tool call). Through Prisma a row costs ~1 ms, most of a production step;
// over the direct SQLite connection a routine one (a call the policy allows)
// costs nothing of its own: it rides the next transaction on that connection,
// the call's replay-cache row or its step (server/db/native.ts deferWrite),
// or goes alone within 20 ms. So it is stored before an unsafe call runs
// (its intent row) and before any call's result is recorded. A crash can
// lose only the decision for a call whose result was never recorded: that
// call is decided again when the run resumes, so the row is not needed.
// Every other row (a denial, a question to a person) is written at once.
import { deferWrite, withBusyRetry, type NativeSqlite } from "@/server/db";
import { recordAudit, type AuditDb } from "./log";
import type { AuditInput } from "./types";

export interface AuditWriter {
  /** `routine`: a decision the run's next write may carry (see above). */
  record(entry: AuditInput, opts?: { routine?: boolean }): Promise<void>;
}

/** DateTime as Prisma writes it in SQLite, so rows sort and filter alike whichever path wrote them. */
const iso = (d: Date) => d.toISOString().replace("Z", "+00:00");

class SqliteAuditWriter implements AuditWriter {
  private readonly insert;

  constructor(private readonly db: NativeSqlite) {
    this.insert = db.prepare(
      // The team given, else the run's: one lookup by primary key inside the same statement.
      `INSERT INTO "AuditEntry" (at, kind, actorId, actorName, onBehalfOf, channel, runId, teamId, requestId, subject, fromState, toState, detail)
       VALUES (?, ?, ?, ?, ?, ?, ?, COALESCE(?, (SELECT "teamId" FROM "Run" WHERE "id" = ?)), ?, ?, ?, ?, ?)`,
    );
  }

  async record(entry: AuditInput, opts: { routine?: boolean } = {}): Promise<void> {
    if (!entry.kind?.trim()) throw new Error("An audit entry needs a kind");
    const values = [
      iso(entry.at ?? new Date()),
      entry.kind,
      entry.actorId ?? null,
      entry.actorName ?? null,
      entry.onBehalfOf ?? null,
      entry.channel ?? null,
      entry.runId ?? null,
      // Given (null: none), else looked up from the run.
      entry.teamId ?? null,
      entry.teamId === undefined ? (entry.runId ?? null) : null,
      entry.requestId ?? null,
      entry.subject ?? null,
      entry.fromState ?? null,
      entry.toState ?? null,
      JSON.stringify(entry.detail ?? {}),
    ];
    if (opts.routine) deferWrite(this.db, () => this.insert.run(...values));
    else await withBusyRetry(() => this.insert.run(...values));
  }
}

/** The direct connection when there is one (SQLite), else Prisma (PostgreSQL). */
export function auditWriter(db: AuditDb, native?: NativeSqlite | null): AuditWriter {
  if (native) return new SqliteAuditWriter(native);
  return { record: async (entry) => void (await recordAudit(db, entry)) };
}
