// Webhook deliveries end to end on a real database (docs/channels.md#webhooks, issue
// 19): run events written by Rein's own run store land in the outbox in the
// same transaction, the dispatcher turns them into deliveries, and a receiver
// written from the Standard Webhooks spec checks every signature. The clock
// is the test's, so the retry schedule is seen without waiting for it.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChannelDispatcher, RETRY_SCHEDULE_MS, ROTATION_OVERLAP_MS, Webhooks } from "@/server/channels";
import { openNativeSqlite, type NativeSqlite } from "@/server/db";
import { createUser, loadActor, type Actor } from "@/server/identity";
import { PrismaRunStore, SqliteRunStore } from "@/server/kernel";
import { Budgets } from "@/server/limits";
import { memoryKeyring } from "@/server/secrets";
import { createTestDb, type TestDb } from "./helpers/db";
import { startWebhookReceiver, type WebhookReceiver } from "./helpers/webhook-receiver";

let t: TestDb;
let native: NativeSqlite | null;
/** The server's run store for this database: the direct SQLite one, or Prisma's on PostgreSQL. */
let store: SqliteRunStore | PrismaRunStore;
let admin: Actor;
let receiver: WebhookReceiver;
let clock: { offset: number; now(): Date; advance(ms: number): void };
let webhooks: Webhooks;
let dispatcher: ChannelDispatcher;

/** Webhooks on this file's database and clock, with no jitter; `timeoutMs` as given, else a server's. */
function webhooksOnTheClock(opts: { timeoutMs?: number } = {}): Webhooks {
  return new Webhooks({
    db: t.db,
    keyring: memoryKeyring(),
    publicUrl: "https://rein.example",
    now: () => clock.now(),
    random: () => 0.5,
    ...opts,
  });
}

beforeEach(async () => {
  t = await createTestDb();
  native = t.url.startsWith("file:") ? openNativeSqlite(t.url) : null;
  store = native ? new SqliteRunStore(native) : new PrismaRunStore(t.db);
  admin = (await loadActor(
    t.db,
    await createUser(t.db, { email: "ada@rein.test", name: "Ada", password: "password-123", role: "admin" }),
  ))!;
  clock = {
    offset: 0,
    now: () => new Date(Date.now() + clock.offset),
    advance(ms) {
      clock.offset += ms;
    },
  };
  webhooks = webhooksOnTheClock({ timeoutMs: 1_000 });
  dispatcher = new ChannelDispatcher({ db: t.db, webhooks, now: () => clock.now() });
  // The receiver listens on loopback, which only an admin's allow-list (host and port) lets a webhook reach.
  receiver = await startWebhookReceiver();
  await webhooks.setAllowHosts(admin, [new URL(receiver.url).host]);
});

afterEach(async () => {
  await receiver.close();
  native?.close();
  await t.cleanup();
});

async function newRun(teamId: string | null = null): Promise<string> {
  const run = await t.db.run.create({
    data: {
      goal: "Ship the release notes",
      agentName: "demo-coder",
      agentVersion: 1,
      createdById: admin.userId,
      model: "scripted",
      teamId,
    },
  });
  return run.id;
}

async function addEndpoint(eventTypes: string[] = ["*"], extra: Record<string, unknown> = {}) {
  const { endpoint, secret } = await webhooks.create(admin, { url: receiver.url, eventTypes, ...extra });
  receiver.useSecret(secret);
  return { endpoint, secret };
}

/** One pass of the server's loop: hand out the outbox, send what is due. */
async function pass() {
  await dispatcher.tick();
}

const bodies = () => receiver.received.map((r) => JSON.parse(r.body) as { type: string; timestamp: string; data: Record<string, unknown> });

