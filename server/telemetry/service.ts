// The telemetry service: every batch of run events the kernel commits is
// projected into spans and queued on the TraceSink. A run first seen by this
// process is projected from its first event, so spans never depend on which
// process saw what.
import type { Db } from "@/server/db";
import type { RunEventBus, RunEventRecord, RunStore } from "@/server/kernel";
import { PriceBook, type FREE } from "./cost";
import { RunProjection, type RunMeta } from "./project";
import type { TraceSink } from "./trace-sink";

export interface TelemetryDeps {
  db: Db;
  store: Pick<RunStore, "listEvents">;
  sink: TraceSink;
  log?: { error(msg: string, err?: unknown): void };
}

const PAGE = 1000;

export class Telemetry {
  readonly prices = new PriceBook();
  private readonly runs = new Map<string, RunProjection>();
  private readonly queues = new Map<string, Promise<void>>();

  constructor(private readonly deps: TelemetryDeps) {}

  /** Loads the price table (call again after an admin changes it). */
  async loadPrices(): Promise<void> {
    const rows = await this.deps.db.modelPrice.findMany();
    this.prices.replace(rows.map((r) => [r.model, r satisfies typeof FREE]));
  }

  /** Follows the kernel's committed events. */
  attach(bus: RunEventBus): () => void {
    return bus.onAny((runId, events) => void this.handle(runId, events));
  }

  /** Projects new events of a run, in order, one batch at a time per run. */
  handle(runId: string, events: RunEventRecord[]): Promise<void> {
    const previous = this.queues.get(runId) ?? Promise.resolve();
    const next = previous
      .then(() => this.project(runId, events))
      .catch((err) => this.deps.log?.error(`telemetry for run ${runId} failed`, err));
    this.queues.set(runId, next);
    void next.then(() => {
      if (this.queues.get(runId) === next) this.queues.delete(runId);
    });
    return next;
  }

  private async project(runId: string, events: RunEventRecord[]): Promise<void> {
    let projection = this.runs.get(runId);
    if (!projection) {
      const meta = await this.metaOf(runId);
      if (!meta) return;
      projection = new RunProjection(meta, this.prices);
      this.runs.set(runId, projection);
      // Everything before this batch, from the log: the same spans whichever process projects them.
      const first = events[0]?.seq ?? Number.MAX_SAFE_INTEGER;
      for (let after = 0; after < first - 1;) {
        const page = (await this.deps.store.listEvents(runId, after, PAGE)).filter((e) => e.seq < first);
        if (page.length === 0) break;
        this.deps.sink.record(projection.apply(page), { runId, seq: projection.lastSeq });
        after = page[page.length - 1].seq;
        if (page.length < PAGE) break;
      }
    }
    this.deps.sink.record(projection.apply(events), { runId, seq: projection.lastSeq });
    if (events.some((e) => e.type === "run.state" && ["succeeded", "failed", "canceled"].includes((e.payload as { to: string }).to))) {
      this.runs.delete(runId);
    }
  }

  /** Resolves when every batch of events handed over so far has been projected. */
  async idle(): Promise<void> {
    while (this.queues.size) await Promise.all([...this.queues.values()]);
  }

  /** Start-up: runs whose spans are behind their events (a crash, an upgrade) are projected again. */
  async catchUp(): Promise<number> {
    const behind = await this.deps.db.$queryRawUnsafe<Array<{ id: string }>>(`SELECT id FROM "Run" WHERE "tracedSeq" < "lastSeq"`);
    for (const { id } of behind) {
      this.runs.delete(id);
      await this.handle(id, []);
      // A run's events are read on the direct connection, which never yields: a turn of the loop between
      // runs keeps thousands of them behind (after an upgrade or a restore) from stalling the start.
      await new Promise((r) => setImmediate(r));
    }
    await this.deps.sink.flush();
    return behind.length;
  }

  private async metaOf(runId: string): Promise<RunMeta | null> {
    const run = await this.deps.db.run.findUnique({
      where: { id: runId },
      select: { id: true, teamId: true, agentName: true, workflow: true, createdById: true, tier: true, createdAt: true },
    });
    // An eval trial is counted under its experiment's workflow ("eval:<dataset>"), any other run under its agent.
    return run
      ? {
          runId: run.id,
          teamId: run.teamId,
          workflowId: run.workflow ?? run.agentName,
          userId: run.createdById,
          tier: run.tier,
          createdAt: run.createdAt,
        }
      : null;
  }
}
