import { describe, expect, it } from "vitest";
import type { HumanRequestView } from "@/server/hitl";
import {
  MAX_DETAIL_CHARS,
  closedMessage,
  escapeMrkdwn,
  openMessage,
  outcomeLine,
  parseAction,
  type ButtonElement,
  type SlackBlock,
} from "./blocks";
import { verifySlackSignature } from "./signature";

const LINKS = { publicUrl: "https://rein.example" };

function request(over: Partial<HumanRequestView> = {}): HumanRequestView {
  return {
    id: "req1",
    runId: "run1",
    nodeId: "n1",
    slot: "policy",
    kind: "approve",
    state: "PENDING",
    title: "Run `rm -rf build`?",
    teamName: null,
    detail: "The agent wants to run a shell command.",
    payload: { tool: "shell" },
    requiredRole: "approver",
    level: 1,
    expiresAt: new Date("2026-11-27T13:03:00Z"),
    hardExpiresAt: new Date("2026-11-28T12:00:00Z"),
    createdAt: new Date("2026-11-27T12:00:00Z"),
    teamId: "team1",
    requestedBy: { id: "u1", name: "Olu" },
    decision: null,
    decidedBy: null,
    decidedAt: null,
    channel: null,
    run: { goal: "Clean the build folder", agentName: "demo-coder", status: "waiting_human" },
    ...over,
  };
}

const buttons = (blocks: SlackBlock[]): ButtonElement[] => blocks.flatMap((b) => (b.type === "actions" ? b.elements : []));
const allText = (blocks: SlackBlock[]) => JSON.stringify(blocks);

describe("the Slack message of an open request", () => {
  it("shows the title, kind, detail, agent, goal, expiry and links to the run and the Inbox", () => {
    const m = openMessage(request(), LINKS);
    const text = allText(m.blocks);
    for (const part of [
      "Run `rm -rf build`?",
      "Approval needed",
      "needs approver",
      "The agent wants to run a shell command.",
      "demo-coder",
      "Clean the build folder",
      "Expires 2026-11-27 13:03 UTC",
      "https://rein.example/runs/run1",
      "https://rein.example/inbox",
    ]) {
      expect(text).toContain(part);
    }
    expect(m.text).toContain("Run `rm -rf build`?");
  });

  it("escapes &, < and > in everything the run wrote, so no mention or link can be smuggled in", () => {
    const m = openMessage(
      request({
        title: "<!channel> & <https://evil.example|click>",
        detail: "a > b <@U123>",
        run: { goal: "<!here>", agentName: "x<y", status: "running" },
      }),
      LINKS,
    );
    const text = allText(m.blocks);
    expect(text).not.toContain("<!channel>");
    expect(text).not.toContain("<!here>");
    expect(text).not.toContain("<@U123>");
    expect(text).not.toContain("<https://evil.example");
    expect(text).toContain("&lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;");
    expect(escapeMrkdwn("a&b<c>d")).toBe("a&amp;b&lt;c&gt;d");
  });

  it("caps a long detail", () => {
    const m = openMessage(request({ detail: "x".repeat(10_000) }), LINKS);
    const section = m.blocks.find((b) => b.type === "section" && b.text.text.startsWith("xxx"));
    expect(section && section.type === "section" && section.text.text.length).toBe(MAX_DETAIL_CHARS);
  });

  it("approve: Approve (primary) and Reject (danger), each carrying the request id", () => {
    const [approve, reject] = buttons(openMessage(request(), LINKS).blocks);
    expect(approve).toMatchObject({ action_id: "rein:approve", value: "req1", style: "primary", text: { text: "Approve" } });
    expect(reject).toMatchObject({ action_id: "rein:reject", value: "req1", style: "danger", text: { text: "Reject" } });
    expect(parseAction(approve)).toEqual({ decision: "approve", requestId: "req1" });
    expect(parseAction(reject)).toEqual({ decision: "reject", requestId: "req1" });
  });

  it("veto: one Veto button (danger) and the time it goes ahead", () => {
    const m = openMessage(request({ kind: "veto" }), LINKS);
    expect(buttons(m.blocks)).toEqual([expect.objectContaining({ action_id: "rein:veto", value: "req1", style: "danger" })]);
    expect(allText(m.blocks)).toContain("Goes ahead at 2026-11-27 13:03 UTC unless someone vetoes");
  });

  it("choose: one button per option, each naming its option; more than five become a Choose in Rein link", () => {
    const options = [1, 2, 3].map((i) => ({ id: `opt:${i}`, label: `Option ${i}` }));
    const three = buttons(openMessage(request({ kind: "choose", payload: { options } }), LINKS).blocks);
    expect(three.map((b) => b.text.text)).toEqual(["Option 1", "Option 2", "Option 3"]);
    expect(new Set(three.map((b) => b.action_id)).size).toBe(3); // Slack refuses repeated action ids
    expect(three.map((b) => parseAction(b))).toEqual(options.map((o) => ({ decision: "choose", requestId: "req1", optionId: o.id })));
    const six = [1, 2, 3, 4, 5, 6].map((i) => ({ id: `o${i}`, label: `Option ${i}` }));
    const many = buttons(openMessage(request({ kind: "choose", payload: { options: six } }), LINKS).blocks);
    expect(many).toEqual([
      expect.objectContaining({ text: expect.objectContaining({ text: "Choose in Rein" }), url: "https://rein.example/inbox" }),
    ]);
    expect(many[0].value).toBeUndefined();
  });

  it("provide: an Answer in Rein button opening the signed link", () => {
    const [answer] = buttons(
      openMessage(request({ kind: "provide" }), { ...LINKS, answerUrl: "https://rein.example/resume?t=abc" }).blocks,
    );
    expect(answer).toMatchObject({ text: { text: "Answer in Rein" }, url: "https://rein.example/resume?t=abc" });
    expect(parseAction(answer)).toBeNull();
  });

  it("reads back only Rein's own buttons", () => {
    for (const bad of [
      { action_id: "rein:delete", value: "req1" },
      { action_id: "rein:approve" },
      { action_id: "rein:approve", value: "" },
      { action_id: "rein:choose:1", value: "req1" },
      { action_id: "rein:choose:1", value: "req1:" },
      { action_id: 3, value: "req1" },
    ]) {
      expect(parseAction(bad as never), JSON.stringify(bad)).toBeNull();
    }
  });
});