describe("the outbox", () => {
  it("is written with the run events it reports, in the same transaction, and only for reportable ones", async () => {
    const runId = await newRun();
    await store.transition(runId, ["queued"], "running");
    await store.appendEvents(runId, [{ type: "human.note", payload: { text: "hello", by: "u", byName: "Ada" } }]);
    const rows = await t.db.outboxMessage.findMany({ where: { runId } });
    expect(rows.map((r) => r.type)).toEqual(["run.state_changed"]);
    expect(JSON.parse(rows[0].data)).toMatchObject({ runId, seq: 1, from: "queued", to: "running" });
    expect(rows[0].id).toMatch(/^msg_/);
    // A transaction that fails writes neither the event nor its outbox row.
    await expect(store.appendEvents("no-such-run", [{ type: "run.state", payload: { from: "queued", to: "running" } }])).rejects.toThrow();
    expect(await t.db.outboxMessage.count()).toBe(1);
  });

  it("is written the same way by the Prisma run store (PostgreSQL's backend)", async () => {
    const prismaStore = new PrismaRunStore(t.db);
    const runId = await newRun();
    await prismaStore.transition(runId, ["queued"], "running");
    await prismaStore.appendEvents(runId, [
      { type: "change.state", payload: { changeId: "c1", from: "checks_running", to: "awaiting_review", title: "Fix the parser" } },
    ]);
    const rows = await t.db.outboxMessage.findMany({ where: { runId }, orderBy: { seq: "asc" } });
    expect(rows.map((r) => [r.type, r.seq])).toEqual([
      ["run.state_changed", 1],
      ["improvement.opened", 2],
    ]);
    await expect(
      prismaStore.appendEvents("no-such-run", [{ type: "run.state", payload: { from: "queued", to: "running" } }]),
    ).rejects.toThrow();
    expect(await t.db.outboxMessage.count()).toBe(2);
  });

  it("reports a budget stop as budget.exceeded beside the state change", async () => {
    const runId = await newRun();
    await store.transition(runId, ["queued"], "running");
    await store.transition(runId, ["running"], "failed", {
      reason: "budget",
      error: { code: "TEAM_BUDGET_EXCEEDED", message: "The team has spent its $5.00" },
    });
    const types = (await t.db.outboxMessage.findMany({ where: { runId }, orderBy: { seq: "asc" } })).map((r) => r.type);
    expect(types).toEqual(["run.state_changed", "run.state_changed", "budget.exceeded"]);
  });
});

