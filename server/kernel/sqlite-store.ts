// The RunStore on SQLite through a direct connection (see server/db/native.ts).
// Same contract as PrismaRunStore, which stays the backend for PostgreSQL.
import {
  NO_FENCES,
  deferWrite,
  sqliteFence,
  sqliteNow,
  timeOrderedId,
  withBusyRetry,
  withDeferredWrites,
  type Fences,
  type NativeSqlite,
} from "@/server/db";
import { parseScenario } from "@/server/models";
import { parseCheckpoint, serializeCheckpoint } from "./checkpoint";
import type { NewRunEvent, RunEventRecord, RunEventType } from "./events";
import { outboxRowsFor } from "./outbox";
import { assertTransition, isRunState, isTerminal, type RunState } from "./states";
import type { EventListener, RunRecord, RunStore, StepCommit, StoredCheckpoint, TransitionPatch } from "./store";
import { RESUMABLE_SQL } from "./pruned";

type EventRow = { runId: string; seq: number; type: string; actor: string | null; payload: string; createdAt: string };

export class SqliteRunStore implements RunStore {
  private readonly q;
  private readonly appendTx: (runId: string, events: NewRunEvent[]) => RunEventRecord[];
  private readonly commitTx: (runId: string, step: StepCommit, id: string) => RunEventRecord[];
  private readonly checkFence: (runId: string, epoch: number) => void;

  constructor(
    private readonly db: NativeSqlite,
    private readonly onEvents: EventListener = () => {},
    /** The epochs this process holds; a held run's writes are fenced (server/db/fences.ts). */
    private readonly fences: Fences = NO_FENCES,
  ) {
    this.checkFence = sqliteFence(db);
    this.q = {
      run: db.prepare(
        `SELECT id, goal, agentName, agentVersion, status, model, scenario, maxSteps, createdById, teamId, tier, complexity FROM "Run" WHERE id = ?`,
      ),
      status: db.prepare(`SELECT status FROM "Run" WHERE id = ?`),
      keyExists: db.prepare(`SELECT 1 FROM "RunEvent" WHERE runId = ? AND key = ?`),
      bumpSeq: db.prepare(`UPDATE "Run" SET lastSeq = lastSeq + ?, updatedAt = ? WHERE id = ? RETURNING lastSeq`),
      insertEvent: db.prepare(`INSERT INTO "RunEvent" (runId, seq, type, key, actor, payload, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?)`),
      insertOutbox: db.prepare(`INSERT INTO "OutboxMessage" (id, type, runId, seq, data, createdAt) VALUES (?, ?, ?, ?, ?, ?)`),
      insertCheckpoint: db.prepare(`INSERT INTO "Checkpoint" (id, runId, seq, version, state, createdAt) VALUES (?, ?, ?, ?, ?, ?)`),
      counters: db.prepare(`UPDATE "Run" SET stepCount = ?, inputTokens = ?, outputTokens = ?, updatedAt = ? WHERE id = ?`),
      latest: db.prepare(`SELECT id, seq, state FROM "Checkpoint" WHERE runId = ? ORDER BY seq DESC LIMIT 1`),
      events: db.prepare(
        `SELECT runId, seq, type, actor, payload, createdAt FROM "RunEvent" WHERE runId = ? AND seq > ? ORDER BY seq LIMIT ?`,
      ),
      eventsOfType: db.prepare(
        `SELECT runId, seq, type, actor, payload, createdAt FROM "RunEvent" WHERE runId = ? AND type = ? AND seq > ? ORDER BY seq`,
      ),
    };
    // Every transaction also writes what waits on this connection (deferred audit rows: server/db/native.ts).
    this.appendTx = withDeferredWrites(db, (runId: string, events: NewRunEvent[]) => {
      this.fence(runId);
      return this.appendIn(runId, events);
    });
    this.commitTx = withDeferredWrites(db, (runId: string, step: StepCommit, id: string) => {
      const { checkpoint } = step;
      this.fence(runId);
      const written = this.appendIn(runId, step.events);
      const now = sqliteNow();
      this.q.insertCheckpoint.run(id, runId, step.seq, checkpoint.version, serializeCheckpoint(checkpoint), now);
      this.q.counters.run(checkpoint.step, checkpoint.usage.inputTokens, checkpoint.usage.outputTokens, now, runId);
      return written;
    });
  }

  /** Inside the transaction, first: refuses a write for a run this worker has lost. */
  private fence(runId: string) {
    const epoch = this.fences.epochOf(runId);
    if (epoch !== undefined) this.checkFence(runId, epoch);
  }

  /** Inside a transaction: skips events whose key is logged already, numbers the rest. */
  private appendIn(runId: string, events: NewRunEvent[]): RunEventRecord[] {
    const batch = new Set<string>();
    const fresh = events.filter((e) => {
      if (!e.key) return true;
      if (batch.has(e.key) || this.q.keyExists.get(runId, e.key)) return false;
      batch.add(e.key);
      return true;
    });
    if (fresh.length === 0) return [];
    const now = sqliteNow();
    const bumped = this.q.bumpSeq.get(fresh.length, now, runId) as { lastSeq: number } | undefined;
    if (!bumped) throw new Error(`No run ${runId}`);
    const first = bumped.lastSeq - fresh.length + 1;
    const createdAt = new Date(now);
    const written = fresh.map((e, i) => {
      this.q.insertEvent.run(runId, first + i, e.type, e.key ?? null, e.actor ?? null, JSON.stringify(e.payload), now);
      return { runId, seq: first + i, type: e.type, actor: e.actor ?? null, payload: e.payload, createdAt };
    });
    // What the channels report goes in with the events (server/kernel/outbox.ts).
    for (const m of outboxRowsFor(written)) this.q.insertOutbox.run(m.id, m.type, m.runId, m.seq, m.data, now);
    return written;
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    const r = this.q.run.get(runId) as (Omit<RunRecord, "scenario"> & { scenario: string | null }) | undefined;
    if (!r || !isRunState(r.status)) return null;
    return { ...r, scenario: r.scenario ? parseScenario(JSON.parse(r.scenario)) : null };
  }

