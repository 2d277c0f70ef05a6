// Signed webhooks (docs/channels.md#webhooks) from Settings › Channels: an admin allows
// a private host, adds a webhook to a receiver the test runs itself, keeps
// the secret shown once, sends a test ping, and watches a run of the
// demo-deploy agent arrive in the delivery log; a delivery opened shows its
// attempt and payload, and Resend sends it again with the same webhook-id.
// The receiver checks every Standard Webhooks signature on its own, with the
// secret read from the page. A bad URL gets its problem beside the field.
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Page } from "@playwright/test";
import { login, trpcGet, trpcPost } from "./fixtures";

interface Received {
  id: string;
  timestamp: string;
  type: string;
  body: string;
  signature: string;
  /** The signature checked against the secret, by this receiver, per the spec. */
  verified: boolean;
}

/** Standard Webhooks: HMAC-SHA256 of "id.timestamp.body" with the key after whsec_, against each v1 entry. */
function signedWith(secret: string | null, r: Pick<Received, "id" | "timestamp" | "body" | "signature">): boolean {
  if (!secret?.startsWith("whsec_")) return false;
  if (!/^\d+$/.test(r.timestamp) || Math.abs(Date.now() / 1000 - Number(r.timestamp)) > 300) return false;
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const expected = crypto.createHmac("sha256", key).update(`${r.id}.${r.timestamp}.${r.body}`).digest();
  return r.signature
    .split(" ")
    .filter((s) => s.startsWith("v1,"))
    .some((s) => {
      const given = Buffer.from(s.slice(3), "base64");
      return given.length === expected.length && crypto.timingSafeEqual(given, expected);
    });
}

