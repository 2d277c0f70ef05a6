// Slack end to end on a real test database and a fake Slack (issue 19): a
// request is posted once to its team's channel, a signed click decides it as
// the Inbox would, escalations reach mapped approvers by direct message, and
// every copy says how the request ended.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  listSlackUsers,
  saveSlackSettings,
  slackSettingsView,
  setSlackMapping,
  syncSlackUsers,
  testSlackConnection,
  type SlackUserView,
} from "@/server/channels";
import { DEFAULT_LADDER } from "@/server/hitl";
import { putSecret } from "@/server/secrets";
import { createSlackWorld, PUBLIC_URL, TEAM_CHANNEL, type SlackWorld } from "@/test/helpers/slack-world";

let w: SlackWorld;

beforeAll(async () => {
  w = await createSlackWorld();
}, 60_000);

afterAll(async () => {
  await w?.close();
});

const db = () => w.tk.t.db;
const text = (call: { args: Record<string, any> }) => JSON.stringify(call.args.blocks);
const postsFor = (requestId: string) => w.slack.callsOf("chat.postMessage").filter((c) => text(c).includes(requestId));
async function updatesFor(requestId: string) {
  const refs = (await db().channelMessage.findMany({ where: { requestId }, select: { ref: true } })).map((r) => r.ref);
  return w.slack.callsOf("chat.update").filter((c) => refs.includes(c.args.ts));
}

describe("a new request in Slack", () => {
  it("is posted once to its team's channel, with its context and buttons, even when the outbox hands it out twice", async () => {
    const requestId = await w.openRequest("approve");
    expect(await w.dispatcher.dispatch()).toBeGreaterThan(0);
    const message = await db().outboxMessage.findFirstOrThrow({ where: { type: "human_request.opened", data: { contains: requestId } } });
    await w.channel.onMessage(message); // a crash between sending and marking hands it out again
    const posts = postsFor(requestId);
    expect(posts).toHaveLength(1);
    expect(posts[0].args.channel).toBe(TEAM_CHANNEL);
    const blocks = text(posts[0]);
    for (const part of [
      "Publish the notes? (approve)",
      "They go to every customer.",
      "Tidy the release notes",
      "demo-coder",
      `${PUBLIC_URL}/runs/${w.runId}`,
      `${PUBLIC_URL}/inbox`,
    ])
      expect(blocks).toContain(part);
    const buttons = posts[0].args.blocks.find((b: any) => b.type === "actions").elements;
    expect(buttons.map((b: any) => [b.action_id, b.value, b.style])).toEqual([
      ["rein:approve", requestId, "primary"],
      ["rein:reject", requestId, "danger"],
    ]);
    const rows = await db().channelMessage.findMany({ where: { requestId } });
    expect(rows).toEqual([
      expect.objectContaining({ channel: "slack", target: TEAM_CHANNEL, state: "sent", ref: expect.stringMatching(/^\d+\.\d+$/) }),
    ]);
  });

  it("a provide request's button opens a signed resume link, made on the Slack channel's behalf", async () => {
    const requestId = await w.openRequest("provide", { schema: { type: "string" } });
    await w.dispatcher.dispatch();
    const [post] = postsFor(requestId);
    expect(w.errors).toEqual([]);
    const button = post.args.blocks.find((b: any) => b.type === "actions").elements[0];
    expect(button).toMatchObject({
      text: { text: "Answer in Rein" },
      url: expect.stringMatching(new RegExp(`^${PUBLIC_URL}/resume\\?t=.+`)),
    });
    expect(await db().auditEntry.count({ where: { kind: "link.created", requestId, channel: "slack" } })).toBe(1);
  });

  it("is not posted when Slack is off, or the team has no channel", async () => {
    await saveSlackSettings(db(), w.tk.actors.admin, { enabled: true, defaultChannels: { "another-team": "C0OTHER" } });
    const noChannel = await w.openRequest("approve");
    await saveSlackSettings(db(), w.tk.actors.admin, { enabled: false, defaultChannels: { [w.teamId]: TEAM_CHANNEL } });
    const off = await w.openRequest("approve");
    await w.dispatcher.dispatch();
    await saveSlackSettings(db(), w.tk.actors.admin, { enabled: true, defaultChannels: { [w.teamId]: TEAM_CHANNEL } });
    expect(postsFor(noChannel)).toEqual([]);
    expect(postsFor(off)).toEqual([]);
    expect(await db().channelMessage.count({ where: { requestId: { in: [noChannel, off] } } })).toBe(0);
  });

  it("a post Slack refuses is kept on its row with the reason, and the dispatcher goes on", async () => {
    w.slack.failNext("chat.postMessage", "not_in_channel");
    const requestId = await w.openRequest("approve");
    await w.dispatcher.dispatch();
    const row = await db().channelMessage.findFirstOrThrow({ where: { requestId } });
    expect(row).toMatchObject({ state: "failed", error: expect.stringContaining("not in that channel") });
    expect(w.errors.some((e) => e.includes(requestId) && e.includes("not_in_channel"))).toBe(true);
    expect(await db().outboxMessage.count({ where: { dispatchedAt: null } })).toBe(0);
  });
});

