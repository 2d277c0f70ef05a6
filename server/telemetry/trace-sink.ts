// TraceSink (I4): spans are buffered and written in batches, off the run
// loop's path. A normal shutdown flushes; a crash loses at most the last batch
// interval of spans, and even those are rebuilt from the event log at start-up
// (runs whose tracedSeq is behind their lastSeq are projected again).
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
    for (const s of spans) this.pending.set(s.spanId, s);
    if (covered) this.traced.set(covered.runId, Math.max(covered.seq, this.traced.get(covered.runId) ?? 0));
    if (this.pending.size >= this.maxBatch) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.intervalMs);
      this.timer.unref();
    }
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
    this.writing = this.writing
      .then(() => this.sink.write(spans, traced))
      .then(() => {
        // Exporting never holds up the next write.
        void Promise.resolve(this.exporter?.export(spans)).catch((err) => this.options.onError?.(err));
      })
      .catch((err) => this.options.onError?.(err));
    return this.writing;
  }
}
