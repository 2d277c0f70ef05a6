// The channels' one loop (docs/channels.md#the-outbox): outbox messages,
// written with the run events they report, are handed to every channel (webhook
// deliveries, Slack and e-mail notifications) and then marked done; due webhook
// deliveries are sent. A message is marked only after every channel took it,
// so a process that dies in between hands it out again after a restart, and
// each channel makes one copy of it (deliveries and channel messages are
// unique per message).
import type { Db } from "@/server/db";
import type { Webhooks } from "./webhooks/service";

export interface OutboxMessageView {
  id: string;
  type: string;
  runId: string | null;
  seq: number | null;
  data: string;
  createdAt: Date;
}

/** A channel that hears every outbox message (Slack, e-mail); it must not throw for one it does not want. */
export type OutboxListener = (message: OutboxMessageView) => Promise<void>;

export interface DispatcherDeps {
  db: Db;
  webhooks: Webhooks;
  listeners?: OutboxListener[];
  log?: { error(msg: string, err?: unknown): void };
  now?: () => Date;
}

const BATCH = 100;
const DELIVERY_BATCH = 200;
const PRUNE_EVERY_MS = 3600_000;

export class ChannelDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private lastPrune = 0;
  private stopped = false;

  constructor(private readonly deps: DispatcherDeps) {}

  addListener(listener: OutboxListener) {
    (this.deps.listeners ??= []).push(listener);
  }

  /** Hands out every message not handed out yet; returns how many. */
  async dispatch(): Promise<number> {
    let total = 0;
    for (;;) {
      const batch = await this.deps.db.outboxMessage.findMany({
        where: { dispatchedAt: null },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take: BATCH,
      });
      if (batch.length === 0) return total;
      for (const m of batch) {
        for (const listener of this.deps.listeners ?? []) {
          await listener(m).catch((err) => this.deps.log?.error(`a channel could not take outbox message ${m.id} (${m.type})`, err));
        }
      }
      await this.deps.webhooks.fanOut(batch);
      await this.deps.db.outboxMessage.updateMany({
        where: { id: { in: batch.map((m) => m.id) } },
        data: { dispatchedAt: this.deps.now?.() ?? new Date() },
      });
      total += batch.length;
      if (batch.length < BATCH) return total;
    }
  }

  /** One pass: hand out, send what is due, and now and then drop what is past its retention. */
  async tick(): Promise<void> {
    await this.dispatch();
    // A burst (an event to a hundred endpoints) has more due than one batch: send batch after batch until none is left.
    while ((await this.deps.webhooks.deliverDue(DELIVERY_BATCH)) >= DELIVERY_BATCH && !this.stopped) {
      /* the next batch */
    }
    if (Date.now() - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = Date.now();
      await this.deps.webhooks.prune();
    }
  }

  /** Something was written: run a pass now rather than at the next interval. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.tick()
      .catch((err) => this.deps.log?.error("the channel dispatcher failed", err))
      .finally(() => {
        this.running = null;
        if (this.again && !this.stopped) {
          this.again = false;
          this.kick();
        }
      });
  }

  start(intervalMs = 1000): void {
    if (this.timer) return;
    this.stopped = false;
    this.kick();
    this.timer = setInterval(() => this.kick(), intervalMs);
    this.timer.unref();
  }

  /** Waits for the pass in flight. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.idle();
  }
}
