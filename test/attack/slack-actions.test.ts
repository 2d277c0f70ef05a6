// Attack class 27: Slack's interactivity endpoint. Only a request signed with
// the signing secret, fresh, and seen once is Slack's; everything in it is
// checked again. Each refused click changes nothing: not the request, not the
// audit log; a refused person hears why in a message only they see.
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_SLACK_BODY } from "@/server/channels";
import { blockActionsBody, signSlackRequest } from "@/test/helpers/fake-slack";
import { createSlackWorld, TEAM_CHANNEL, type SlackWorld } from "@/test/helpers/slack-world";

let w: SlackWorld;

beforeAll(async () => {
  w = await createSlackWorld();
}, 60_000);

afterAll(async () => {
  await w?.close();
});

const db = () => w.tk.t.db;
const nowSec = () => Math.floor(w.tk.hitl!.clock.now().getTime() / 1000);

/** What a refused click must leave as it was. */
async function snapshot(requestId: string) {
  const request = await db().humanRequest.findUniqueOrThrow({
    where: { id: requestId },
    select: { state: true, decidedById: true, channel: true, decision: true },
  });
  const audit = await db().auditEntry.findMany({
    where: { kind: { not: "request.notified" } },
    select: { id: true },
    orderBy: { id: "asc" },
  });
  return { request, audit: audit.map((a) => a.id), links: await db().slackUser.count() };
}

async function openApproval() {
  const requestId = await w.openRequest("approve");
  await w.dispatcher.dispatch();
  return requestId;
}

const ephemerals = () => w.slack.callsOf("chat.postEphemeral");

describe("requests that are not Slack's are refused with 401 before anything is read", () => {
  it("a forged signature", async () => {
    const requestId = await openApproval();
    const before = await snapshot(requestId);
    const calls = w.slack.calls.length;
    const seen = await db().slackSeenAction.count();
    const body = blockActionsBody({ userId: w.slackIds.admin, channelId: TEAM_CHANNEL, actionId: "rein:approve", value: requestId });
    for (const headers of [
      signSlackRequest("not-the-signing-secret", body, nowSec()),
      { ...signSlackRequest(w.signingSecret, body, nowSec()), "x-slack-signature": `v0=${"0".repeat(64)}` },
      { "content-type": "application/x-www-form-urlencoded" },
      // Signed, then the decision swapped in the body.
      signSlackRequest(w.signingSecret, body.replace("rein%3Aapprove", "rein%3Areject"), nowSec()),
    ]) {
      const res = await w.post(body, headers);
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: expect.stringMatching(/FORGED|UNSIGNED/) } });
    }
    expect(await snapshot(requestId)).toEqual(before);
    expect(w.slack.calls.length).toBe(calls);
    expect(await db().slackSeenAction.count()).toBe(seen);
  });

  it("a timestamp six minutes old, or six minutes ahead", async () => {
    const requestId = await openApproval();
    const before = await snapshot(requestId);
    const seen = await db().slackSeenAction.count();
    for (const ts of [nowSec() - 360, nowSec() + 360]) {
      const res = await w.click(w.slackIds.admin, "rein:approve", requestId, ts);
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body).error).toMatchObject({ code: "STALE", message: expect.stringContaining("five minutes") });
    }
    expect(await snapshot(requestId)).toEqual(before);
    expect(await db().slackSeenAction.count()).toBe(seen);
  });

  it("a replay of a click already taken", async () => {
    const requestId = await openApproval();
    const body = blockActionsBody({ userId: w.slackIds.operator, channelId: TEAM_CHANNEL, actionId: "rein:approve", value: requestId });
    const headers = signSlackRequest(w.signingSecret, body, nowSec());
    // An operator's click is refused by the broker, but the signed request is now used up.
    expect((await w.post(body, headers)).status).toBe(200);
    const before = await snapshot(requestId);
    const sent = ephemerals().length;
    const again = await w.post(body, headers);
    expect(again.status).toBe(401);
    expect(JSON.parse(again.body).error.code).toBe("REPLAYED");
    expect(await snapshot(requestId)).toEqual(before);
    expect(ephemerals().length).toBe(sent);
    expect(before.request.state).toBe("PENDING");
  });

  it("a body over 64 KiB is 413", async () => {
    const body = `payload=${"x".repeat(MAX_SLACK_BODY)}`;
    const res = await w.post(body, signSlackRequest(w.signingSecret, body, nowSec()));
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error.code).toBe("PAYLOAD_TOO_LARGE");
  });
});