describe("the Slack message of a closed request", () => {
  const decided = { decidedAt: new Date("2026-11-27T12:03:00Z"), decidedBy: { id: "u2", name: "Ada" } };

  it.each([
    [{ state: "APPROVED", channel: "slack", ...decided }, "Approved by Ada via Slack at 2026-11-27 12:03 UTC"],
    [{ state: "REJECTED", channel: "inbox", ...decided }, "Rejected by Ada via the Inbox at 2026-11-27 12:03 UTC"],
    [{ state: "REJECTED", kind: "veto", channel: "link", ...decided }, "Vetoed by Ada via a signed link at 2026-11-27 12:03 UTC"],
    [{ state: "EXPIRED", channel: "scheduler", decidedAt: decided.decidedAt }, "Expired at 2026-11-27 12:03 UTC"],
    [{ state: "CANCELED", channel: "kernel" }, "Canceled"],
    [
      { state: "APPROVED", kind: "veto", channel: "scheduler", decidedAt: decided.decidedAt, decidedBy: { id: "system", name: "Rein" } },
      "Approved at 2026-11-27 12:03 UTC: nobody vetoed in time",
    ],
  ] as Array<[Partial<HumanRequestView>, string]>)("%o reads %s", (over, line) => {
    expect(outcomeLine(request(over))).toBe(line);
  });

  it("names the option chosen, and has no buttons", () => {
    const r = request({
      kind: "choose",
      state: "APPROVED",
      channel: "slack",
      ...decided,
      payload: { options: [{ id: "b", label: "Blue" }] },
      decision: { decision: "choose", optionId: "b" },
    });
    const m = closedMessage(r, LINKS);
    expect(allText(m.blocks)).toContain("Approved by Ada via Slack at 2026-11-27 12:03 UTC: Blue");
    expect(buttons(m.blocks)).toEqual([]);
    expect(m.blocks.some((b) => b.type === "actions")).toBe(false);
  });
});

describe("Slack's request signature", () => {
  // The example from Slack's "Verifying requests from Slack".
  const secret = "8f742231b10e8888abcd99yyyzzz85a5";
  const body =
    "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
  const timestamp = "1531420618";
  const signature = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";

  it("accepts Slack's own example, and refuses it changed, stale or unsigned", () => {
    expect(verifySlackSignature(secret, { timestamp, signature }, body, 1531420618 + 10)).toEqual({ ok: true });
    expect(verifySlackSignature(secret, { timestamp, signature }, `${body}x`, 1531420618)).toMatchObject({ ok: false, code: "FORGED" });
    expect(verifySlackSignature("another-secret", { timestamp, signature }, body, 1531420618)).toMatchObject({ ok: false, code: "FORGED" });
    expect(verifySlackSignature(secret, { timestamp, signature: signature.slice(0, -2) }, body, 1531420618)).toMatchObject({
      ok: false,
      code: "FORGED",
    });
    expect(verifySlackSignature(secret, { timestamp, signature }, body, 1531420618 + 301)).toMatchObject({ ok: false, code: "STALE" });
    expect(verifySlackSignature(secret, { timestamp, signature }, body, 1531420618 - 301)).toMatchObject({ ok: false, code: "STALE" });
    expect(verifySlackSignature(secret, { timestamp }, body, 1531420618)).toMatchObject({ ok: false, code: "UNSIGNED" });
  });
});