  async runIdsIn(states: RunState[], reasonPrefix?: string): Promise<string[]> {
    if (states.length === 0) return [];
    const byReason = reasonPrefix !== undefined ? ` AND substr(statusReason, 1, ${reasonPrefix.length}) = ?` : "";
    const rows = this.db
      .prepare(`SELECT id FROM "Run" WHERE status IN (${states.map(() => "?").join(",")})${byReason} ORDER BY createdAt`)
      .all(...states, ...(reasonPrefix !== undefined ? [reasonPrefix] : [])) as Array<{ id: string }>;
    return rows.map((r) => r.id);
  }

  async transition(runId: string, from: RunState[], to: RunState, patch: TransitionPatch = {}, actor = "system"): Promise<boolean> {
    from.forEach((f) => assertTransition(f, to));
    const tx = withDeferredWrites(this.db, (): RunEventRecord[] | null => {
      this.fence(runId);
      const current = this.q.status.get(runId) as { status: RunState } | undefined;
      if (!current || !from.includes(current.status)) return null;
      const now = sqliteNow();
      const sets = ["status = ?", "statusReason = ?", "updatedAt = ?"];
      const args: unknown[] = [to, patch.reason ?? null, now];
      if (patch.error) (sets.push("errorCode = ?", "errorMessage = ?"), args.push(patch.error.code, patch.error.message));
      // The first start: a run resumed after a pause or a person's answer keeps it, so its duration counts from there.
      if (to === "running") (sets.push("startedAt = COALESCE(startedAt, ?)"), args.push(now));
      if (isTerminal(to)) (sets.push("endedAt = ?"), args.push(now));
      // An ended run a person continues or retries: it is not ended any more, and its last error is history.
      else if (isTerminal(current.status) && !patch.error) sets.push("endedAt = NULL", "errorCode = NULL", "errorMessage = NULL");
      // Reopening checks, in this same UPDATE, that retention has not dropped what going on needs.
      const reopening = isTerminal(current.status) && !isTerminal(to) && !patch.error;
      const byReason = patch.ifReasonStartsWith !== undefined ? ` AND substr(statusReason, 1, ${patch.ifReasonStartsWith.length}) = ?` : "";
      const changed = this.db
        .prepare(`UPDATE "Run" SET ${sets.join(", ")} WHERE id = ? AND status = ?${reopening ? ` AND ${RESUMABLE_SQL}` : ""}${byReason}`)
        .run(...args, runId, current.status, ...(patch.ifReasonStartsWith !== undefined ? [patch.ifReasonStartsWith] : [])).changes;
      if (changed !== 1) return null;
      return this.appendIn(runId, [
        { type: "run.state", actor, payload: { from: current.status, to, reason: patch.reason, error: patch.error } },
      ]);
    });
    const events = await withBusyRetry(() => tx());
    if (!events) return false;
    this.onEvents(runId, events);
    return true;
  }

  async appendEvents(runId: string, events: NewRunEvent[]): Promise<RunEventRecord[]> {
    const written = await withBusyRetry(() => this.appendTx(runId, events));
    if (written.length) this.onEvents(runId, written);
    return written;
  }

  async appendEventsSoon(runId: string, events: NewRunEvent[]): Promise<void> {
    // Inside whichever transaction comes next on this connection (this store's, the replay cache's),
    // or alone within a few milliseconds; listeners hear of the events once that transaction committed.
    deferWrite(this.db, () => {
      this.fence(runId);
      const written = this.appendIn(runId, events);
      return written.length ? () => this.onEvents(runId, written) : undefined;
    });
  }

  async commitStep(runId: string, step: StepCommit): Promise<StoredCheckpoint> {
    const id = timeOrderedId();
    const written = await withBusyRetry(() => this.commitTx(runId, step, id));
    if (written.length) this.onEvents(runId, written);
    return { id, seq: step.seq, state: step.checkpoint };
  }

  async latestCheckpoint(runId: string): Promise<StoredCheckpoint | null> {
    const row = this.q.latest.get(runId) as { id: string; seq: number; state: string } | undefined;
    return row ? { id: row.id, seq: row.seq, state: parseCheckpoint(row.state) } : null;
  }

  async listEvents(runId: string, after: number, limit: number): Promise<RunEventRecord[]> {
    return (this.q.events.all(runId, after, limit) as EventRow[]).map(toRecord);
  }

  async eventsOfType(runId: string, type: RunEventType, after: number): Promise<RunEventRecord[]> {
    return (this.q.eventsOfType.all(runId, type, after) as EventRow[]).map(toRecord);
  }
}

function toRecord(r: EventRow): RunEventRecord {
  return {
    runId: r.runId,
    seq: r.seq,
    type: r.type as RunEventType,
    actor: r.actor,
    payload: JSON.parse(r.payload),
    createdAt: new Date(r.createdAt),
  };
}
