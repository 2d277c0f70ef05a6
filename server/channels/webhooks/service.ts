// Signed webhook endpoints (docs/channels.md#webhooks, issue 19): what admins manage in
// Settings › Channels › Webhooks, the REST API and the CLI, and the delivery
// worker. Each outbox message (server/kernel/outbox.ts) becomes one delivery
// per endpoint that subscribed to its type; a delivery is tried on the retry
// schedule until the endpoint answers 2xx, every attempt logged with what
// went out and what came back. The worker's state is all in the database: a
// process that dies mid-way leaves a lease that runs out, and the next one
// goes on.
import crypto from "node:crypto";
import { z } from "zod";
import { recordAudit } from "@/server/audit";
import type { Db, Prisma } from "@/server/db";
import type { Actor } from "@/server/identity";
import { OUTBOX_TYPES, OUTBOX_TYPE_LABELS, type OutboxType } from "@/server/kernel";
import { openValue, sealValue, type SecretKeyring } from "@/server/secrets";
import { ChannelError, parseChannelInput, requireChannelAdmin } from "../errors";
import { AllowHostsInput } from "./allow-hosts";
import { afterAttempt, type AttemptVerdict } from "./schedule";
import { checkTarget, sendWebhook, type SendOptions, type SendResult } from "./send";
import { newWebhookSecret, webhookHeaders } from "./signing";

/** How long the old secret still signs after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;
/** How far back Recover reaches: outbox messages are kept this long. */
export const OUTBOX_RETENTION_MS = 7 * 24 * 3600_000;
/** A worker holds a delivery this long; if it dies, another takes it after. */
const LEASE_MS = 60_000;
/** Attempts in flight at once. */
const CONCURRENCY = 16;
/** Writes of attempts recorded together. */
const WRITE_BATCH = 96;
export const ALLOW_HOSTS_SETTING = "webhooks.allowHosts";
export const TEST_EVENT_TYPE = "webhook.test";

const EventType = z.enum([...OUTBOX_TYPES, "*"] as [string, ...string[]], {
  error: `an event type is one of ${OUTBOX_TYPES.join(", ")}, or * for all`,
});

export const WebhookInput = z
  .object({
    url: z.string().trim().min(1, "the URL is required").max(2000, "a URL is at most 2000 characters").url("that is not a URL"),
    description: z.string().trim().max(300, "a description is at most 300 characters").default(""),
    eventTypes: z
      .array(EventType)
      .min(1, "choose at least one event type")
      .max(OUTBOX_TYPES.length + 1),
    teamId: z.string().min(1).max(64).nullable().default(null),
  })
  .strict();
export const WebhookUpdate = z
  .object({
    url: WebhookInput.shape.url.optional(),
    description: WebhookInput.shape.description.optional(),
    eventTypes: WebhookInput.shape.eventTypes.optional(),
    teamId: WebhookInput.shape.teamId.optional(),
    enabled: z.boolean().optional(),
  })
  .strict();

export interface WebhookEndpointView {
  id: string;
  url: string;
  description: string;
  eventTypes: string[];
  teamId: string | null;
  /** The team with its name as it is now; null for every team. */
  team: { id: string; name: string } | null;
  enabled: boolean;
  disabledAt: string | null;
  disabledReason: string | null;
  failingSince: string | null;
  /** Until when the previous secret also signs (after a rotation). */
  rotatingUntil: string | null;
  createdAt: string;
  counts: { pending: number; failed: number; succeeded: number };
}

export interface WebhookDeliveryView {
  id: string;
  endpointId: string;
  messageId: string;
  type: string;
  state: "pending" | "succeeded" | "failed";
  attempts: number;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookAttemptView {
  id: string;
  trigger: string;
  at: string;
  durationMs: number;
  request: { url: string; headers: Record<string, string>; body: string };
  response: { status: number | null; headers: Record<string, string>; body: string } | null;
  error: string | null;
  nextRetryAt: string | null;
}

export interface WebhooksDeps {
  db: Db;
  keyring: SecretKeyring;
  /** Rein's address, for the run links in payloads. */
  publicUrl?: string;
  now?: () => Date;
  /** In [0, 1): the retry jitter (tests pass a fixed one). */
  random?: () => number;
  /** Name resolution for the SSRF guard (tests play DNS tricks with it). */
  lookup?: SendOptions["lookup"];
  timeoutMs?: number;
  log?: { error(msg: string, err?: unknown): void };
  /** An endpoint was disabled (410, 5 days of failures): admins hear of it. */
  onDisabled?: (endpoint: { id: string; url: string; reason: string }) => void;
}

type EndpointRow = NonNullable<Awaited<ReturnType<Db["webhookEndpoint"]["findUnique"]>>>;
type DeliveryRow = NonNullable<Awaited<ReturnType<Db["webhookDelivery"]["findUnique"]>>>;

const place = (endpointId: string) => `webhook:${endpointId}`;

export class Webhooks {
  private allowHostsCache: { hosts: string[]; at: number } | null = null;

