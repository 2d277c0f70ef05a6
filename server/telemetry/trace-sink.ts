// TraceSink (I4): spans are buffered and written in batches, off the run
// loop's path. A normal shutdown flushes; a crash loses at most the last batch
// interval of spans, and even those are rebuilt from the event log at start-up
// (runs whose tracedSeq is behind their lastSeq are projected again).
import { spanKey } from "./span-rows";
import type { SpanRecord, SpanSink } from "./types";

/** Where written spans also go (OTLP); it must not throw. */
export interface SpanExporter {
  export(spans: SpanRecord[]): Promise<void> | void;
}

export interface TraceSinkOptions {
  /** How long spans wait before they are written (default 250 ms). */
  intervalMs?: number;
  /** A batch this large is written at once (default 1000 spans). */
  maxBatch?: number;
  onError?: (err: unknown) => void;
  /** Optional extra destination (OTLP export), given every written batch. */
  exporter?: SpanExporter | null;
}

export class TraceSink {
  private readonly pending = new Map<string, SpanRecord>();
  private readonly traced = new Map<string, number>();
  /** Batches handed to the sink and not yet stored: still unwritten to a reader of the database. */
  private readonly inFlight = new Set<SpanRecord[]>();
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private readonly intervalMs: number;
  private readonly maxBatch: number;
  private exporter: SpanExporter | null;

  constructor(
    private readonly sink: SpanSink,
    private readonly options: TraceSinkOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 250;
    this.maxBatch = options.maxBatch ?? 1000;
    this.exporter = options.exporter ?? null;
  }

  /** Starts, changes or stops exporting (an admin changed the OTLP endpoint). */
  setExporter(exporter: SpanExporter | null) {
    this.exporter = exporter;
  }

  /** Queues spans (a later version of a span replaces an earlier one) and the event they cover up to. */
  record(spans: SpanRecord[], covered?: { runId: string; seq: number }) {
    for (const s of spans) this.pending.set(spanKey(s), s);
    if (covered) this.traced.set(covered.runId, Math.max(covered.seq, this.traced.get(covered.runId) ?? 0));
    if (this.pending.size >= this.maxBatch) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.intervalMs);
      this.timer.unref();
    }
  }

  /**
   * The model calls of a run, or of a team's runs since `fromDay`, that are
   * queued or being written: what a reader of the database does not see yet.
   * Budgets add it to what is stored instead of flushing before every model
   * call. A chat span is written once, so little here is stored already: a
   * run projected again after a crash, a batch stored while a reader looks.
   * Those count twice, and a budget stops early rather than late.
   */
  unwrittenCalls(scope: { runId: string } | { teamId: string; fromDay: string }): { costUsd: number; latest: SpanRecord | null } {
    const seen = new Map<string, SpanRecord>();
    for (const batch of this.inFlight) for (const s of batch) seen.set(spanKey(s), s);
    for (const s of this.pending.values()) seen.set(spanKey(s), s);
    let costUsd = 0;
    let latest: SpanRecord | null = null;
    for (const s of seen.values()) {
      if (s.kind !== "chat") continue;
      if ("runId" in scope ? s.runId !== scope.runId : s.teamId !== scope.teamId || s.startTime.toISOString().slice(0, 10) < scope.fromDay)
        continue;
      costUsd += s.costUsd;
      if (!latest || s.startTime >= latest.startTime) latest = s;
    }
    return { costUsd, latest };
  }

  /** Writes everything queued so far; resolves when it is stored. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.size === 0 && this.traced.size === 0) return this.writing;
    const spans = [...this.pending.values()];
    const traced = [...this.traced].map(([runId, seq]) => ({ runId, seq }));
    this.pending.clear();
    this.traced.clear();
    this.inFlight.add(spans);
    this.writing = this.writing
      .then(() => this.sink.write(spans, traced))
      .finally(() => this.inFlight.delete(spans))
      .then(() => {
        // Exporting never holds up the next write.
        void Promise.resolve(this.exporter?.export(spans)).catch((err) => this.options.onError?.(err));
      })
      .catch((err) => this.options.onError?.(err));
    return this.writing;
  }
}
