import { checkFence, NO_FENCES, retryingTransaction, type Db, type Fences, type Prisma } from "@/server/db";
import { parseScenario } from "@/server/models";
import { parseCheckpoint, serializeCheckpoint } from "./checkpoint";
import type { NewRunEvent, RunEventRecord, RunEventType } from "./events";
import { outboxRowsFor } from "./outbox";
import { assertTransition, isRunState, isTerminal, type RunState } from "./states";
import type { EventListener, RunRecord, RunStore, StepCommit, StoredCheckpoint, TransitionPatch } from "./store";
import { RESUMABLE_WHERE } from "./pruned";

type Tx = Prisma.TransactionClient;

export class PrismaRunStore implements RunStore {
  constructor(
    private readonly db: Db,
    private readonly onEvents: EventListener = () => {},
    /** The epochs this process holds (several machines); a held run's writes are fenced. */
    private readonly fences: Fences = NO_FENCES,
  ) {}

  /**
   * Every write is one transaction that may wait on a frozen process's row locks (the Run row is also
   * written by web processes and by every process's spans): it is retried, never failed on a lock wait
   * (server/db/lock-waits.ts).
   */
  private write<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return retryingTransaction(this.db, work);
  }

  /** Inside the transaction, first: refuses a write for a run this worker has lost. */
  private async fence(tx: Tx, runId: string) {
    const epoch = this.fences.epochOf(runId);
    if (epoch !== undefined) await checkFence(tx, runId, epoch);
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    const r = await this.db.run.findUnique({
      where: { id: runId },
      select: {
        id: true,
        goal: true,
        agentName: true,
        agentVersion: true,
        status: true,
        model: true,
        scenario: true,
        maxSteps: true,
        createdById: true,
        teamId: true,
        tier: true,
        complexity: true,
      },
    });
    if (!r || !isRunState(r.status)) return null;
    return { ...r, status: r.status, scenario: r.scenario ? parseScenario(JSON.parse(r.scenario)) : null };
  }

  async runIdsIn(states: RunState[], reasonPrefix?: string): Promise<string[]> {
    const rows = await this.db.run.findMany({
      where: { status: { in: states }, ...(reasonPrefix !== undefined ? { statusReason: { startsWith: reasonPrefix } } : {}) },
      select: { id: true },
      orderBy: { createdAt: "asc" },
    });
    return rows.map((r) => r.id);
  }

  async transition(runId: string, from: RunState[], to: RunState, patch: TransitionPatch = {}, actor = "system"): Promise<boolean> {
    from.forEach((f) => assertTransition(f, to));
    let events: RunEventRecord[] = [];
    const ok = await this.write(async (tx) => {
      await this.fence(tx, runId);
      const current = await tx.run.findUnique({ where: { id: runId }, select: { status: true, startedAt: true } });
      // An ended run a person continues or retries: it is not ended any more, and its last error is history.
      const reopened = isTerminal(current?.status as RunState) && !isTerminal(to) && !patch.error;
      if (!current || !from.includes(current.status as RunState)) return false;
      const now = new Date();
      const res = await tx.run.updateMany({
        // Reopening checks, in this same UPDATE, that retention has not dropped what going on needs.
        where: {
          id: runId,
          status: current.status,
          ...(reopened ? RESUMABLE_WHERE : {}),
          ...(patch.ifReasonStartsWith !== undefined ? { statusReason: { startsWith: patch.ifReasonStartsWith } } : {}),
        },
        data: {
          status: to,
          statusReason: patch.reason ?? null,
          ...(patch.error ? { errorCode: patch.error.code, errorMessage: patch.error.message } : {}),
          // The first start: a resumed run keeps it, so its duration counts from there.
          ...(to === "running" && !current.startedAt ? { startedAt: now } : {}),
          ...(isTerminal(to) ? { endedAt: now, durationMs: current.startedAt ? now.getTime() - current.startedAt.getTime() : null } : {}),
          ...(reopened ? { endedAt: null, durationMs: null, errorCode: null, errorMessage: null } : {}),
        },
      });
      if (res.count !== 1) return false;
      events = await appendIn(tx, runId, [
        { type: "run.state", actor, payload: { from: current.status as RunState, to, reason: patch.reason, error: patch.error } },
      ]);
      return true;
    });
    if (ok) this.onEvents(runId, events);
    return ok;
  }

  async appendEventsSoon(runId: string, events: NewRunEvent[]): Promise<void> {
    await this.appendEvents(runId, events);
  }

  async appendEvents(runId: string, events: NewRunEvent[]): Promise<RunEventRecord[]> {
    const written = await this.write(async (tx) => {
      await this.fence(tx, runId);
      return appendIn(tx, runId, events);
    });
    if (written.length) this.onEvents(runId, written);
    return written;
  }

  async commitStep(runId: string, step: StepCommit): Promise<StoredCheckpoint> {
    const { events, checkpoint } = step;
    const [written, row] = await this.write(async (tx) => {
      await this.fence(tx, runId);
      const written = await appendIn(tx, runId, events);
      const row = await tx.checkpoint.create({
        data: { runId, seq: step.seq, version: checkpoint.version, state: serializeCheckpoint(checkpoint) },
        select: { id: true, seq: true },
      });
      await tx.run.update({
        where: { id: runId },
        data: {
          stepCount: checkpoint.step,
          inputTokens: checkpoint.usage.inputTokens,
          outputTokens: checkpoint.usage.outputTokens,
        },
      });
      return [written, row] as const;
    });
    if (written.length) this.onEvents(runId, written);
    return { id: row.id, seq: row.seq, state: checkpoint };
  }

  async latestCheckpoint(runId: string): Promise<StoredCheckpoint | null> {
    const row = await this.db.checkpoint.findFirst({
      where: { runId },
      orderBy: { seq: "desc" },
      select: { id: true, seq: true, state: true },
    });
    return row ? { id: row.id, seq: row.seq, state: parseCheckpoint(row.state) } : null;
  }

  async listEvents(runId: string, after: number, limit: number): Promise<RunEventRecord[]> {
    const rows = await this.db.runEvent.findMany({
      where: { runId, seq: { gt: after } },
      orderBy: { seq: "asc" },
      take: limit,
      select: { runId: true, seq: true, type: true, actor: true, payload: true, createdAt: true },
    });
    return rows.map(toRecord);
  }

  async eventsOfType(runId: string, type: RunEventType, after: number): Promise<RunEventRecord[]> {
    const rows = await this.db.runEvent.findMany({
      where: { runId, type, seq: { gt: after } },
      orderBy: { seq: "asc" },
      select: { runId: true, seq: true, type: true, actor: true, payload: true, createdAt: true },
    });
    return rows.map(toRecord);
  }
}