/** A webhook receiver on 127.0.0.1 that verifies each request's signature once it knows the secret, and answers `status`. */
async function startReceiver() {
  const received: Received[] = [];
  let secret: string | null = null;
  let status = 200;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const id = String(req.headers["webhook-id"] ?? "");
      const timestamp = String(req.headers["webhook-timestamp"] ?? "");
      let type = "";
      try {
        type = (JSON.parse(body) as { type?: string }).type ?? "";
      } catch {
        type = "(not JSON)";
      }
      const signature = String(req.headers["webhook-signature"] ?? "");
      received.push({ id, timestamp, type, body, signature, verified: signedWith(secret, { id, timestamp, body, signature }) });
      res.writeHead(status, { "content-type": "text/plain" });
      res.end(status === 200 ? "received" : "gone");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    setSecret: (s: string) => void (secret = s),
    answer: (s: number) => void (status = s),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function openChannels(page: Page) {
  await page.goto("/settings");
  await page.getByTestId("settings-nav").getByRole("link", { name: "Channels" }).click();
  await expect(page).toHaveURL(/\/settings\/channels$/);
  await expect(page.getByRole("tab", { name: "Webhooks" })).toHaveAttribute("aria-selected", "true");
}

test("an admin adds a signed webhook, pings it, and sees a run's deliveries with their attempts; Resend keeps the webhook-id", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const receiver = await startReceiver();
  let endpointId: string | null = null;
  let runId: string | null = null;
  await login(page);
  try {
    await openChannels(page);

    // 127.0.0.1 is refused until an admin allows it, on the receiver's port.
    const hosts = page.getByTestId("webhook-allowed-hosts");
    const allowed = new URL(receiver.url).host;
    await hosts.getByTestId("webhook-allow-host-input").fill(allowed);
    await hosts.getByTestId("webhook-allow-host-add").click();
    await expect(hosts.locator(`[data-testid="webhook-allowed-host"][data-host="${allowed}"]`)).toBeVisible();
    await expect(hosts.getByTestId("webhook-allow-host-input")).toHaveValue("");

    await page.getByTestId("webhook-add").first().click();
    const dialog = page.getByTestId("webhook-dialog");
    await expect(dialog.getByRole("heading", { name: "Add a webhook" })).toBeVisible();
    await dialog.getByLabel("URL").fill(receiver.url);
    await dialog.getByLabel("Description").fill("The e2e receiver");
    // The event types come with their meaning in words.
    await expect(dialog.getByTestId("webhook-event-types")).toContainText("A run asks a person");
    await dialog.getByTestId("webhook-type-run.state_changed").check();
    await dialog.getByTestId("webhook-type-human_request.opened").check();
    await dialog.getByTestId("webhook-submit").click();

    // The secret, once; the dialog stays until the admin says it is stored.
    const secretDialog = page.getByTestId("webhook-secret-dialog");
    await expect(secretDialog).toBeVisible();
    await expect(secretDialog.getByTestId("webhook-secret-note")).toContainText("will not be shown again");
    const secret = (await secretDialog.getByTestId("webhook-secret").textContent())?.trim() ?? "";
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    receiver.setSecret(secret);
    await page.keyboard.press("Escape");
    await expect(secretDialog).toBeVisible();
    await expect(secretDialog.getByTestId("webhook-secret-done")).toBeDisabled();
    await secretDialog.getByTestId("webhook-secret-ack").check();
    await secretDialog.getByTestId("webhook-secret-done").click();
    await expect(page).toHaveURL(/\/settings\/channels\/webhooks\/[^/]+$/);
    endpointId = decodeURIComponent(page.url().split("/").pop()!);
    await expect(page.getByTestId("webhook-url-heading")).toHaveText(receiver.url);
    await expect(page.getByTestId("webhook-state")).toHaveAttribute("data-state", "on");

    // A test ping: the answer is shown in the page.
    await page.getByTestId("webhook-test").click();
    await expect(page.getByTestId("webhook-test-result")).toContainText("HTTP 200");
    await expect(page.getByTestId("webhook-test-result")).toContainText("Delivered");
    expect(receiver.received.filter((r) => r.type === "webhook.test")).toHaveLength(1);

    // A run that stops for an approval: its state changes and the request go out.
    runId = (await trpcPost<{ id: string }>(page, "runs.create", { goal: "Deploy the e2e webhook build", agent: "demo-deploy" })).id;
    const log = page.getByTestId("delivery-log");
    const opened = log.locator('[data-testid="delivery-row"][data-type="human_request.opened"]');
    await expect(opened.first()).toHaveAttribute("data-state", "succeeded", { timeout: 45_000 });
    await expect(log.locator('[data-testid="delivery-row"][data-type="run.state_changed"][data-state="succeeded"]').first()).toBeVisible();
    await expect(opened.first().getByTestId("delivery-last-status")).toHaveText("HTTP 200");

    // One delivery: its attempt and payload; then Resend.
    await opened.first().getByTestId("delivery-open").click();
    const drawer = page.getByTestId("delivery-drawer");
    await expect(drawer.getByTestId("delivery-attempt")).toHaveCount(1);
    await expect(drawer.getByTestId("delivery-attempt").first().getByTestId("attempt-status")).toHaveText("HTTP 200");
    await expect(drawer.getByTestId("delivery-payload")).toContainText('"type": "human_request.opened"');
    await expect(drawer.getByTestId("delivery-payload")).toContainText(runId);
    const messageId = ((await drawer.getByTestId("delivery-message-id").textContent()) ?? "").replace("webhook-id", "").trim();
    expect(messageId.length).toBeGreaterThan(0);
    await drawer.getByTestId("delivery-resend").click();
    await expect(drawer.getByTestId("delivery-attempt")).toHaveCount(2);
    await expect(drawer.locator('[data-testid="delivery-attempt"][data-trigger="resend"]').getByTestId("attempt-status")).toHaveText(
      "HTTP 200",
    );

    // The receiver saw the same webhook-id twice, and every signature held.
    const sameId = receiver.received.filter((r) => r.id === messageId);
    expect(sameId).toHaveLength(2);
    expect(sameId.every((r) => r.type === "human_request.opened")).toBe(true);
    expect(receiver.received.some((r) => r.type === "run.state_changed")).toBe(true);
    expect(receiver.received.length).toBeGreaterThanOrEqual(4);
    expect(receiver.received.filter((r) => !r.verified)).toEqual([]);
    await drawer.getByTestId("delivery-close").click();
    await expect(drawer).toHaveCount(0);

    // Rotation: a new secret, shown once; for a day both secrets sign.
    await page.getByTestId("webhook-rotate").click();
    await page.getByTestId("confirm-dialog-confirm").click();
    await expect(secretDialog.getByTestId("webhook-rotate-note")).toContainText("The previous secret also signs until");
    const rotated = (await secretDialog.getByTestId("webhook-secret").textContent())?.trim() ?? "";
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await secretDialog.getByTestId("webhook-secret-ack").check();
    await secretDialog.getByTestId("webhook-secret-done").click();
    await expect(secretDialog).toBeHidden();
    await expect(page.getByTestId("webhook-rotating")).toContainText("the previous secret also signs");
    // The earlier ping's answer is still on the page: wait for the receiver to see the new one.
    const pings = () => receiver.received.filter((r) => r.type === "webhook.test");
    const pingsBefore = pings().length;
    await page.getByTestId("webhook-test").click();
    await expect.poll(() => pings().length).toBe(pingsBefore + 1);
    await expect(page.getByTestId("webhook-test-result")).toContainText("HTTP 200");
    const ping = pings().at(-1)!;
    expect(signedWith(rotated, ping)).toBe(true);
    expect(signedWith(secret, ping)).toBe(true);
    expect(signedWith("whsec_" + Buffer.alloc(24, 7).toString("base64"), ping)).toBe(false);

    // Edit: the same dialog, filled in.
    await page.getByTestId("webhook-edit").click();
    await expect(dialog.getByRole("heading", { name: "Edit the webhook" })).toBeVisible();
    await expect(dialog.getByLabel("URL")).toHaveValue(receiver.url);
    await expect(dialog.getByTestId("webhook-type-human_request.opened")).toBeChecked();
    await dialog.getByLabel("Description").fill("The e2e receiver, renamed");
    await dialog.getByTestId("webhook-submit").click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId("webhook-page")).toContainText("The e2e receiver, renamed");

    // Remove it from the page.
    await page.getByTestId("webhook-remove").click();
    await page.getByTestId("confirm-dialog-confirm").click();
    await expect(page).toHaveURL(/\/settings\/channels$/);
    endpointId = null;
    await expect(page.getByRole("heading", { name: "No webhooks yet" })).toBeVisible();
  } finally {
    if (endpointId) await page.request.post("/api/trpc/webhooks.remove", { data: { json: { id: endpointId } } });
    if (runId) await page.request.post("/api/trpc/runs.cancel", { data: { json: { id: runId } } });
    await page.request.post("/api/trpc/webhooks.setAllowHosts", { data: { json: { hosts: [] } } });
    await receiver.close();
  }
});