  constructor(private readonly deps: WebhooksDeps) {}

  private now() {
    return this.deps.now?.() ?? new Date();
  }

  // ---- what admins do -------------------------------------------------------------

  /** A new endpoint; its signing secret is in the answer and nowhere else, ever again. */
  async create(actor: Actor, input: unknown, channel = "admin"): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
    requireChannelAdmin(actor, "Adding a webhook");
    const data = parseChannelInput(WebhookInput, input);
    await this.checkUrl(data.url);
    await this.checkTeam(data.teamId);
    const id = crypto.randomUUID();
    const secret = newWebhookSecret();
    await this.deps.db.webhookEndpoint.create({
      data: {
        id,
        url: data.url,
        description: data.description,
        eventTypes: JSON.stringify(normalTypes(data.eventTypes)),
        teamId: data.teamId,
        secret: sealValue(this.deps.keyring, place(id), secret),
        createdById: actor.userId,
      },
    });
    await this.audit(actor, channel, "webhook.added", data.url, null, "enabled", { id, eventTypes: data.eventTypes, teamId: data.teamId });
    return { endpoint: await this.get(actor, id), secret };
  }

  async update(actor: Actor, id: string, input: unknown, channel = "admin"): Promise<WebhookEndpointView> {
    requireChannelAdmin(actor, "Changing a webhook");
    const row = await this.row(id);
    const data = parseChannelInput(WebhookUpdate, input);
    if (data.url !== undefined) await this.checkUrl(data.url);
    if (data.teamId !== undefined) await this.checkTeam(data.teamId);
    const enable = data.enabled === true && row.disabledAt;
    const disable = data.enabled === false && !row.disabledAt;
    await this.deps.db.webhookEndpoint.update({
      where: { id },
      data: {
        ...(data.url !== undefined ? { url: data.url } : {}),
        ...(data.description !== undefined ? { description: data.description } : {}),
        ...(data.eventTypes !== undefined ? { eventTypes: JSON.stringify(normalTypes(data.eventTypes)) } : {}),
        ...(data.teamId !== undefined ? { teamId: data.teamId } : {}),
        ...(enable ? { disabledAt: null, disabledReason: null, failingSince: null } : {}),
        ...(disable ? { disabledAt: this.now(), disabledReason: `Turned off by ${actor.name}` } : {}),
      },
    });
    const before = row.disabledAt ? "disabled" : "enabled";
    const after = enable ? "enabled" : disable ? "disabled" : before;
    await this.audit(actor, channel, "webhook.updated", data.url ?? row.url, before, after, { id, changed: Object.keys(data) });
    return this.get(actor, id);
  }

  async remove(actor: Actor, id: string, channel = "admin"): Promise<void> {
    requireChannelAdmin(actor, "Removing a webhook");
    const row = await this.row(id);
    await this.deps.db.webhookEndpoint.delete({ where: { id } });
    await this.audit(actor, channel, "webhook.removed", row.url, row.disabledAt ? "disabled" : "enabled", "removed", { id });
  }