/** Appends inside a transaction: skips events whose key is already logged, numbers the rest. */
async function appendIn(tx: Tx, runId: string, events: NewRunEvent[]): Promise<RunEventRecord[]> {
  if (events.length === 0) return [];
  const keys = events.map((e) => e.key).filter((k): k is string => !!k);
  // Keys are checked under the run's row lock: on PostgreSQL two writers of
  // one key would otherwise both see it missing (SQLite writes one at a time).
  if (keys.length) await tx.run.update({ where: { id: runId }, data: { lastSeq: { increment: 0 } }, select: { id: true } });
  const seen = keys.length
    ? new Set((await tx.runEvent.findMany({ where: { runId, key: { in: keys } }, select: { key: true } })).map((r) => r.key))
    : new Set<string | null>();
  const fresh = events.filter((e) => {
    if (!e.key) return true;
    if (seen.has(e.key)) return false;
    seen.add(e.key); // a key repeated within the batch is kept once too
    return true;
  });
  if (fresh.length === 0) return [];
  const { lastSeq } = await tx.run.update({
    where: { id: runId },
    data: { lastSeq: { increment: fresh.length } },
    select: { lastSeq: true },
  });
  const first = lastSeq - fresh.length + 1;
  const createdAt = new Date();
  const rows = fresh.map((e, i) => ({
    runId,
    seq: first + i,
    type: e.type,
    key: e.key ?? null,
    actor: e.actor ?? null,
    payload: JSON.stringify(e.payload),
    createdAt,
  }));
  await tx.runEvent.createMany({ data: rows });
  const written = rows.map(toRecord);
  // What the channels report goes in with the events (server/kernel/outbox.ts).
  const outbox = outboxRowsFor(written);
  if (outbox.length) await tx.outboxMessage.createMany({ data: outbox });
  return written;
}

function toRecord(r: { runId: string; seq: number; type: string; actor: string | null; payload: string; createdAt: Date }): RunEventRecord {
  return {
    runId: r.runId,
    seq: r.seq,
    type: r.type as RunEventType,
    actor: r.actor,
    payload: JSON.parse(r.payload),
    createdAt: r.createdAt,
  };
}
