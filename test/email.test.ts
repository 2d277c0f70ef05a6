// E-mail for human requests end to end (docs/channels.md#e-mail): a real test
// database, the kernel asking for approval, the e-mail channel handed the
// outbox messages, and a local SMTP server that receives and parses the mails.
import net from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createRun } from "@/server/kernel";
import { createUser, loadActor, type Actor } from "@/server/identity";
import { putSecret, type SecretKeyring } from "@/server/secrets";
import { decideWithLink, LinkError, type Decider } from "@/server/hitl";
import { EmailChannel, saveEmailSettings, saveRouting, sendTestMail, setMailPreference, type EmailSettings } from "@/server/channels";
import { createTestKernel, type TestKernel } from "./helpers/kernel";
import { startSmtpServer, type SmtpServerHandle } from "./helpers/smtp";
import { waitFor } from "./helpers/wait";
import { trpcError } from "./helpers/trpc";
import { callerFor } from "@/test/helpers/services";

const SMTP_USER = "rein-mailer";
const SMTP_PASSWORD = "smtp-pass-9f3a7c1e";
const WRONG_PASSWORD = "wrong-pass-5b2d8e44";
const BASE = "https://rein.example.com";

let smtp: SmtpServerHandle;
let tk: TestKernel;
let keyring: SecretKeyring;
let channel: EmailChannel;
let people: Record<"quiet" | "escalatedOnly" | "level2" | "onCall", Actor>;

beforeAll(async () => {
  smtp = await startSmtpServer({ user: SMTP_USER, password: SMTP_PASSWORD });
});
afterAll(async () => {
  await smtp?.close();
});

beforeEach(async () => {
  smtp.mails.length = 0;
  tk = await createTestKernel({ hitl: true, secrets: true });
  keyring = tk.keyring!;
  const db = tk.t.db;
  const make = async (email: string, role: "approver" | "admin", mailRequests: string) => {
    const id = await createUser(db, { email, name: email.split("@")[0], password: "test-password-1", role });
    const actor = (await loadActor(db, id))!;
    await setMailPreference(db, actor, { mailRequests });
    return actor;
  };
  people = {
    quiet: await make("quiet@test.local", "approver", "none"),
    escalatedOnly: await make("later@test.local", "approver", "escalated"),
    level2: await make("level2@test.local", "approver", "escalated"),
    onCall: await make("oncall@test.local", "admin", "escalated"),
  };
  await putSecret(db, keyring, { name: "SMTP_PASSWORD", value: SMTP_PASSWORD, actor: tk.users.admin });
  await putSecret(db, keyring, { name: "SMTP_WRONG", value: WRONG_PASSWORD, actor: tk.users.admin });
  channel = new EmailChannel({ db, keyring, links: { ...tk.hitl!.links, baseUrl: BASE }, requests: tk.hitl!.broker, timeoutMs: 5_000 });
});
afterEach(async () => {
  await tk?.cleanup();
});

function settings(overrides: Partial<EmailSettings> = {}): EmailSettings {
  return {
    enabled: true,
    host: smtp.host,
    port: smtp.port,
    security: "none",
    user: SMTP_USER,
    passwordSecret: "SMTP_PASSWORD",
    from: "Rein <rein@test.local>",
    ...overrides,
  };
}

async function waitingRequest(goal = "Ship it") {
  const run = await createRun(tk.kernel, { goal, agent: "demo-deploy" }, tk.actors.operator);
  await waitFor(
    async () => (await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id }, select: { status: true } })).status === "waiting_human",
    "the run to wait for a person",
  );
  return tk.t.db.humanRequest.findFirstOrThrow({ where: { runId: run.id } });
}

/** Hands the outbox messages of this type about the request to the channel, as the dispatcher does. */
async function handOut(requestId: string, type: string) {
  const messages = (await tk.t.db.outboxMessage.findMany({ where: { type }, orderBy: { createdAt: "asc" } })).filter(
    (m) => JSON.parse(m.data).requestId === requestId,
  );
  expect(messages.length, `outbox messages ${type}`).toBeGreaterThan(0);
  for (const m of messages) await channel.onMessage(m);
  return messages;
}

const recipients = () => smtp.mails.flatMap((m) => m.to).sort();
const decider = (a: Actor): Decider => ({ id: a.userId, name: a.name, role: a.role, teamIds: a.teamIds, teamRoles: a.teamRoles });
const linkIn = (text: string) => /\/resume\?t=(\S+)/.exec(text)?.[1];