describe("deliveries", () => {
  it("reach a subscribed endpoint signed as the spec says, with the run's seq, a stable id and a link to the run", async () => {
    await addEndpoint(["run.state_changed"]);
    const runId = await newRun();
    await store.transition(runId, ["queued"], "running");
    await store.transition(runId, ["running"], "succeeded");
    await store.appendEvents(runId, [
      {
        type: "human.requested",
        payload: {
          requestId: "r1",
          kind: "approve",
          title: "Deploy",
          requiredRole: "approver",
          expiresAt: new Date().toISOString(),
          tool: "deploy",
          toolCallId: "c1",
        },
      },
    ]);
    await pass();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    // Ordering per endpoint is not promised (attempts go out side by side); every payload carries its seq.
    expect(
      bodies()
        .map((b) => [b.type, b.data.seq, b.data.to])
        .sort((a, b) => Number(a[1]) - Number(b[1])),
    ).toEqual([
      ["run.state_changed", 1, "running"],
      ["run.state_changed", 2, "succeeded"],
    ]);
    expect(bodies()[0].data.url).toBe(`https://rein.example/runs/${runId}`);
    const ids = receiver.received.map((r) => r.id).sort();
    const messages = await t.db.outboxMessage.findMany({ where: { type: "run.state_changed" } });
    expect(ids).toEqual(messages.map((m) => m.id).sort());
    // A second pass sends nothing again.
    await pass();
    expect(receiver.received).toHaveLength(2);
  });

  it("goes only to endpoints of the run's team when an endpoint names one", async () => {
    const red = await t.db.team.create({ data: { name: "red" } });
    const blue = await t.db.team.create({ data: { name: "blue" } });
    await addEndpoint(["*"], { teamId: red.id });
    await store.transition(await newRun(blue.id), ["queued"], "running");
    await store.transition(await newRun(red.id), ["queued"], "running");
    await pass();
    expect(receiver.received).toHaveLength(1);
  });

  it("a team's budget warning from a gateway key's call goes to that team's endpoints, with no link to a run", async () => {
    const red = await t.db.team.create({ data: { name: "red", budgetUsd: 10 } });
    const blue = await t.db.team.create({ data: { name: "blue" } });
    const { endpoint: forBlue } = await addEndpoint(["*"], { teamId: blue.id });
    const { endpoint: forRed } = await addEndpoint(["budget.warning"], { teamId: red.id });
    const month = clock.now().toISOString().slice(0, 7);
    await t.db.costRollup.create({ data: { day: `${month}-01`, teamId: red.id, workflowId: "gateway-key:k1", model: "m", costUsd: 8.5 } });
    const budgets = new Budgets({ db: t.db, flush: async () => {}, now: () => clock.now() });
    expect((await budgets.beforeTeamCall(red.id, 0.01, { gatewayKeyId: "k1" })).ok).toBe(true);
    await pass();
    expect(await t.db.webhookDelivery.count({ where: { endpointId: forBlue.id } })).toBe(0);
    expect(await t.db.webhookDelivery.count({ where: { endpointId: forRed.id } })).toBe(1);
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0].verified).toBe(true);
    const [body] = bodies();
    expect(body.type).toBe("budget.warning");
    expect(body.data).toEqual({
      gatewayKeyId: "k1",
      scope: "team",
      teamId: red.id,
      team: "red",
      month,
      spentUsd: 8.5,
      budgetUsd: 10,
      share: 0.8,
    });
  });

  it("retry on the schedule after a 500 and after a timeout, logging each attempt with what went out and came back", async () => {
    const { endpoint } = await addEndpoint();
    receiver.answer(500);
    await store.transition(await newRun(), ["queued"], "running");
    await pass();
    expect(receiver.received).toHaveLength(1);
    const [delivery] = (await webhooks.deliveries(admin, endpoint.id)).deliveries;
    expect(delivery).toMatchObject({ state: "pending", attempts: 1, lastStatus: 500 });
    // The second try waits the schedule's 5 s (random 0.5: no jitter either way).
    expect(new Date(delivery.nextAttemptAt!).getTime() - clock.now().getTime()).toBeGreaterThan(RETRY_SCHEDULE_MS[1] - 1_000);
    clock.advance(RETRY_SCHEDULE_MS[1] - 1_000);
    await pass();
    expect(receiver.received).toHaveLength(1);
    receiver.answer("hang");
    clock.advance(2_000);
    await pass();
    expect(receiver.received).toHaveLength(2);
    const afterTimeout = (await webhooks.deliveries(admin, endpoint.id)).deliveries[0];
    expect(afterTimeout).toMatchObject({ state: "pending", attempts: 2, lastStatus: null });
    expect(afterTimeout.lastError).toMatch(/time|answer/i);
    receiver.answer(200);
    clock.advance(RETRY_SCHEDULE_MS[2] * 1.01);
    await pass();
    const done = await webhooks.delivery(admin, delivery.id);
    expect(done).toMatchObject({ state: "succeeded", attempts: 3, lastStatus: 200 });
    expect(done.log.map((a) => a.response?.status ?? null)).toEqual([200, null, 500]);
    expect(done.log[2].nextRetryAt).not.toBeNull();
    expect(done.log[2].request.headers["webhook-id"]).toBe(delivery.messageId);
    expect(done.log[2].response?.body).toBe("ok");
    expect((await webhooks.get(admin, endpoint.id)).failingSince).toBeNull();
  });

  it("a 410 turns the endpoint off at once, fails what was pending, audits it and tells admins", async () => {
    const disabled: string[] = [];
    webhooks = new Webhooks({ db: t.db, keyring: memoryKeyring(), now: () => clock.now(), onDisabled: (e) => disabled.push(e.reason) });
    dispatcher = new ChannelDispatcher({ db: t.db, webhooks, now: () => clock.now() });
    await webhooks.setAllowHosts(admin, [new URL(receiver.url).host]);
    const { endpoint } = await addEndpoint();
    receiver.answer(410);
    const runId = await newRun();
    await store.transition(runId, ["queued"], "running");
    await store.transition(runId, ["running"], "succeeded");
    await dispatcher.dispatch();
    await webhooks.deliverDue(1);
    const view = await webhooks.get(admin, endpoint.id);
    expect(view.enabled).toBe(false);
    expect(view.disabledReason).toMatch(/410/);
    expect(disabled).toHaveLength(1);
    expect(view.counts).toMatchObject({ pending: 0, failed: 2 });
    expect(await t.db.auditEntry.count({ where: { kind: "webhook.disabled" } })).toBe(1);
    await pass();
    expect(receiver.received).toHaveLength(1);
  });

  it("a 429 waits at least what Retry-After asks", async () => {
    const { endpoint } = await addEndpoint();
    receiver.answer(429, { "retry-after": "600" });
    await store.transition(await newRun(), ["queued"], "running");
    await pass();
    const [delivery] = (await webhooks.deliveries(admin, endpoint.id)).deliveries;
    expect(new Date(delivery.nextAttemptAt!).getTime() - clock.now().getTime()).toBeGreaterThanOrEqual(599_000);
  });

  it("after 5 days of failures the endpoint is turned off", async () => {
    const { endpoint } = await addEndpoint();
    receiver.answer(503);
    await store.transition(await newRun(), ["queued"], "running");
    await pass();
    expect((await webhooks.get(admin, endpoint.id)).failingSince).not.toBeNull();
    clock.advance(5 * 24 * 3600_000 + 1_000);
    await store.transition(await newRun(), ["queued"], "running");
    await pass();
    const view = await webhooks.get(admin, endpoint.id);
    expect(view.enabled).toBe(false);
    expect(view.disabledReason).toMatch(/5 days/);
  });

  it("a delivery another worker holds is not sent twice, and one whose worker died goes out when its lease runs out", async () => {
    const { endpoint } = await addEndpoint();
    await store.transition(await newRun(), ["queued"], "running");
    await dispatcher.dispatch();
    const [d] = (await webhooks.deliveries(admin, endpoint.id)).deliveries;
    // Another process took it a moment ago and died before sending.
    await t.db.webhookDelivery.update({ where: { id: d.id }, data: { leaseUntil: new Date(clock.now().getTime() + 60_000) } });
    await Promise.all([webhooks.deliverDue(), webhooks.deliverDue()]);
    expect(receiver.received).toHaveLength(0);
    clock.advance(61_000);
    await Promise.all([webhooks.deliverDue(), webhooks.deliverDue()]);
    expect(receiver.received).toHaveLength(1);
  });
});

