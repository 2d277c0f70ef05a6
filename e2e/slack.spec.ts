// Slack approvals (docs/channels.md#slack): an admin sets Slack up in Settings ›
// Channels › Slack against a fake Slack Web API (written from Slack's docs;
// scripts/e2e-server.mjs points Rein at it), links people by e-mail, and a
// demo-deploy run's request is posted to the channel with buttons. A click
// signed as Slack signs it approves the request: the Inbox, open in the
// browser, updates live, the message in Slack says who approved it, and the
// run goes on. The same click sent again is refused and changes nothing.
import crypto from "node:crypto";
import { expect, test } from "@playwright/test";
import { blockActionsBody, signSlackRequest, startFakeSlack, type FakeSlack } from "../test/helpers/fake-slack";
import { ADMIN_EMAIL, fakeSlackPort, login, trpcPost } from "./fixtures";

const CHANNEL = "C0E2EDEPLOY";
const SLACK_ID = "U0E2EADMIN";

test("a signed Slack click approves a deploy: the Inbox updates live, the Slack message says who decided, and the run goes on", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const stamp = crypto.randomBytes(3).toString("hex");
  const signingSecret = `e2e-signing-${crypto.randomBytes(8).toString("hex")}`;
  let slack: FakeSlack | null = null;
  let runId: string | null = null;
  try {
    slack = await startFakeSlack({
      port: fakeSlackPort(),
      members: [{ id: SLACK_ID, name: "E2E Admin", email: ADMIN_EMAIL.toUpperCase() }],
    });
    await login(page);
    await trpcPost(page, "secrets.set", { name: "SLACK_BOT_TOKEN", value: slack.token });
    await trpcPost(page, "secrets.set", { name: "SLACK_SIGNING_SECRET", value: signingSecret });

    // Settings › Channels › Slack: on, a channel for every team, a working connection, people linked by e-mail.
    await page.goto("/settings/channels?tab=slack");
    const form = page.getByTestId("slack-settings-form");
    await expect(form.getByTestId("slack-botTokenSecret")).toHaveValue("SLACK_BOT_TOKEN");
    await form.getByTestId("slack-enabled").check();
    await form.locator('[data-testid="slack-channel"][data-team="*"]').fill(CHANNEL);
    await form.getByTestId("slack-save").click();
    await expect(form.getByTestId("slack-notice")).toContainText("New human requests are posted to Slack");
    await form.getByTestId("slack-test").click();
    await expect(form.getByTestId("slack-notice")).toContainText("Acme Workspace");
    await page.getByTestId("slack-sync").click();
    await expect(page.getByTestId("slack-people-notice")).toContainText("1 linked by e-mail");
    await expect(page.locator(`[data-testid="slack-person"][data-slack-user="${SLACK_ID}"] select`)).not.toHaveValue("");

    // A deploy waits for approval; its request is posted to the channel with Approve and Reject.
    runId = (await trpcPost<{ id: string }>(page, "runs.create", { goal: `Deploy 1.4.0 (Slack) ${stamp}`, agent: "demo-deploy" })).id;
    await page.goto("/inbox");
    const item = page.getByTestId("inbox-item").filter({ hasText: `Deploy 1.4.0 (Slack) ${stamp}` });
    await expect(item).toBeVisible({ timeout: 30_000 });
    await item.click();
    const d = page.getByTestId("request-detail");
    await expect(d).toHaveAttribute("data-state", "PENDING");
    await expect
      .poll(
        () =>
          slack!.callsOf("chat.postMessage").filter((c) => c.args.channel === CHANNEL && JSON.stringify(c.args.blocks).includes(stamp))
            .length,
        { timeout: 15_000 },
      )
      .toBe(1);
    const post = slack.callsOf("chat.postMessage").find((c) => JSON.stringify(c.args.blocks).includes(stamp))!;
    const actions = post.args.blocks.find((b: { type: string }) => b.type === "actions").elements as Array<{
      action_id: string;
      value: string;
    }>;
    expect(actions.map((a) => a.action_id)).toEqual(["rein:approve", "rein:reject"]);
    const requestId = actions[0].value;

    // The click, signed as Slack signs it, while the Inbox is open: the page updates by itself.
    const body = blockActionsBody({ userId: SLACK_ID, channelId: CHANNEL, actionId: "rein:approve", value: requestId });
    const headers = signSlackRequest(signingSecret, body);
    const click = await page.request.post("/api/channels/slack/actions", { headers, data: body });
    expect(click.status()).toBe(200);
    await expect(d).toHaveAttribute("data-state", "APPROVED", { timeout: 15_000 });
    await expect(d.getByTestId("decision-meta")).toContainText("via Slack");

    // Every copy in Slack now says who decided, without buttons.
    const approvedCopies = () => slack!.callsOf("chat.update").filter((c) => c.args.channel === CHANNEL);
    await expect.poll(() => approvedCopies().length, { timeout: 15_000 }).toBeGreaterThan(0);
    const update = approvedCopies().at(-1)!;
    expect(JSON.stringify(update.args.blocks)).toContain("Approved by");
    expect(JSON.stringify(update.args.blocks)).toContain("via Slack");
    expect(update.args.blocks.some((b: { type: string }) => b.type === "actions")).toBe(false);

    // The same signed click again is refused, and nothing changes.
    const replay = await page.request.post("/api/channels/slack/actions", { headers, data: body });
    expect(replay.status()).toBe(401);

    await page.goto(`/runs/${runId}`);
    await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 30_000 });
    await expect(page.getByTestId("human-decided")).toContainText("via Slack");
  } finally {
    if (runId) await page.request.post("/api/trpc/runs.cancel", { data: { json: { id: runId } } }).catch(() => {});
    await page.request.post("/api/trpc/slack.saveSettings", { data: { json: { enabled: false, defaultChannels: {} } } }).catch(() => {});
    await slack?.close();
  }
});