describe("deciding from Slack", () => {
  it("a signed click approves the request as its Slack user's Rein account, audited as slack, and every copy is updated", async () => {
    await syncSlackUsers({ db: db(), keyring: w.tk.keyring, apiUrl: w.slack.url }, w.tk.actors.admin);
    const requestId = await w.openRequest("approve");
    await w.dispatcher.dispatch();
    // Level 1 runs out: the request escalates and its approvers get a direct message each.
    w.tk.hitl!.clock.advance(DEFAULT_LADDER.level1Sec * 1000 + 1000);
    expect(await w.tk.hitl!.broker.runDue()).toBeGreaterThan(0);
    await w.dispatcher.dispatch();
    const copies = await db().channelMessage.findMany({ where: { requestId }, orderBy: { target: "asc" } });
    expect(copies.map((c) => c.target).sort()).toEqual(
      [TEAM_CHANNEL, `D${w.slackIds.admin.slice(1)}`, `D${w.slackIds.approver.slice(1)}`].sort(),
    );

    const res = await w.click(w.slackIds.approver, "rein:approve", requestId);
    expect(res.status).toBe(200);
    const request = await w.tk.hitl!.broker.get(requestId);
    expect(request).toMatchObject({ state: "APPROVED", channel: "slack", decidedBy: { id: w.tk.users.approver } });
    const audit = await db().auditEntry.findFirstOrThrow({ where: { kind: "request.transition", requestId, toState: "APPROVED" } });
    expect(audit).toMatchObject({ channel: "slack", actorId: w.tk.users.approver });
    expect(w.slack.callsOf("chat.postEphemeral")).toEqual([]);

    await w.dispatcher.dispatch();
    const updates = w.slack
      .callsOf("chat.update")
      .filter((c) => copies.some((copy) => copy.target === c.args.channel && copy.ref === c.args.ts));
    expect(updates).toHaveLength(3);
    for (const u of updates) {
      expect(text(u)).toContain(`Approved by ${w.tk.actors.approver.name} via Slack at `);
      expect(u.args.blocks.some((b: any) => b.type === "actions")).toBe(false);
    }
    expect((await db().channelMessage.findMany({ where: { requestId } })).map((c) => c.state)).toEqual(["updated", "updated", "updated"]);
  });

  it("a choose click picks that option", async () => {
    const requestId = await w.openRequest("choose", {
      options: [
        { id: "draft", label: "Keep as draft" },
        { id: "ship", label: "Ship it" },
      ],
    });
    await w.dispatcher.dispatch();
    const buttons = postsFor(requestId)[0].args.blocks.find((b: any) => b.type === "actions").elements;
    const ship = buttons.find((b: any) => b.text.text === "Ship it");
    expect((await w.click(w.slackIds.approver, ship.action_id, ship.value)).status).toBe(200);
    expect(await w.tk.hitl!.broker.get(requestId)).toMatchObject({
      state: "APPROVED",
      channel: "slack",
      decision: { decision: "choose", optionId: "ship" },
    });
    await w.dispatcher.dispatch();
    expect((await updatesFor(requestId)).some((u) => text(u).includes("via Slack") && text(u).includes("Ship it"))).toBe(true);
  });

  it("a decision in the Inbox updates the Slack copy too", async () => {
    const requestId = await w.openRequest("approve");
    await w.dispatcher.dispatch();
    const a = w.tk.actors.admin;
    await w.tk.hitl!.broker.decide(
      requestId,
      { id: a.userId, name: a.name, role: a.role, teamIds: a.teamIds, teamRoles: a.teamRoles },
      { decision: "reject" },
      "inbox",
    );
    await w.dispatcher.dispatch();
    const ref = (await db().channelMessage.findFirstOrThrow({ where: { requestId } })).ref;
    const update = w.slack.callsOf("chat.update").find((c) => c.args.ts === ref && c.args.channel === TEAM_CHANNEL);
    expect(update && text(update)).toContain(`Rejected by ${a.name} via the Inbox at `);
  });
});