describe("signed clicks Rein refuses, telling the person in that channel", () => {
  it("a Slack user Rein does not know (no mapping, an e-mail no Rein user has)", async () => {
    const requestId = await openApproval();
    const before = await snapshot(requestId);
    const res = await w.click("U0STRANGER", "rein:approve", requestId);
    expect(res.status).toBe(200);
    expect((await snapshot(requestId)).request).toEqual(before.request);
    expect((await snapshot(requestId)).audit).toEqual(before.audit);
    expect(ephemerals().at(-1)!.args).toMatchObject({
      channel: TEAM_CHANNEL,
      user: "U0STRANGER",
      text: expect.stringContaining("does not know your Slack account"),
    });
    expect(await db().slackUser.findUnique({ where: { slackUserId: "U0STRANGER" } })).toMatchObject({ userId: null });
  });

  it("a viewer's click (mapped by e-mail at the click)", async () => {
    const requestId = await openApproval();
    const before = await snapshot(requestId);
    const res = await w.click(w.slackIds.viewer, "rein:approve", requestId);
    expect(res.status).toBe(200);
    expect((await snapshot(requestId)).request).toEqual(before.request);
    expect((await snapshot(requestId)).audit).toEqual(before.audit);
    expect(ephemerals().at(-1)!.args).toMatchObject({
      channel: TEAM_CHANNEL,
      user: w.slackIds.viewer,
      text: expect.stringContaining("needs the approver role; you are viewer"),
    });
    expect(await db().slackUser.findUnique({ where: { slackUserId: w.slackIds.viewer } })).toMatchObject({ userId: w.tk.users.viewer });
  });

  it("a click after the Inbox already decided", async () => {
    const requestId = await openApproval();
    const a = w.tk.actors.admin;
    await w.tk.hitl!.broker.decide(
      requestId,
      { id: a.userId, name: a.name, role: a.role, teamIds: a.teamIds, teamRoles: a.teamRoles },
      { decision: "approve" },
      "inbox",
    );
    const before = await snapshot(requestId);
    const res = await w.click(w.slackIds.approver, "rein:reject", requestId);
    expect(res.status).toBe(200);
    const after = await snapshot(requestId);
    expect([after.request, after.audit]).toEqual([before.request, before.audit]);
    expect(before.request).toMatchObject({ state: "APPROVED", channel: "inbox", decidedById: a.userId });
    expect(ephemerals().at(-1)!.args).toMatchObject({
      channel: TEAM_CHANNEL,
      user: w.slackIds.approver,
      text: expect.stringContaining(`already closed: APPROVED by ${a.name} via the Inbox`),
    });
  });

  it("ids in the payload that name no request, an option that does not exist, a decision the kind does not take, a disabled account", async () => {
    const requestId = await w.openRequest("choose", { options: [{ id: "a", label: "A" }] });
    await w.dispatcher.dispatch();
    const before = await snapshot(requestId);
    const refusals: Array<[string, string, string, string]> = [
      [w.slackIds.approver, "rein:approve", `req-${crypto.randomUUID()}`, "no such request"],
      [w.slackIds.approver, "rein:choose:0", `${requestId}:not-an-option`, "is not one of the options"],
      [w.slackIds.approver, "rein:veto", requestId, "not veto"],
    ];
    for (const [user, action, value, words] of refusals) {
      expect((await w.click(user, action, value)).status).toBe(200);
      expect(ephemerals().at(-1)!.args.text, `${action} ${value}`).toContain(words);
    }
    await db().user.update({ where: { id: w.tk.users.approver }, data: { disabledAt: new Date() } });
    expect((await w.click(w.slackIds.approver, "rein:choose:0", `${requestId}:a`)).status).toBe(200);
    expect(ephemerals().at(-1)!.args.text).toContain("disabled");
    expect((await snapshot(requestId)).request).toEqual(before.request);
    expect(await db().auditEntry.count({ where: { requestId, kind: "request.transition" } })).toBe(0);
  });
});

describe("the memory of signed requests", () => {
  it("forgets signatures after a day (a replay that old is stale anyway) and keeps the recent ones", async () => {
    const now = w.tk.hitl!.clock.now().getTime();
    await db().slackSeenAction.createMany({
      data: [
        { key: "old-signature", createdAt: new Date(now - 2 * 86_400_000) },
        { key: "recent-signature", createdAt: new Date(now - 3600_000) },
      ],
    });
    w.tk.hitl!.clock.advance(2 * 3600_000);
    const requestId = await openApproval();
    expect((await w.click(w.slackIds.admin, "rein:approve", requestId)).status).toBe(200);
    const keys = (await db().slackSeenAction.findMany({ select: { key: true } })).map((k) => k.key);
    expect(keys).not.toContain("old-signature");
    expect(keys).toContain("recent-signature");
  });
});