describe("what admins do", () => {
  it("rotation: both secrets sign for 24 hours, each signature valid on its own, then only the new one", async () => {
    const { endpoint, secret: old } = await addEndpoint();
    const { secret: fresh } = await webhooks.rotate(admin, endpoint.id);
    expect(fresh).not.toBe(old);
    expect((await webhooks.get(admin, endpoint.id)).rotatingUntil).not.toBeNull();
    await store.transition(await newRun(), ["queued"], "running");
    await pass();
    const [first] = receiver.received;
    const parts = String(first.headers["webhook-signature"]).split(" ");
    expect(parts).toHaveLength(2);
    const { specVerify } = await import("./helpers/webhook-receiver");
    for (const [secret, part] of [
      [fresh, parts[0]],
      [old, parts[1]],
    ]) {
      expect(specVerify(secret, { ...first.headers, "webhook-signature": part }, first.body)).toBe(true);
    }
    clock.advance(ROTATION_OVERLAP_MS + 1_000);
    await store.transition(await newRun(), ["queued"], "running");
    await pass();
    const second = receiver.received[1];
    expect(String(second.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    expect(specVerify(fresh, second.headers, second.body, Math.floor(clock.now().getTime() / 1000))).toBe(true);
  });

  it("a test ping, a resend with the same webhook-id, and recover of what an endpoint missed while off", async () => {
    const { endpoint } = await addEndpoint();
    receiver.answer(500);
    const failed = await webhooks.test(admin, endpoint.id);
    expect(failed).toMatchObject({ delivered: false, trigger: "test", response: { status: 500 } });
    // A ping is tried once: it fails, rather than waiting for a retry that never comes.
    expect((await webhooks.delivery(admin, failed.deliveryId)).state).toBe("failed");
    receiver.received.length = 0;
    receiver.answer(200);
    const ping = await webhooks.test(admin, endpoint.id);
    expect(ping).toMatchObject({ delivered: true, trigger: "test", response: { status: 200 } });
    expect(JSON.parse(receiver.received[0].body)).toMatchObject({ type: "webhook.test" });

    await store.transition(await newRun(), ["queued"], "running");
    await pass();
    const sent = receiver.received[1];
    const [delivery] = (await webhooks.deliveries(admin, endpoint.id)).deliveries.filter((d) => d.type === "run.state_changed");
    const again = await webhooks.resend(admin, delivery.id);
    expect(again).toMatchObject({ delivered: true, trigger: "resend" });
    expect(receiver.received[2].id).toBe(sent.id);
    expect(receiver.received[2].body).toBe(sent.body);

    const since = clock.now();
    await webhooks.update(admin, endpoint.id, { enabled: false });
    await store.transition(await newRun(), ["queued"], "running");
    await pass();
    expect(receiver.received).toHaveLength(3);
    await webhooks.update(admin, endpoint.id, { enabled: true });
    expect(await webhooks.recover(admin, endpoint.id, since)).toEqual({ queued: 1 });
    await pass();
    expect(receiver.received).toHaveLength(4);
    expect(receiver.received[3].verified).toBe(true);
    // Nothing is queued twice: what was delivered stays delivered.
    expect(await webhooks.recover(admin, endpoint.id, since)).toEqual({ queued: 0 });
    const audit = await t.db.auditEntry.findMany({ where: { kind: { startsWith: "webhook." } }, orderBy: { id: "asc" } });
    expect(audit.map((a) => a.kind)).toEqual([
      "webhook.allow_hosts",
      "webhook.added",
      "webhook.tested",
      "webhook.tested",
      "webhook.resent",
      "webhook.updated",
      "webhook.updated",
      "webhook.recovered",
      "webhook.recovered",
    ]);
  });

  it("the secret is shown once: not in the list, the audit log or the database in clear", async () => {
    const { endpoint, secret } = await addEndpoint();
    expect(JSON.stringify(await webhooks.list(admin))).not.toContain(secret);
    expect(JSON.stringify(await t.db.auditEntry.findMany())).not.toContain(secret);
    const row = await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(row.secret).not.toContain(secret.slice(6));
  });

  it("refuses bad input by field, a non-admin, and endpoints that would reach this machine", async () => {
    await expect(webhooks.create(admin, { url: "ftp://example.com/x", eventTypes: ["*"] })).rejects.toThrow(/url: only http/);
    await expect(webhooks.create(admin, { url: "https://example.com/x", eventTypes: ["run.exploded"] })).rejects.toThrow(
      /eventTypes\.0: an event type is one of/,
    );
    await webhooks.setAllowHosts(admin, []);
    await expect(webhooks.create(admin, { url: receiver.url, eventTypes: ["*"] })).rejects.toThrow(/url: 127\.0\.0\.1/);
    const viewer = (await loadActor(t.db, await createUser(t.db, { email: "v@rein.test", password: "password-123", role: "operator" })))!;
    await expect(webhooks.list(viewer)).rejects.toThrow(/needs the admin role/);
    expect(await t.db.webhookEndpoint.count()).toBe(0);
  });
});

describe("a burst", () => {
  it("of more deliveries than one batch goes out in one pass, not one batch a second", async () => {
    // 300 answers from one loopback receiver in this process: the 1 s limit the other tests use to see a
    // timeout is too short for them on a busy machine, so this pass has the limit a server has.
    webhooks = webhooksOnTheClock();
    dispatcher = new ChannelDispatcher({ db: t.db, webhooks, now: () => clock.now() });
    await webhooks.setAllowHosts(admin, [new URL(receiver.url).host]);
    for (let i = 0; i < 30; i++) await webhooks.create(admin, { url: `${receiver.url}?n=${i}`, eventTypes: ["run.state_changed"] });
    const runId = await newRun();
    await store.appendEvents(
      runId,
      Array.from({ length: 10 }, (_, i) => ({
        type: "run.state" as const,
        payload: { from: "running", to: "running", reason: `tick ${i}` },
      })),
    );
    await pass();
    expect(receiver.received).toHaveLength(300);
    expect(await t.db.webhookDelivery.count({ where: { state: { not: "succeeded" } } })).toBe(0);
  });
});
