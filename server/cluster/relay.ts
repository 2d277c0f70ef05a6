// Live run events across processes. PostgreSQL's event log stays the source
// of truth: Redis only announces that a run has new events (its last seq),
// and each web process reads them from the log, in order, from its own
// cursor, before handing them to its sockets. A lost announcement delays
// nothing for long: the next one reads everything since the cursor, and a
// browser that reconnects loads from the log anyway.
import { RunEventBus, type RunEventRecord, type RunStore, type TransientRunMessage } from "@/server/kernel";
import { readMessage, type Redis } from "./redis";

interface Announcement {
  runId: string;
  first: number;
  last: number;
}

export interface RelayChannels {
  events: string;
  transient: string;
}

/**
 * The bus of a process of several machines: what its stores write is
 * announced to the others; `localEcho` also hands it to this process's own
 * listeners (a worker's tiers, budgets and telemetry follow its own runs).
 */
export class RelayBus extends RunEventBus {
  constructor(
    private readonly redis: Redis,
    private readonly channels: RelayChannels,
    private readonly localEcho: boolean,
  ) {
    super();
  }

  override publish(runId: string, events: RunEventRecord[]) {
    if (this.localEcho) super.publish(runId, events);
    if (events.length === 0) return;
    const a: Announcement = { runId, first: events[0]!.seq, last: events[events.length - 1]!.seq };
    void this.redis.publish(this.channels.events, JSON.stringify(a)).catch(() => {});
  }

  override publishTransient(message: TransientRunMessage) {
    if (this.localEcho) super.publishTransient(message);
    void this.redis.publish(this.channels.transient, JSON.stringify(message)).catch(() => {});
  }

  /** Events read back from the log after an announcement: to this process's listeners only. */
  deliver(runId: string, events: RunEventRecord[]) {
    super.publish(runId, events);
  }

  deliverTransient(message: TransientRunMessage) {
    super.publishTransient(message);
  }
}

const MAX_CURSORS = 10_000;
const PAGE = 500;

/** A web process's reader of announcements: reads each run's new events from the log, in order, once. */
export class EventTail {
  private readonly cursors = new Map<string, number>();
  private readonly chains = new Map<string, Promise<void>>();
  /** Announcements received and events delivered, for /api/health. */
  readonly figures = { announcements: 0, delivered: 0 };

  constructor(
    private readonly opts: {
      sub: Redis;
      channels: RelayChannels;
      store: RunStore;
      bus: RelayBus;
      log: { error(msg: string, err?: unknown): void };
    },
  ) {}

  async start(): Promise<void> {
    const { sub, channels } = this.opts;
    sub.on("message", (channel, raw) => {
      if (channel === channels.events) this.onAnnouncement(raw);
      else if (channel === channels.transient) this.onTransient(raw);
    });
    await sub.subscribe(channels.events, channels.transient);
  }

  private onTransient(raw: string) {
    const m = readMessage<TransientRunMessage>(raw);
    if (typeof m?.runId === "string") this.opts.bus.deliverTransient(m as TransientRunMessage);
  }

  private onAnnouncement(raw: string) {
    const m = readMessage<Announcement>(raw);
    if (typeof m?.runId !== "string" || !Number.isInteger(m.last) || !Number.isInteger(m.first)) return;
    const a = m as Announcement;
    this.figures.announcements++;
    // One reader per run at a time, so its events go out in order.
    const prev = this.chains.get(a.runId) ?? Promise.resolve();
    const next = prev.then(() => this.catchUp(a)).catch((err) => this.opts.log.error(`run ${a.runId}: reading its new events failed`, err));
    this.chains.set(a.runId, next);
    void next.finally(() => {
      if (this.chains.get(a.runId) === next) this.chains.delete(a.runId);
    });
  }

  private async catchUp(a: Announcement) {
    let cursor = this.cursors.get(a.runId) ?? a.first - 1;
    while (cursor < a.last) {
      const events = await this.opts.store.listEvents(a.runId, cursor, PAGE);
      if (events.length === 0) break;
      cursor = events[events.length - 1]!.seq;
      this.figures.delivered += events.length;
      this.opts.bus.deliver(a.runId, events);
    }
    this.cursors.delete(a.runId); // most recently used last
    this.cursors.set(a.runId, cursor);
    if (this.cursors.size > MAX_CURSORS) this.cursors.delete(this.cursors.keys().next().value!);
  }

  async stop(): Promise<void> {
    await this.opts.sub.quit().catch(() => {});
  }
}
