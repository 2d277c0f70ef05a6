// Settings › Gateway keys (docs/gateway.md#team-keys): the empty list, a key
// made for a team with a budget and shown once with how to use it, its row
// in the list, and its revocation after a confirmation.
import { expect, test } from "@playwright/test";
import { login, trpcPost } from "./fixtures";

test("an admin issues a team's gateway key, sees it once, and revokes it", async ({ page, baseURL }) => {
  await login(page);
  const stamp = Date.now().toString(36);
  const team = `keys-${stamp}`;
  await trpcPost(page, "teams.create", { name: team });

  await page.getByRole("link", { name: "Settings" }).click();
  await page.getByRole("link", { name: "Gateway keys" }).click();
  await expect(page).toHaveURL(/\/settings\/gateway-keys$/);
  // No spec made a key before this one on its server.
  await expect(page.getByTestId("empty-state")).toContainText("No gateway keys yet");
  await expect(page.getByTestId("gateway-keys-table")).toHaveCount(0);

  const name = `nightly ${stamp}`;
  await page.getByTestId("gateway-key-team").selectOption({ label: team });
  await page.getByTestId("gateway-key-name").fill(name);
  await page.getByLabel("Budget a month (USD)").fill("20");
  await page.getByTestId("create-gateway-key").click();

  const reveal = page.getByTestId("new-gateway-key");
  await expect(reveal).toContainText(`Key "${name}" for team ${team} created.`);
  await expect(reveal).toContainText("shown only this once");
  const key = await page.getByTestId("new-gateway-key-value").inputValue();
  expect(key).toMatch(/^rein_gk_[A-Za-z0-9_-]{43}$/);
  await expect(reveal).toContainText(`curl ${baseURL}/api/gateway/v1/chat/completions`);
  await expect(reveal).toContainText(`OPENAI_BASE_URL=${baseURL}/api/gateway/v1`);
  await expect(reveal).toContainText(`ANTHROPIC_API_KEY=${key}`);

  await page.getByRole("button", { name: "I have copied it" }).click();
  await expect(reveal).toHaveCount(0);
  await expect(page.getByTestId("empty-state")).toHaveCount(0);

  const row = page.getByTestId("gateway-key-row").filter({ hasText: name });
  await expect(row).toContainText(team);
  await expect(row).toContainText(`${key.slice(0, "rein_gk_".length + 6)}…`);
  await expect(row).not.toContainText(key);
  await expect(row).toContainText("$0 of $20.00");
  await expect(row.getByTestId("gateway-key-state")).toHaveText("active");

  await row.getByTestId("revoke-gateway-key").click();
  const dialog = page.getByTestId("confirm-dialog");
  await expect(dialog).toContainText(`Revoke "${name}"?`);
  await expect(dialog).toContainText("get 401 from their next request on");
  await page.getByTestId("confirm-dialog-confirm").click();
  await expect(dialog).toBeHidden();
  await expect(row.getByTestId("gateway-key-state")).toHaveText("revoked");
  await expect(row.getByTestId("revoke-gateway-key")).toHaveCount(0);

  // Shown once: after a reload the list has the row, and the key is nowhere.
  await page.reload();
  await expect(page.getByTestId("gateway-key-row").filter({ hasText: name }).getByTestId("gateway-key-state")).toHaveText("revoked");
  await expect(page.getByTestId("new-gateway-key")).toHaveCount(0);
  expect(await page.content()).not.toContain(key);
});
