// Settings › Devices (docs/devices.md#the-devices-page): the empty list, a
// pairing code shown once with the command to type on the device, a device
// paired with that code (the test plays the device's part with
// POST /api/devices/pair; no agent runs), listed offline with what it
// reported, and its revocation after a confirmation.
import { expect, test } from "@playwright/test";
import { login } from "./fixtures";

test("a person pairs a device with a code shown once, sees it listed, and revokes it", async ({ page, baseURL }) => {
  await login(page);
  await page.getByRole("link", { name: "Settings" }).click();
  await page.getByTestId("settings-nav").getByRole("link", { name: "Devices" }).click();
  await expect(page).toHaveURL(/\/settings\/devices$/);
  await expect(page.getByRole("heading", { name: "Devices", level: 1 })).toBeVisible();
  // No spec paired a device before this one on its server.
  const empty = page.getByTestId("empty-state");
  await expect(empty).toContainText("No devices paired");
  await expect(page.getByTestId("devices-table")).toHaveCount(0);

  // The empty state's own button opens the dialog; the keyboard alone closes it.
  await empty.getByTestId("pair-device").click();
  const dialog = page.getByTestId("pair-device-dialog");
  await expect(dialog.getByRole("heading", { name: "Pair a device" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();

  await page.getByTestId("pair-device").first().click();
  await page.getByTestId("make-pairing-code").click();
  const code = (await page.getByTestId("pairing-code").textContent()) ?? "";
  expect(code).toMatch(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
  await expect(page.getByTestId("pairing-expiry")).toContainText(/expires in (10:00|9:[0-5]\d)/);
  await page.getByTestId("pairing-folder").fill("~/rein work");
  await expect(page.getByTestId("pairing-command")).toHaveText(
    `npx ${baseURL}/api/devices/agent.tgz pair ${baseURL} ${code} --folder ~/'rein work'`,
  );
  await expect(page.getByTestId("pairing-run-command")).toHaveText(`npx ${baseURL}/api/devices/agent.tgz run`);
  await expect(page.getByTestId("pairing-status")).toContainText("Waiting for the device to pair");

  // The device's part: it trades the code for its token.
  const name = `laptop-${Date.now().toString(36)}`;
  const capabilities = {
    os: "linux",
    arch: "x64",
    cpus: 8,
    memoryMb: 16_384,
    hostname: "e2e-host",
    hardware: ["usb", "gpu"],
    agentVersion: "0.1.0",
    commands: "any",
    confined: true,
  };
  const paired = await page.request.post("/api/devices/pair", { data: { code: code.toLowerCase(), name, capabilities } });
  expect(paired.status(), await paired.text()).toBe(201);
  expect(await paired.json()).toMatchObject({ name, token: expect.stringMatching(/^rdv_/) });

  // The page polls while the dialog is open: it says which device used the code.
  await expect(page.getByTestId("pairing-status")).toContainText(`Paired: ${name}`);
  await expect(page.getByTestId("pairing-expiry")).toHaveText("used");
  await page.getByTestId("pairing-done").click();
  await expect(dialog).toBeHidden();

  const row = page.getByTestId("device-row").filter({ hasText: name });
  await expect(row.getByTestId("device-state")).toHaveText("offline");
  await expect(row).toContainText("you");
  await expect(row.getByTestId("device-last-seen")).toHaveText(/just now|\d+ s ago/);
  await expect(row.getByTestId("device-last-seen")).toHaveAttribute("title", /\d{4}, \d\d:\d\d:\d\d/);
  await expect(row.getByTestId("device-system")).toContainText("linux · x64 · 8 CPUs · 16 GiB");
  await expect(row.getByTestId("device-hardware")).toContainText("usb");
  await expect(row.getByTestId("device-hardware")).toContainText("gpu");
  await expect(row.getByTestId("device-commands")).toHaveText("a terminal, confined");
  await expect(row.getByTestId("device-auto-consent")).toContainText("asks every time");

  // Shown once: after a reload the code is nowhere on the page.
  await page.reload();
  await expect(row.getByTestId("device-state")).toHaveText("offline");
  expect(await page.content()).not.toContain(code);

  await row.getByTestId("device-revoke").click();
  const confirm = page.getByTestId("confirm-dialog");
  await expect(confirm).toContainText(`Revoke "${name}"?`);
  await expect(confirm).toContainText("closes at once");
  await expect(confirm).toContainText("can never connect again");
  // Keep it first: nothing changes.
  await confirm.getByRole("button", { name: "Keep it" }).click();
  await expect(confirm).toBeHidden();
  await expect(row.getByTestId("device-state")).toHaveText("offline");

  await row.getByTestId("device-revoke").click();
  await page.getByTestId("confirm-dialog-confirm").click();
  await expect(confirm).toBeHidden();
  await expect(page.getByTestId("device-row").filter({ hasText: name })).toHaveCount(0);
  await expect(page.getByTestId("empty-state")).toContainText("No devices paired");

  // Revoked devices are listed on request, marked so, with nothing left to do to them.
  await page.getByTestId("devices-with-revoked").check();
  await expect(row.getByTestId("device-state")).toHaveText("revoked");
  await expect(row.getByTestId("device-revoke")).toHaveCount(0);
});