async function notifiedRows(requestId: string) {
  const rows = await tk.t.db.auditEntry.findMany({
    where: { kind: "request.notified", channel: "email", requestId },
    orderBy: { at: "asc" },
  });
  return rows.map((r) => ({
    subject: r.subject,
    detail: JSON.parse(r.detail) as { level: number; to: string[]; failed?: Array<{ to: string; error: string }> },
  }));
}

describe("a request opened", () => {
  it("mails each approver whose choice allows it once, with their own link that decides exactly once", async () => {
    await saveEmailSettings(tk.t.db, tk.actors.admin, settings());
    const request = await waitingRequest();
    const [message] = await handOut(request.id, "human_request.opened");

    // approver and admin may decide and chose "decide" (the default); the viewer and the operator may not decide;
    // quiet chose none; later and level2 want only escalations; oncall too.
    expect(recipients()).toEqual(["admin@test.local", "approver@test.local"]);
    const mail = smtp.mails.find((m) => m.to[0] === "approver@test.local")!;
    expect(mail.subject).toBe(`[Rein] Approve: ${request.title}`);
    expect(mail.from).toBe("rein@test.local");
    expect(mail.text).toContain("demo-deploy");
    expect(mail.text).toContain("Ship it");
    expect(mail.text).toContain(`${BASE}/profile`);
    expect(mail.html).toContain(`${BASE}/resume?t=`);
    expect(mail.messageId).toMatch(/^<.+>$/);
    const other = smtp.mails.find((m) => m.to[0] === "admin@test.local")!;
    expect(linkIn(other.text)).not.toBe(linkIn(mail.text));

    const rows = await tk.t.db.channelMessage.findMany({ where: { requestId: request.id }, orderBy: { target: "asc" } });
    expect(rows.map((r) => [r.channel, r.target, r.state, r.ref])).toEqual([
      ["email", "admin@test.local", "sent", other.messageId],
      ["email", "approver@test.local", "sent", mail.messageId],
    ]);
    const notified = await notifiedRows(request.id);
    expect(notified).toHaveLength(1);
    expect(notified[0].subject).toBe("level 1");
    expect(notified[0].detail.level).toBe(1);
    expect(notified[0].detail.to.sort()).toEqual(["admin@test.local", "approver@test.local"]);
    expect(notified[0].detail.failed).toBeUndefined();
    expect(await tk.t.db.auditEntry.count({ where: { kind: "link.created", channel: "email", requestId: request.id } })).toBe(2);

    // The same message handed out again (a crash before it was marked): nothing more is sent.
    await channel.onMessage(message);
    expect(smtp.mails).toHaveLength(2);
    expect(await notifiedRows(request.id)).toHaveLength(1);

    // The link decides through the same function the /resume page uses, once.
    const { broker, links } = tk.hitl!;
    const deps = { ...links, decide: broker.decide.bind(broker), check: broker.checkDecision.bind(broker) };
    const token = linkIn(mail.text)!;
    expect(token).toBeTruthy();
    await expect(decideWithLink(deps, token, decider(tk.actors.viewer), { decision: "approve" })).rejects.toMatchObject({
      reason: "WRONG_ROLE",
    });
    const decided = await decideWithLink(deps, token, decider(tk.actors.approver), { decision: "approve" });
    expect(decided).toMatchObject({ state: "APPROVED", channel: "link", decidedBy: { id: tk.users.approver } });
    const again = await decideWithLink(deps, token, decider(tk.actors.approver), { decision: "approve" }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(LinkError);
    expect((again as LinkError).reason).toBe("USED");
  });

  it("sends nothing while e-mail is off or not set up", async () => {
    const request = await waitingRequest();
    await handOut(request.id, "human_request.opened");
    await saveEmailSettings(tk.t.db, tk.actors.admin, settings({ enabled: false }));
    await handOut(request.id, "human_request.opened");
    expect(smtp.mails).toHaveLength(0);
    expect(await tk.t.db.channelMessage.count()).toBe(0);
    expect(await notifiedRows(request.id)).toEqual([]);
  });

  it("escapes a hostile title in the mail and keeps it to one line in the subject", async () => {
    await saveEmailSettings(tk.t.db, tk.actors.admin, settings());
    const request = await waitingRequest();
    await tk.t.db.humanRequest.update({
      where: { id: request.id },
      data: { title: "Deploy <script>alert(1)</script>\r\nBcc: victim@evil.test" },
    });
    await handOut(request.id, "human_request.opened");
    expect(smtp.mails).toHaveLength(2);
    for (const m of smtp.mails) {
      expect(m.subject).toBe("[Rein] Approve: Deploy <script>alert(1)</script> Bcc: victim@evil.test");
      expect(m.html).not.toContain("<script>");
      expect(m.html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
      expect(m.headerLines.filter((h) => h.key === "bcc")).toEqual([]);
      expect(m.to).not.toContain("victim@evil.test");
    }
  });
});

describe("escalation", () => {
  it("mails the team's level-2 list, then the on-call list, and the audit names who got each", async () => {
    await saveEmailSettings(tk.t.db, tk.actors.admin, settings());
    await saveRouting(tk.t.db, tk.actors.admin, {
      level2: { [tk.actors.operator.teamIds[0]]: [people.level2.userId, people.quiet.userId] },
      onCall: [people.onCall.userId, people.quiet.userId],
    });
    const request = await waitingRequest();
    await handOut(request.id, "human_request.opened");
    smtp.mails.length = 0;
    const { broker, clock } = tk.hitl!;

    clock.advance(24 * 3600_000 + 1000);
    expect(await broker.runDue()).toBe(1);
    await handOut(request.id, "human_request.escalated");
    // level2 wants escalations; quiet is on the list but chose none.
    expect(recipients()).toEqual(["level2@test.local"]);
    expect(smtp.mails[0].subject).toBe(`[Rein] Approve (escalated): ${request.title}`);
    expect(smtp.mails[0].text).toContain("level-2 approver");

    smtp.mails.length = 0;
    clock.advance(48 * 3600_000 + 1000);
    expect(await broker.runDue()).toBe(1);
    await handOut(request.id, "human_request.escalated"); // the level-2 message again, then the on-call one
    expect(recipients()).toEqual(["oncall@test.local"]);
    expect(smtp.mails[0].subject).toBe(`[Rein] Approve (on call): ${request.title}`);

    expect(await notifiedRows(request.id)).toEqual([
      { subject: "level 1", detail: expect.objectContaining({ level: 1 }) },
      { subject: "level 2", detail: { level: 2, to: ["level2@test.local"] } },
      { subject: "level 3", detail: { level: 3, to: ["oncall@test.local"] } },
    ]);
    const targets = (await tk.t.db.channelMessage.findMany({ where: { requestId: request.id }, select: { target: true } }))
      .map((r) => r.target)
      .sort();
    expect(targets).toEqual(["admin@test.local", "approver@test.local", "level2@test.local#2", "oncall@test.local#3"]);

    // The on-call admin's link works for them.
    const token = linkIn(smtp.mails[0].text)!;
    const deps = { ...tk.hitl!.links, decide: broker.decide.bind(broker), check: broker.checkDecision.bind(broker) };
    expect(await decideWithLink(deps, token, decider(people.onCall), { decision: "reject", comment: "not today" })).toMatchObject({
      state: "REJECTED",
    });
  });
});

describe("failures", () => {
  it("bad credentials: the test mail says authentication failed, the request's mails fail on their rows, nothing throws, no password anywhere", async () => {
    await saveEmailSettings(tk.t.db, tk.actors.admin, settings({ passwordSecret: "SMTP_WRONG" }));
    const test = await sendTestMail({ db: tk.t.db, keyring }, tk.actors.admin);
    expect(test).toMatchObject({ ok: false, to: "admin@test.local" });
    expect(test.message).toMatch(/refused to log in \(authentication failed\)/);
    expect(test.message).toContain("SMTP_WRONG");

    const request = await waitingRequest();
    await expect(handOut(request.id, "human_request.opened")).resolves.toBeDefined();
    expect(smtp.mails).toHaveLength(0);
    expect(smtp.refusedLogins).toBeGreaterThanOrEqual(3);
    const rows = await tk.t.db.channelMessage.findMany({ where: { requestId: request.id } });
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      expect(r.state).toBe("failed");
      expect(r.error).toMatch(/authentication failed/);
    }
    const [notified] = await notifiedRows(request.id);
    expect(notified.detail.to).toEqual([]);
    expect(notified.detail.failed?.map((f) => f.to).sort()).toEqual(["admin@test.local", "approver@test.local"]);
    expect(notified.detail.failed?.[0].error).toMatch(/authentication failed/);

    const everything = JSON.stringify([
      await tk.t.db.auditEntry.findMany(),
      await tk.t.db.channelMessage.findMany(),
      await tk.t.db.setting.findMany(),
      test,
    ]);
    expect(everything).not.toContain(WRONG_PASSWORD);
    expect(everything).not.toContain(SMTP_PASSWORD);
  });

  it("the test mail reaches the admin with good settings, and says connection refused or TLS when those are wrong", async () => {
    await expect(sendTestMail({ db: tk.t.db, keyring }, tk.actors.admin)).rejects.toThrow(/not set up yet/);
    await saveEmailSettings(tk.t.db, tk.actors.admin, settings({ enabled: false }));
    const ok = await sendTestMail({ db: tk.t.db, keyring }, tk.actors.admin);
    expect(ok).toMatchObject({ ok: true, to: "admin@test.local" });
    expect(ok.message).toContain("switched off");
    expect(smtp.mails.map((m) => [m.to, m.subject])).toEqual([[["admin@test.local"], "[Rein] Test mail"]]);

    const closed = await freePort();
    await saveEmailSettings(tk.t.db, tk.actors.admin, settings({ port: closed }));
    expect((await sendTestMail({ db: tk.t.db, keyring }, tk.actors.admin)).message).toMatch(/connection refused/);

    await saveEmailSettings(tk.t.db, tk.actors.admin, settings({ security: "tls" }));
    expect((await sendTestMail({ db: tk.t.db, keyring }, tk.actors.admin)).message).toMatch(/secure connection .* failed \(TLS/);
  });

  it("refuses settings naming a secret that does not exist, and non-admins", async () => {
    await expect(saveEmailSettings(tk.t.db, tk.actors.admin, settings({ passwordSecret: "NO_SUCH_SECRET" }))).rejects.toMatchObject({
      code: "INVALID_INPUT",
      problems: [{ field: "passwordSecret" }],
    });
    await expect(saveEmailSettings(tk.t.db, tk.actors.approver, settings())).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(sendTestMail({ db: tk.t.db, keyring }, tk.actors.approver)).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await tk.t.db.setting.count({ where: { key: "channels.email" } })).toBe(0);
  });
});

describe("through the API", () => {
  const caller = (actor: Actor) => callerFor(tk, actor);

  it("a person reads and sets only their own e-mail choice; a bad choice is refused", async () => {
    expect(await caller(tk.actors.viewer).identity.mailPreference()).toEqual({ email: "viewer@test.local", mailRequests: "decide" });
    expect(await caller(tk.actors.viewer).identity.setMailPreference({ mailRequests: "none" })).toEqual({ mailRequests: "none" });
    const users = await tk.t.db.user.findMany({
      where: { id: { in: [tk.users.viewer, tk.users.approver] } },
      select: { id: true, mailRequests: true },
    });
    expect(Object.fromEntries(users.map((u) => [u.id, u.mailRequests]))).toEqual({
      [tk.users.viewer]: "none",
      [tk.users.approver]: "decide",
    });
    const bad = await trpcError(caller(tk.actors.viewer).identity.setMailPreference({ mailRequests: "always" as "none" }));
    expect(bad.code).toBe("BAD_REQUEST");
    expect(bad.message).toContain("mailRequests");
    expect((await tk.t.db.user.findUniqueOrThrow({ where: { id: tk.users.viewer } })).mailRequests).toBe("none");
  });

  it("admins save and read the settings; bad fields are named; the password's value never comes back", async () => {
    const admin = caller(tk.actors.admin);
    expect(await admin.email.get()).toEqual({ settings: null, testTo: "admin@test.local" });
    const badHost = await trpcError(admin.email.save({ ...settings(), host: "smtp://x/y" }));
    expect(badHost.code).toBe("BAD_REQUEST");
    // The HTTP error formatter turns these issues into "host: …" beside the field.
    expect((badHost.cause as unknown as { issues: Array<{ path: string }> }).issues.map((i) => i.path)).toEqual(["host"]);
    const noSecret = await trpcError(admin.email.save(settings({ passwordSecret: "NOT_THERE" })));
    expect(noSecret.code).toBe("BAD_REQUEST");
    expect(noSecret.message).toMatch(/^passwordSecret: no secret is named NOT_THERE/);
    await admin.email.save(settings());
    const read = await admin.email.get();
    expect(read.settings).toMatchObject({ passwordSecret: "SMTP_PASSWORD", user: SMTP_USER });
    expect((await admin.email.sendTest()).ok).toBe(true);
    expect(JSON.stringify([read, await tk.t.db.auditEntry.findMany({ where: { kind: "channels.email" } })])).not.toContain(SMTP_PASSWORD);
    expect((await trpcError(caller(tk.actors.approver).email.get())).code).toBe("FORBIDDEN");
  });
});

/** A port nothing listens on. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