  /** A new secret, shown once; the old one keeps signing for 24 h so receivers can switch over. */
  async rotate(actor: Actor, id: string, channel = "admin"): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
    requireChannelAdmin(actor, "Rotating a webhook's secret");
    const row = await this.row(id);
    const secret = newWebhookSecret();
    const until = new Date(this.now().getTime() + ROTATION_OVERLAP_MS);
    await this.deps.db.webhookEndpoint.update({
      where: { id },
      data: { secret: sealValue(this.deps.keyring, place(id), secret), previousSecret: row.secret, previousSecretUntil: until },
    });
    await this.audit(actor, channel, "webhook.rotated", row.url, null, null, { id, previousSignsUntil: until.toISOString() });
    return { endpoint: await this.get(actor, id), secret };
  }

  async list(actor: Actor): Promise<WebhookEndpointView[]> {
    requireChannelAdmin(actor, "Seeing webhooks");
    const rows = await this.deps.db.webhookEndpoint.findMany({ orderBy: { createdAt: "asc" } });
    return this.views(rows);
  }

  async get(actor: Actor, id: string): Promise<WebhookEndpointView> {
    requireChannelAdmin(actor, "Seeing a webhook");
    return (await this.views([await this.row(id)]))[0];
  }

  /** Newest first, `limit` at a time; `before` is the last id of the previous page. */
  async deliveries(
    actor: Actor,
    endpointId: string,
    opts: { state?: string; limit?: number; before?: string } = {},
  ): Promise<{ deliveries: WebhookDeliveryView[]; next: string | null }> {
    requireChannelAdmin(actor, "Seeing a webhook's deliveries");
    await this.row(endpointId);
    const limit = Math.min(Math.max(opts.limit ?? 50, 1), 200);
    const state = opts.state && ["pending", "succeeded", "failed"].includes(opts.state) ? opts.state : undefined;
    const rows = await this.deps.db.webhookDelivery.findMany({
      where: { endpointId, ...(state ? { state } : {}) },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: limit + 1,
      ...(opts.before ? { cursor: { id: opts.before }, skip: 1 } : {}),
    });
    const page = rows.slice(0, limit);
    return { deliveries: page.map(deliveryView), next: rows.length > limit ? page[page.length - 1].id : null };
  }

  /** One delivery with its payload and every attempt, newest first. */
  async delivery(
    actor: Actor,
    deliveryId: string,
  ): Promise<WebhookDeliveryView & { body: string; url: string; log: WebhookAttemptView[] }> {
    requireChannelAdmin(actor, "Seeing a webhook delivery");
    const row = await this.deps.db.webhookDelivery.findUnique({
      where: { id: deliveryId },
      include: { endpoint: { select: { url: true } }, attemptLog: { orderBy: { at: "desc" }, take: 50 } },
    });
    if (!row) throw new ChannelError("NOT_FOUND", `There is no webhook delivery ${deliveryId}`);
    return {
      ...deliveryView(row),
      body: row.body,
      url: row.endpoint.url,
      log: row.attemptLog.map((a) => attemptView(a, row.endpoint.url, row.body)),
    };
  }

  /** A ping (type webhook.test) sent now; the answer says how the endpoint answered. */
  async test(actor: Actor, id: string, channel = "admin"): Promise<WebhookAttemptView & { deliveryId: string; delivered: boolean }> {
    requireChannelAdmin(actor, "Testing a webhook");
    const endpoint = await this.row(id);
    const messageId = `test_${crypto.randomBytes(12).toString("base64url")}`;
    const body = this.body(
      TEST_EVENT_TYPE,
      { message: "A test ping from Rein: this endpoint receives Rein's webhooks", endpointId: id, by: actor.name },
      this.now(),
    );
    const delivery = await this.deps.db.webhookDelivery.create({
      data: { endpointId: id, messageId, type: TEST_EVENT_TYPE, body, state: "pending", nextAttemptAt: null },
    });
    const attempt = await this.attempt({ ...delivery, endpoint }, "test");
    await this.audit(actor, channel, "webhook.tested", endpoint.url, null, null, {
      id,
      status: attempt.response?.status ?? null,
      error: attempt.error,
    });
    return { ...attempt, deliveryId: delivery.id, delivered: isSuccess(attempt.response?.status ?? null) };
  }

  /** One delivery sent again now, whatever became of it; its id (webhook-id) stays, so receivers can dedupe. */
  async resend(actor: Actor, deliveryId: string, channel = "admin"): Promise<WebhookAttemptView & { delivered: boolean }> {
    requireChannelAdmin(actor, "Resending a webhook delivery");
    const row = await this.deps.db.webhookDelivery.findUnique({ where: { id: deliveryId }, include: { endpoint: true } });
    if (!row) throw new ChannelError("NOT_FOUND", `There is no webhook delivery ${deliveryId}`);
    if (row.endpoint.disabledAt) throw new ChannelError("CONFLICT", "This webhook is turned off; turn it on to resend");
    const attempt = await this.attempt(row, "resend");
    await this.audit(actor, channel, "webhook.resent", row.endpoint.url, row.state, null, {
      deliveryId,
      messageId: row.messageId,
      status: attempt.response?.status ?? null,
    });
    return { ...attempt, delivered: isSuccess(attempt.response?.status ?? null) };
  }

  /**
   * Everything since a time that this endpoint did not receive (failed, or
   * never queued because the endpoint was off) goes out again, in order.
   */
  async recover(actor: Actor, id: string, since: Date, channel = "admin"): Promise<{ queued: number }> {
    requireChannelAdmin(actor, "Recovering webhook deliveries");
    const endpoint = await this.row(id);
    if (endpoint.disabledAt) throw new ChannelError("CONFLICT", "This webhook is turned off; turn it on to recover its deliveries");
    if (Number.isNaN(since.getTime())) throw new ChannelError("INVALID_INPUT", "since: not a time");
    const oldest = new Date(this.now().getTime() - OUTBOX_RETENTION_MS);
    if (since < oldest)
      throw new ChannelError("INVALID_INPUT", `since: Rein keeps what it sent for 7 days; choose a time after ${oldest.toISOString()}`);
    const now = this.now();
    let queued = 0;
    const messages = await this.deps.db.outboxMessage.findMany({
      where: { createdAt: { gte: since } },
      orderBy: { createdAt: "asc" },
      take: 10_000,
    });
    const teams = await this.teamsOf(messages);
    for (const m of messages) {
      if (!subscribes(endpoint, m.type, teams.get(m.id) ?? null)) continue;
      const existing = await this.deps.db.webhookDelivery.findUnique({
        where: { endpointId_messageId: { endpointId: id, messageId: m.id } },
      });
      if (existing?.state === "succeeded" || existing?.state === "pending") continue;
      if (existing) {
        await this.deps.db.webhookDelivery.update({
          where: { id: existing.id },
          data: { state: "pending", nextAttemptAt: now, trigger: "recover", leaseUntil: null },
        });
      } else {
        await this.deps.db.webhookDelivery.create({
          data: {
            endpointId: id,
            messageId: m.id,
            type: m.type,
            body: this.body(m.type, JSON.parse(m.data), m.createdAt),
            state: "pending",
            nextAttemptAt: now,
            trigger: "recover",
          },
        });
      }
      queued++;
    }
    await this.audit(actor, channel, "webhook.recovered", endpoint.url, null, null, { id, since: since.toISOString(), queued });
    return { queued };
  }

  /** Hosts an admin allowed although they resolve to loopback or private addresses (a receiver inside the network). */
  async allowHosts(): Promise<string[]> {
    const cached = this.allowHostsCache;
    if (cached && Date.now() - cached.at < 5_000) return cached.hosts;
    const row = await this.deps.db.setting.findUnique({ where: { key: ALLOW_HOSTS_SETTING } });
    let hosts: string[] = [];
    try {
      const parsed = AllowHostsInput.safeParse(row ? JSON.parse(row.value) : []);
      hosts = parsed.success ? parsed.data : [];
    } catch {
      hosts = [];
    }
    this.allowHostsCache = { hosts, at: Date.now() };
    return hosts;
  }

  async setAllowHosts(actor: Actor, input: unknown, channel = "admin"): Promise<string[]> {
    requireChannelAdmin(actor, "Allowing webhook hosts");
    const hosts = [...new Set(parseChannelInput(AllowHostsInput, input).map((h) => h.toLowerCase()))];
    const value = JSON.stringify(hosts);
    await this.deps.db.setting.upsert({
      where: { key: ALLOW_HOSTS_SETTING },
      create: { key: ALLOW_HOSTS_SETTING, value, updatedById: actor.userId },
      update: { value, updatedById: actor.userId },
    });
    this.allowHostsCache = null;
    await this.audit(actor, channel, "webhook.allow_hosts", hosts.join(", ") || "(none)", null, null, { hosts });
    return hosts;
  }

  /** The event types, with what each means. */
  static eventTypes(): Array<{ type: OutboxType; label: string }> {
    return OUTBOX_TYPES.map((type) => ({ type, label: OUTBOX_TYPE_LABELS[type] }));
  }

  // ---- the worker -------------------------------------------------------------------

  /** Outbox messages become deliveries for the endpoints that want them; returns how many messages were taken. */
  async fanOut(messages: Array<{ id: string; type: string; runId: string | null; data: string; createdAt: Date }>): Promise<number> {
    if (messages.length === 0) return 0;
    const endpoints = await this.deps.db.webhookEndpoint.findMany({ where: { disabledAt: null } });
    if (endpoints.length === 0) return 0;
    const teams = await this.teamsOf(messages);
    const now = this.now();
    // A message fanned out twice (the process died before marking it) makes one delivery per endpoint.
    const existing = await this.deps.db.webhookDelivery.findMany({
      where: { messageId: { in: messages.map((m) => m.id) } },
      select: { endpointId: true, messageId: true },
    });
    const made = new Set(existing.map((d) => `${d.endpointId} ${d.messageId}`));
    const rows: Array<{ endpointId: string; messageId: string; type: string; body: string; state: string; nextAttemptAt: Date }> = [];
    for (const m of messages) {
      const body = this.body(m.type, JSON.parse(m.data), m.createdAt);
      for (const e of endpoints) {
        if (made.has(`${e.id} ${m.id}`) || !subscribes(e, m.type, teams.get(m.id) ?? null)) continue;
        rows.push({ endpointId: e.id, messageId: m.id, type: m.type, body, state: "pending", nextAttemptAt: now });
      }
    }
    if (rows.length) await this.deps.db.webhookDelivery.createMany({ data: rows });
    return rows.length;
  }

  /** Sends every delivery that is due, a few at a time; returns how many attempts were made. */
  async deliverDue(limit = 200): Promise<number> {
    const now = this.now();
    const due = await this.deps.db.webhookDelivery.findMany({
      where: { state: "pending", nextAttemptAt: { lte: now }, OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
      orderBy: { nextAttemptAt: "asc" },
      take: limit,
      include: { endpoint: true },
    });
    // Off endpoints' deliveries fail; the rest are taken in one write, and only what this pass took is sent
    // (another worker or process that read the same rows takes none of them: the lease is this pass's own).
    const off = due.filter((d) => d.endpoint.disabledAt).map((d) => d.id);
    if (off.length)
      await this.deps.db.webhookDelivery.updateMany({
        where: { id: { in: off }, state: "pending" },
        data: { state: "failed", lastError: "The endpoint is turned off", nextAttemptAt: null },
      });
    const wanted = due.filter((d) => !d.endpoint.disabledAt);
    if (wanted.length === 0) return 0;
    const lease = new Date(this.now().getTime() + LEASE_MS + crypto.randomInt(1_000));
    const claimTime = this.now();
    await this.deps.db.webhookDelivery.updateMany({
      where: { id: { in: wanted.map((d) => d.id) }, state: "pending", OR: [{ leaseUntil: null }, { leaseUntil: { lt: claimTime } }] },
      data: { leaseUntil: lease },
    });
    const taken = new Set(
      (
        await this.deps.db.webhookDelivery.findMany({
          where: { id: { in: wanted.map((d) => d.id) }, leaseUntil: lease },
          select: { id: true },
        })
      ).map((d) => d.id),
    );
    const queue = wanted.filter((d) => taken.has(d.id));
    // Attempts are recorded a few dozen at a time, in one transaction each: SQLite takes one writer at a time.
    let made = 0;
    let writes: Prisma.PrismaPromise<unknown>[] = [];
    const disables: Array<[EndpointRow, string]> = [];
    const flush = async () => {
      const batch = writes;
      writes = [];
      if (batch.length) await this.deps.db.$transaction(batch);
    };
    const work = async () => {
      for (let d = queue.shift(); d; d = queue.shift()) {
        try {
          const attempt = await this.send(d, d.trigger === "recover" ? "recover" : "scheduled");
          writes.push(...attempt.writes);
          if (attempt.disable) disables.push([d.endpoint, attempt.disable]);
          made++;
          if (writes.length >= WRITE_BATCH) await flush();
        } catch (err) {
          this.deps.log?.error(`webhook delivery ${d.id}: the attempt could not be recorded`, err);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, work));
    await flush();
    for (const [endpoint, why] of disables) await this.disable(endpoint, why);
    return made;
  }

  /** Drops outbox messages sent a week ago (deliveries have their own retention: docs/operations.md#retention). */
  async prune(): Promise<void> {
    const now = this.now().getTime();
    await this.deps.db.outboxMessage.deleteMany({
      where: { createdAt: { lt: new Date(now - OUTBOX_RETENTION_MS) }, dispatchedAt: { not: null } },
    });
  }

  /** One HTTP attempt of a delivery, logged; scheduled ones move the delivery on the retry schedule. */
  private async attempt(
    d: DeliveryRow & { endpoint: EndpointRow },
    trigger: "scheduled" | "recover" | "resend" | "test",
  ): Promise<WebhookAttemptView> {
    const made = await this.send(d, trigger);
    await this.deps.db.$transaction(made.writes);
    if (made.disable) await this.disable(d.endpoint, made.disable);
    return made.view;
  }

  /**
   * One HTTP attempt; what it changes comes back as writes not yet made, so
   * the worker records a batch of attempts in one transaction.
   */
  private async send(
    d: DeliveryRow & { endpoint: EndpointRow },
    trigger: "scheduled" | "recover" | "resend" | "test",
  ): Promise<{ writes: Prisma.PrismaPromise<unknown>[]; disable: string | null; view: WebhookAttemptView }> {
    const endpoint = d.endpoint;
    const started = this.now();
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": "Rein-Webhooks/1",
      ...webhookHeaders(this.secretsOf(endpoint, started), d.messageId, Math.floor(started.getTime() / 1000), d.body),
    };
    const result = await sendWebhook(
      { url: endpoint.url, headers, body: d.body },
      { allowHosts: await this.allowHosts(), lookup: this.deps.lookup, timeoutMs: this.deps.timeoutMs },
    );
    const now = this.now();
    const manual = trigger === "resend" || trigger === "test";
    const verdict: AttemptVerdict = result.refused
      ? { kind: "failed", why: `Not sent: ${result.error}` }
      : afterAttempt({
          attempt: d.attempts + 1,
          status: result.status,
          retryAfter: result.headers["retry-after"],
          now,
          healthySince: endpoint.failingSince ?? now,
          random: this.deps.random?.(),
        });
    const delivered = verdict.kind === "delivered";
    const id = `atmpt_${crypto.randomBytes(12).toString("base64url")}`;
    const nextRetryAt = !manual && verdict.kind === "retry" ? verdict.at : null;
    const error = result.error ?? (verdict.kind === "delivered" ? null : verdict.why);
    // A resend that fails leaves the delivery's own schedule alone; a ping (never scheduled) that fails has failed.
    const next = manual
      ? delivered
        ? { state: "succeeded", nextAttemptAt: null }
        : d.state === "pending" && d.nextAttemptAt === null
          ? { state: "failed" }
          : {}
      : verdict.kind === "delivered"
        ? { state: "succeeded", nextAttemptAt: null }
        : verdict.kind === "retry"
          ? { state: "pending", nextAttemptAt: verdict.at }
          : { state: "failed", nextAttemptAt: null };
    const db = this.deps.db;
    const writes: Prisma.PrismaPromise<unknown>[] = [
      db.webhookAttempt.create({
        data: {
          id,
          deliveryId: d.id,
          trigger,
          at: started,
          durationMs: Math.round(result.durationMs),
          requestHeaders: JSON.stringify(headers),
          responseStatus: result.status,
          responseHeaders: result.status === null ? null : JSON.stringify(result.headers),
          responseBody: result.status === null ? null : result.body,
          error,
          nextRetryAt,
        },
        select: { id: true },
      }),
      db.webhookDelivery.update({
        where: { id: d.id },
        data: {
          ...next,
          attempts: { increment: 1 },
          lastStatus: result.status,
          lastError: delivered ? null : error,
          leaseUntil: null,
          trigger: "scheduled",
        },
        select: { id: true },
      }),
      // A test ping or a resend says how the endpoint is, but only scheduled attempts move it towards being disabled.
      ...(delivered && endpoint.failingSince
        ? [db.webhookEndpoint.updateMany({ where: { id: endpoint.id }, data: { failingSince: null } })]
        : !delivered && !manual && !result.refused && !endpoint.failingSince
          ? [db.webhookEndpoint.updateMany({ where: { id: endpoint.id, failingSince: null }, data: { failingSince: now } })]
          : []),
    ];
    const view = attemptView(
      {
        id,
        trigger,
        at: started,
        durationMs: Math.round(result.durationMs),
        requestHeaders: JSON.stringify(headers),
        responseStatus: result.status,
        responseHeaders: result.status === null ? null : JSON.stringify(result.headers),
        responseBody: result.status === null ? null : result.body,
        error,
        nextRetryAt,
      },
      endpoint.url,
      d.body,
    );
    return { writes, disable: !manual && verdict.kind === "disable" ? verdict.why : null, view };
  }

  private async disable(endpoint: EndpointRow, reason: string) {
    const res = await this.deps.db.webhookEndpoint.updateMany({
      where: { id: endpoint.id, disabledAt: null },
      data: { disabledAt: this.now(), disabledReason: reason },
    });
    if (res.count !== 1) return;
    await this.deps.db.webhookDelivery.updateMany({
      where: { endpointId: endpoint.id, state: "pending" },
      data: { state: "failed", lastError: `The endpoint was turned off: ${reason}`, nextAttemptAt: null },
    });
    await recordAudit(this.deps.db, {
      kind: "webhook.disabled",
      actorId: "system",
      actorName: "Rein",
      channel: "webhook",
      subject: endpoint.url,
      fromState: "enabled",
      toState: "disabled",
      detail: { id: endpoint.id, reason },
    });
    this.deps.onDisabled?.({ id: endpoint.id, url: endpoint.url, reason });
  }

  // ---- helpers ----------------------------------------------------------------------

  /** The payload: Standard Webhooks' recommended shape, with a link to the run. */
  private body(type: string, data: Record<string, unknown>, at: Date): string {
    const runId = typeof data.runId === "string" ? data.runId : null;
    const link = runId && this.deps.publicUrl ? { url: `${this.deps.publicUrl.replace(/\/$/, "")}/runs/${runId}` } : {};
    return JSON.stringify({ type, timestamp: at.toISOString(), data: { ...data, ...link } });
  }

  /** The current secret, and the previous one while the rotation overlap lasts. */
  private secretsOf(endpoint: EndpointRow, now: Date): string[] {
    const out = [openValue(this.deps.keyring, place(endpoint.id), endpoint.secret)];
    if (endpoint.previousSecret && endpoint.previousSecretUntil && endpoint.previousSecretUntil > now)
      out.push(openValue(this.deps.keyring, place(endpoint.id), endpoint.previousSecret));
    return out;
  }

  private async checkUrl(url: string) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ChannelError("INVALID_INPUT", "url: that is not a URL", [{ field: "url", message: "that is not a URL" }]);
    }
    const target = await checkTarget(parsed, { allowHosts: await this.allowHosts(), lookup: this.deps.lookup });
    if (!target.ok) throw new ChannelError("INVALID_INPUT", `url: ${target.reason}`, [{ field: "url", message: target.reason }]);
  }

  private async checkTeam(teamId: string | null) {
    if (teamId === null) return;
    const team = await this.deps.db.team.findUnique({ where: { id: teamId }, select: { id: true } });
    if (!team)
      throw new ChannelError("INVALID_INPUT", "teamId: there is no such team", [{ field: "teamId", message: "there is no such team" }]);
  }

  private async row(id: string): Promise<EndpointRow> {
    const row = await this.deps.db.webhookEndpoint.findUnique({ where: { id } });
    if (!row) throw new ChannelError("NOT_FOUND", `There is no webhook ${id}`);
    return row;
  }

  /**
   * The team each message is about, by message id: its run's; for a message
   * of no run (a team's budget warning from a gateway key's call,
   * docs/gateway.md#team-keys), the team its data names.
   */
  private async teamsOf(messages: Array<{ id: string; runId: string | null; data: string }>): Promise<Map<string, string | null>> {
    const ids = [...new Set(messages.flatMap((m) => (m.runId ? [m.runId] : [])))];
    const rows = ids.length ? await this.deps.db.run.findMany({ where: { id: { in: ids } }, select: { id: true, teamId: true } }) : [];
    const runTeams = new Map(rows.map((r) => [r.id, r.teamId]));
    return new Map(messages.map((m) => [m.id, m.runId ? (runTeams.get(m.runId) ?? null) : teamNamedIn(m.data)]));
  }

  private async views(rows: EndpointRow[]): Promise<WebhookEndpointView[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const counts = await this.deps.db.webhookDelivery.groupBy({
      by: ["endpointId", "state"],
      where: { endpointId: { in: ids } },
      _count: { _all: true },
    });
    const teamIds = rows.map((r) => r.teamId).filter((t): t is string => !!t);
    const teams = teamIds.length
      ? await this.deps.db.team.findMany({ where: { id: { in: teamIds } }, select: { id: true, name: true } })
      : [];
    const now = this.now();
    return rows.map((r) => {
      const c = { pending: 0, failed: 0, succeeded: 0 };
      for (const g of counts) if (g.endpointId === r.id && g.state in c) c[g.state as keyof typeof c] = g._count._all;
      return {
        id: r.id,
        url: r.url,
        description: r.description,
        eventTypes: JSON.parse(r.eventTypes) as string[],
        teamId: r.teamId,
        team: teams.find((t) => t.id === r.teamId) ?? null,
        enabled: !r.disabledAt,
        disabledAt: r.disabledAt?.toISOString() ?? null,
        disabledReason: r.disabledReason,
        failingSince: r.failingSince?.toISOString() ?? null,
        rotatingUntil: r.previousSecretUntil && r.previousSecretUntil > now ? r.previousSecretUntil.toISOString() : null,
        createdAt: r.createdAt.toISOString(),
        counts: c,
      };
    });
  }

  private async audit(
    actor: Actor,
    channel: string,
    kind: string,
    subject: string,
    fromState: string | null,
    toState: string | null,
    detail: Record<string, unknown>,
  ) {
    await recordAudit(this.deps.db, { kind, actorId: actor.userId, actorName: actor.name, channel, subject, fromState, toState, detail });
  }
}