describe("escalations by direct message", () => {
  it("go to the mapped people at that level, and the audit row names them", async () => {
    const requestId = await w.openRequest("approve");
    await w.dispatcher.dispatch();
    await setSlackMapping(db(), w.tk.actors.admin, { slackUserId: w.slackIds.admin, userId: null }); // the admin is nobody in Slack now
    const before = w.slack.callsOf("chat.postMessage").length;
    w.tk.hitl!.clock.advance(DEFAULT_LADDER.level1Sec * 1000 + 1000);
    await w.tk.hitl!.broker.runDue();
    await w.dispatcher.dispatch();
    const dms = w.slack
      .callsOf("chat.postMessage")
      .slice(before)
      .filter((c) => text(c).includes(requestId));
    expect(dms.map((c) => c.args.channel)).toEqual([`D${w.slackIds.approver.slice(1)}`]);
    expect(text(dms[0])).toContain("Escalated to you (level 2)");
    const notified = await db().auditEntry.findMany({ where: { kind: "request.notified", requestId } });
    expect(notified).toHaveLength(1);
    expect(notified[0]).toMatchObject({ channel: "slack", subject: "level 2" });
    expect(JSON.parse(notified[0].detail)).toEqual({ level: 2, to: [w.tk.actors.approver.name] });
    // Handed out again: no second message, no second audit row.
    const message = await db().outboxMessage.findFirstOrThrow({
      where: { type: "human_request.escalated", data: { contains: requestId } },
    });
    await w.channel.onMessage(message);
    expect(
      w.slack
        .callsOf("chat.postMessage")
        .slice(before)
        .filter((c) => text(c).includes(requestId)),
    ).toHaveLength(1);
    expect(await db().auditEntry.count({ where: { kind: "request.notified", requestId } })).toBe(1);
  });
});

