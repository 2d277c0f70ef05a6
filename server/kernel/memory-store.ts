import crypto from "node:crypto";
import type { CheckpointState } from "./checkpoint";
import type { NewRunEvent, RunEventRecord, RunEventType } from "./events";
import { assertTransition, isTerminal, type RunState } from "./states";
import type { EventListener, RunRecord, RunStore, StepCommit, StoredCheckpoint, TransitionPatch } from "./store";

/** Same contract as PrismaRunStore, kept in memory (benchmark baseline, tests). */
export class MemoryRunStore implements RunStore {
  private readonly runs = new Map<string, RunRecord & { error?: TransitionPatch["error"]; endedAt?: Date }>();
  private readonly events = new Map<string, Array<RunEventRecord & { key?: string }>>();
  private readonly checkpoints = new Map<string, Array<{ id: string; seq: number; json: string }>>();

  constructor(private readonly onEvents: EventListener = () => {}) {}

  addRun(run: RunRecord) {
    this.runs.set(run.id, { ...run });
    this.events.set(run.id, []);
    this.checkpoints.set(run.id, []);
  }

  async getRun(runId: string) {
    const r = this.runs.get(runId);
    return r ? { ...r } : null;
  }

  private reasons = new Map<string, string | undefined>();

  async runIdsIn(states: RunState[], reasonPrefix?: string) {
    return [...this.runs.values()]
      .filter((r) => states.includes(r.status) && (reasonPrefix === undefined || (this.reasons.get(r.id) ?? "").startsWith(reasonPrefix)))
      .map((r) => r.id);
  }

  async transition(runId: string, from: RunState[], to: RunState, patch: TransitionPatch = {}, actor = "system") {
    from.forEach((f) => assertTransition(f, to));
    const run = this.runs.get(runId);
    if (!run || !from.includes(run.status)) return false;
    if (patch.ifReasonStartsWith !== undefined && !(this.reasons.get(runId) ?? "").startsWith(patch.ifReasonStartsWith)) return false;
    this.reasons.set(runId, patch.reason);
    const prev = run.status;
    run.status = to;
    if (patch.error) run.error = patch.error;
    if (isTerminal(to)) run.endedAt = new Date();
    else if (isTerminal(prev)) ((run.endedAt = undefined), (run.error = patch.error));
    await this.appendEvents(runId, [{ type: "run.state", actor, payload: { from: prev, to, reason: patch.reason, error: patch.error } }]);
    return true;
  }

  async appendEventsSoon(runId: string, events: NewRunEvent[]) {
    await this.appendEvents(runId, events);
  }

  async appendEvents(runId: string, events: NewRunEvent[]) {
    const log = this.events.get(runId);
    if (!log) throw new Error(`No run ${runId}`);
    const written: RunEventRecord[] = [];
    for (const e of events) {
      if (e.key && log.some((x) => x.key === e.key)) continue;
      const rec = {
        runId,
        seq: log.length + 1,
        type: e.type,
        actor: e.actor ?? null,
        // Stored as JSON text, like the database, so both backends do the same work.
        payload: JSON.parse(JSON.stringify(e.payload)),
        createdAt: new Date(),
        key: e.key,
      };
      log.push(rec);
      written.push(rec);
    }
    if (written.length) this.onEvents(runId, written);
    return written;
  }

  async commitStep(runId: string, step: StepCommit): Promise<StoredCheckpoint> {
    // Like the database: a duplicate checkpoint number fails the whole commit.
    if ((this.checkpoints.get(runId) ?? []).some((c) => c.seq === step.seq)) {
      throw new Error(`Checkpoint ${step.seq} of run ${runId} exists already`);
    }
    await this.appendEvents(runId, step.events);
    const id = crypto.randomUUID();
    this.checkpoints.get(runId)!.push({ id, seq: step.seq, json: JSON.stringify(step.checkpoint) });
    return { id, seq: step.seq, state: step.checkpoint };
  }

  async latestCheckpoint(runId: string) {
    const list = this.checkpoints.get(runId) ?? [];
    const last = list[list.length - 1];
    return last ? { id: last.id, seq: last.seq, state: JSON.parse(last.json) as CheckpointState } : null;
  }

  async listEvents(runId: string, after: number, limit: number) {
    return (this.events.get(runId) ?? []).filter((e) => e.seq > after).slice(0, limit);
  }

  async eventsOfType(runId: string, type: RunEventType, after: number) {
    return (this.events.get(runId) ?? []).filter((e) => e.seq > after && e.type === type);
  }
}