test("a bad URL gets its problem beside the URL field, and no webhook is added", async ({ page }) => {
  await login(page);
  const before = await trpcGet<unknown[]>(page, "webhooks.list");
  await openChannels(page);
  await page.getByTestId("webhook-add").first().click();
  const dialog = page.getByTestId("webhook-dialog");
  await dialog.getByTestId("webhook-type-all").check();

  await dialog.getByLabel("URL").fill("not a url");
  await dialog.getByTestId("webhook-submit").click();
  await expect(dialog.getByTestId("webhook-url-error")).toHaveText("that is not a URL");
  await expect(dialog.getByLabel("URL")).toHaveAttribute("aria-invalid", "true");

  // A private address is refused too, beside the same field.
  await dialog.getByLabel("URL").fill("http://192.168.1.10/hook");
  await dialog.getByTestId("webhook-submit").click();
  await expect(dialog.getByTestId("webhook-url-error")).toContainText(/private|not allowed|address/i);
  await expect(page.getByTestId("webhook-secret-dialog")).toBeHidden();

  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  expect(await trpcGet<unknown[]>(page, "webhooks.list")).toHaveLength(before.length);
  await expect(page.getByTestId("webhook-row")).toHaveCount(before.length);
});

test("a webhook that answers 410 Gone is turned off, admins see it in the Inbox, and once on again Recover sends what it missed", async ({
  page,
}) => {
  test.setTimeout(150_000);
  const receiver = await startReceiver();
  receiver.answer(410);
  let endpointId: string | null = null;
  let runId: string | null = null;
  await login(page);
  try {
    await trpcPost(page, "webhooks.setAllowHosts", { hosts: [new URL(receiver.url).host] });
    const created = await trpcPost<{ endpoint: { id: string }; secret: string }>(page, "webhooks.create", {
      url: receiver.url,
      eventTypes: ["run.state_changed"],
    });
    endpointId = created.endpoint.id;
    receiver.setSecret(created.secret);
    runId = (await trpcPost<{ id: string }>(page, "runs.create", { goal: "Deploy while the receiver is gone", agent: "demo-deploy" })).id;
    await expect
      .poll(async () => (await trpcGet<{ enabled: boolean }>(page, "webhooks.get", { id: endpointId })).enabled, { timeout: 30_000 })
      .toBe(false);

    await page.goto("/inbox");
    const notice = page.getByTestId("channel-notice");
    await expect(notice).toHaveCount(1);
    await expect(notice).toContainText(`Rein turned off the webhook to ${receiver.url}: The endpoint answered 410 Gone`);
    await notice.getByRole("link", { name: "Open the webhook" }).click();
    await expect(page).toHaveURL(new RegExp(`/settings/channels/webhooks/${endpointId}$`));
    await expect(page.getByTestId("webhook-state")).toHaveAttribute("data-state", "off");
    await expect(page.getByTestId("webhook-off-reason")).toContainText("410 Gone");
    await expect(page.getByTestId("webhook-recover")).toBeDisabled();

    // The receiver is back: turn the webhook on and recover the last hour.
    receiver.answer(200);
    await page.getByTestId("webhook-toggle").click();
    await expect(page.getByTestId("webhook-state")).toHaveAttribute("data-state", "on");
    await page.getByTestId("webhook-recover").click();
    const recover = page.getByTestId("webhook-recover-dialog");
    const since = new Date(await recover.getByTestId("webhook-recover-since").inputValue()).getTime();
    expect(Math.abs(Date.now() - 3600_000 - since)).toBeLessThan(5 * 60_000);
    await recover.getByTestId("webhook-recover-submit").click();
    await expect(recover.getByTestId("webhook-recover-result")).toHaveText(/^[1-9]\d* deliver(y|ies) queued/);
    await recover.getByRole("button", { name: "Cancel" }).click();

    const log = page.getByTestId("delivery-log");
    await expect(log.locator('[data-testid="delivery-row"][data-state="pending"]')).toHaveCount(0, { timeout: 30_000 });
    await expect(log.locator('[data-testid="delivery-row"][data-state="succeeded"]').first()).toBeVisible();
    await log.getByTestId("delivery-filter-failed").click();
    await expect(log.getByTestId("empty-state")).toContainText("No failed deliveries");
    expect(receiver.received.filter((r) => r.type === "run.state_changed" && !r.verified)).toEqual([]);
    expect(receiver.received.filter((r) => r.type === "run.state_changed").length).toBeGreaterThanOrEqual(2);

    await page.goto("/inbox");
    await expect(page.getByRole("heading", { name: "Inbox" })).toBeVisible();
    await expect(page.getByTestId("channel-notice")).toHaveCount(0);
  } finally {
    if (endpointId) await page.request.post("/api/trpc/webhooks.remove", { data: { json: { id: endpointId } } });
    if (runId) await page.request.post("/api/trpc/runs.cancel", { data: { json: { id: runId } } });
    await page.request.post("/api/trpc/webhooks.setAllowHosts", { data: { json: { hosts: [] } } });
    await receiver.close();
  }
});