describe("who is who between Slack and Rein", () => {
  it("sync maps members by e-mail and leaves an admin's mapping alone", async () => {
    await setSlackMapping(db(), w.tk.actors.admin, { slackUserId: w.slackIds.operator, userId: w.tk.users.viewer });
    const result = await syncSlackUsers({ db: db(), keyring: w.tk.keyring, apiUrl: w.slack.url }, w.tk.actors.admin);
    expect(result).toEqual({ seen: 5, mapped: 3, unmatched: 2 }); // the admin was cleared by hand above; the stranger is nobody
    const users = new Map<string, SlackUserView>((await listSlackUsers(db(), w.tk.actors.admin)).map((u) => [u.slackUserId, u]));
    expect(users.get(w.slackIds.approver)).toMatchObject({ user: { id: w.tk.users.approver }, manual: false });
    expect(users.get(w.slackIds.operator)).toMatchObject({ user: { id: w.tk.users.viewer }, manual: true });
    expect(users.get(w.slackIds.admin)).toMatchObject({ user: null, manual: true });
    expect(users.get("U0STRANGER")).toMatchObject({ user: null, manual: false, email: "stranger@elsewhere.example" });
    await setSlackMapping(db(), w.tk.actors.admin, { slackUserId: w.slackIds.operator, userId: w.tk.users.operator });
    await setSlackMapping(db(), w.tk.actors.admin, { slackUserId: w.slackIds.admin, userId: w.tk.users.admin });
  });

  it("only admins map, and only to people who exist", async () => {
    await expect(setSlackMapping(db(), w.tk.actors.approver, { slackUserId: "U0ANY", userId: w.tk.users.approver })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(setSlackMapping(db(), w.tk.actors.admin, { slackUserId: "U0ANY", userId: "no-such-user" })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(setSlackMapping(db(), w.tk.actors.admin, { slackUserId: "not an id", userId: null })).rejects.toMatchObject({
      code: "INVALID_INPUT",
    });
    expect(await db().slackUser.count({ where: { slackUserId: "U0ANY" } })).toBe(0);
  });
});

describe("settings and the connection test", () => {
  it("keep secrets by name only, audited, and say in words what is wrong", async () => {
    const deps = { db: db(), keyring: w.tk.keyring, apiUrl: w.slack.url };
    expect(await testSlackConnection(deps, w.tk.actors.admin)).toMatchObject({
      ok: true,
      message: expect.stringContaining("Acme Workspace"),
    });
    await putSecret(db(), w.tk.keyring!, { name: "SLACK_WRONG_TOKEN", value: "xoxb-not-the-one", actor: w.tk.users.admin });
    await saveSlackSettings(db(), w.tk.actors.admin, {
      enabled: true,
      botTokenSecret: "SLACK_WRONG_TOKEN",
      defaultChannels: { [w.teamId]: TEAM_CHANNEL },
    });
    expect(await testSlackConnection(deps, w.tk.actors.admin)).toEqual({ ok: false, message: expect.stringContaining("invalid_auth") });
    await saveSlackSettings(db(), w.tk.actors.admin, {
      enabled: true,
      botTokenSecret: "SLACK_NO_SUCH",
      defaultChannels: { [w.teamId]: TEAM_CHANNEL },
    });
    expect((await slackSettingsView(db())).stored).toEqual({ botToken: false, signingSecret: true });
    expect(await testSlackConnection(deps, w.tk.actors.admin)).toEqual({
      ok: false,
      message: expect.stringContaining("add a secret named SLACK_NO_SUCH"),
    });
    await saveSlackSettings(db(), w.tk.actors.admin, { enabled: true, defaultChannels: { [w.teamId]: TEAM_CHANNEL } });
    expect(await testSlackConnection({ ...deps, apiUrl: "http://127.0.0.1:9/api/" }, w.tk.actors.admin)).toEqual({
      ok: false,
      message: expect.stringContaining("could not reach Slack"),
    });
    const audits = await db().auditEntry.findMany({ where: { kind: "channels.slack" } });
    expect(audits.length).toBeGreaterThan(0);
    for (const a of audits) {
      expect(a.detail).not.toContain(w.slack.token);
      expect(a.detail).not.toContain(w.signingSecret);
    }
    expect((await slackSettingsView(db())).stored).toEqual({ botToken: true, signingSecret: true });
    const stored = await db().setting.findUniqueOrThrow({ where: { key: "channels.slack" } });
    expect(stored.value).not.toContain(w.slack.token);
    expect(w.errors.join("\n")).not.toContain(w.slack.token);
  });

  it("refuses a non-admin and a bad channel id, changing nothing", async () => {
    const before = await db().setting.findUniqueOrThrow({ where: { key: "channels.slack" } });
    await expect(saveSlackSettings(db(), w.tk.actors.approver, { enabled: false })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(saveSlackSettings(db(), w.tk.actors.admin, { enabled: true, defaultChannels: { "*": "#general" } })).rejects.toMatchObject(
      { code: "INVALID_INPUT", message: expect.stringContaining("defaultChannels.*") },
    );
    await expect(saveSlackSettings(db(), w.tk.actors.admin, { enabled: true, botToken: "xoxb-in-the-setting" })).rejects.toMatchObject({
      code: "INVALID_INPUT",
    });
    expect((await db().setting.findUniqueOrThrow({ where: { key: "channels.slack" } })).value).toBe(before.value);
  });
});