function normalTypes(types: string[]): string[] {
  return types.includes("*") ? ["*"] : [...new Set(types)].sort();
}

function teamNamedIn(data: string): string | null {
  try {
    const teamId = (JSON.parse(data) as { teamId?: unknown } | null)?.teamId;
    return typeof teamId === "string" ? teamId : null;
  } catch {
    return null;
  }
}

function subscribes(e: { eventTypes: string; teamId: string | null }, type: string, runTeam: string | null): boolean {
  if (e.teamId && e.teamId !== runTeam) return false;
  const types = JSON.parse(e.eventTypes) as string[];
  return types.includes("*") || types.includes(type);
}

function isSuccess(status: number | null) {
  return status !== null && status >= 200 && status < 300;
}

function deliveryView(r: DeliveryRow): WebhookDeliveryView {
  return {
    id: r.id,
    endpointId: r.endpointId,
    messageId: r.messageId,
    type: r.type,
    state: r.state as WebhookDeliveryView["state"],
    attempts: r.attempts,
    nextAttemptAt: r.state === "pending" ? (r.nextAttemptAt?.toISOString() ?? null) : null,
    lastStatus: r.lastStatus,
    lastError: r.lastError,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

function attemptView(
  a: {
    id: string;
    trigger: string;
    at: Date;
    durationMs: number;
    requestHeaders: string;
    responseStatus: number | null;
    responseHeaders: string | null;
    responseBody: string | null;
    error: string | null;
    nextRetryAt: Date | null;
  },
  url: string,
  body: string,
): WebhookAttemptView {
  return {
    id: a.id,
    trigger: a.trigger,
    at: a.at.toISOString(),
    durationMs: a.durationMs,
    request: { url, headers: JSON.parse(a.requestHeaders), body },
    response:
      a.responseStatus === null
        ? null
        : { status: a.responseStatus, headers: a.responseHeaders ? JSON.parse(a.responseHeaders) : {}, body: a.responseBody ?? "" },
    error: a.error,
    nextRetryAt: a.nextRetryAt?.toISOString() ?? null,
  };
}

export type { SendResult };