test("the Channels tabs are in the URL and work from the keyboard; the on-call admins are chosen and saved", async ({ page }) => {
  await login(page);
  const admin = (await trpcGet<Array<{ id: string; name: string; email: string }>>(page, "users.list")).find(
    (u) => u.email === "admin@rein.test",
  )!;
  const shown = admin.name || admin.email;
  await page.goto("/settings/channels?tab=escalations");
  const escalations = page.getByRole("tab", { name: "Escalations" });
  await expect(escalations).toHaveAttribute("aria-selected", "true");

  const onCall = page.getByTestId("routing-oncall");
  await expect(onCall.getByTestId("routing-oncall-default")).toContainText("every admin");
  await expect(page.getByTestId("routing-save")).toBeDisabled();
  await onCall.getByTestId("routing-oncall-add").selectOption(admin.id);
  await expect(onCall.getByTestId("routing-oncall-chosen")).toHaveCount(1);
  await page.getByTestId("routing-save").click();
  await expect(page.getByTestId("routing-saved")).toHaveText("Saved");
  expect((await trpcGet<{ onCall: string[] }>(page, "channels.routing")).onCall).toEqual([admin.id]);
  await page.reload();
  await expect(onCall.getByTestId("routing-oncall-chosen")).toHaveText(`${shown}✕`);
  await onCall.getByRole("button", { name: `Remove ${shown} from on-call admins` }).click();
  await page.getByTestId("routing-save").click();
  await expect(onCall.getByTestId("routing-oncall-default")).toBeVisible();
  await expect.poll(async () => (await trpcGet<{ onCall: string[] }>(page, "channels.routing")).onCall).toEqual([]);

  // Arrow keys move between the tabs, and the URL follows.
  await escalations.focus();
  await page.keyboard.press("ArrowLeft");
  await expect(page.getByRole("tab", { name: "E-mail" })).toBeFocused();
  await expect(page).toHaveURL(/\?tab=email$/);
  await expect(page.getByTestId("channels-email-tab")).toContainText("E-mail is not set up");
  await page.keyboard.press("ArrowLeft");
  await expect(page).toHaveURL(/\?tab=slack$/);
  await expect(page.getByTestId("channels-slack-tab").getByTestId("slack-settings-form")).toContainText("Post human requests to Slack");
  await page.keyboard.press("Home");
  await expect(page).toHaveURL(/\/settings\/channels$/);
  await expect(page.getByTestId("webhooks-card")).toBeVisible();
  await expect(page.getByTestId("channels-slack-tab")).toHaveCount(0);
});
