// Settings › Machines (docs/desktops-and-tiers.md#t3-remote-machines): the
// empty list, a machine added with the public key and install script to put
// on it, a first contact that fails in words (nothing listens there), its
// row waiting for a confirmed host key, and its removal after a confirmation.
import { expect, test } from "@playwright/test";
import { login } from "./fixtures";

test("an admin adds a machine, reads why it cannot be reached, and removes it", async ({ page }) => {
  await login(page);
  await page.goto("/settings/machines");
  await expect(page.getByRole("heading", { name: "Machines" })).toBeVisible();
  // No spec made a machine before this one on its server.
  await expect(page.getByTestId("empty-state")).toContainText("No machines yet");

  const name = `box-${Date.now().toString(36)}`;
  await page.getByTestId("add-machine").click();
  await page.getByTestId("machine-name").fill(name);
  await page.getByTestId("machine-host").fill("127.0.0.1");
  await page.getByLabel("Port").fill("1");
  await page.getByTestId("machine-user").fill("rein");
  await page.getByTestId("register-machine").click();

  // Rein made the machine's key pair: the public half and a script to install it are shown to copy.
  const step = page.getByTestId("confirm-key-step");
  await expect(step.getByRole("heading", { name: `Connect ${name}` })).toBeVisible();
  expect(await page.getByTestId("machine-public-key").inputValue()).toMatch(new RegExp(`^ssh-ed25519 [A-Za-z0-9+/=]+ rein-${name}$`));
  expect(await page.getByTestId("machine-install-script").inputValue()).toContain("authorized_keys");
  // Nothing listens on port 1: the first contact says so, and there is no host key to confirm.
  await page.getByTestId("contact-machine").click();
  await expect(step).toContainText("Could not connect: connection refused");
  await expect(page.getByTestId("confirm-host-key")).toBeDisabled();
  await step.getByRole("button", { name: "Later" }).click();

  const row = page.getByTestId("machine-row").filter({ hasText: name });
  await expect(row.getByTestId("machine-state")).toHaveText(/not confirmed/i);
  await expect(row.getByTestId("machine-confirm")).toBeVisible();
  await row.getByTestId("machine-remove").click();
  await page.getByRole("button", { name: "Remove machine" }).click();
  await expect(page.getByTestId("machine-row").filter({ hasText: name })).toHaveCount(0);
});
