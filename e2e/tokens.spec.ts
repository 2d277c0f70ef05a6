import { expect, test } from "@playwright/test";
import { login } from "./fixtures";

test("an API token is shown once, works with the REST API, and stops working when revoked", async ({ page, playwright, baseURL }) => {
  await login(page);

  await page.getByRole("link", { name: "Settings" }).click();
  await expect(page).toHaveURL(/\/settings\/tokens$/);
  const name = `ci-${Date.now().toString(36)}`;
  await page.getByTestId("token-name").fill(name);
  await page.getByTestId("token-days").fill("30");
  await page.getByTestId("create-token").click();

  const reveal = page.getByTestId("new-token");
  await expect(reveal).toContainText("shown only this once");
  const token = await page.getByTestId("new-token-value").inputValue();
  expect(token).toMatch(/^rein_/);
  await expect(reveal).toContainText(`curl -H "Authorization: Bearer ${token}" ${baseURL}/api/v1/runs`);

  const row = page.getByTestId("token-row").filter({ hasText: name });
  await expect(row).toContainText(token.slice(0, 11));
  await expect(row).not.toContainText(token);
  await expect(row.getByTestId("token-status")).toHaveText("active");

  // A program without the browser's cookies uses the token.
  const api = await playwright.request.newContext({ baseURL });
  try {
    const ok = await api.get("/api/v1/runs", { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status()).toBe(200);

    await row.getByTestId("revoke-token").click();
    await expect(page.getByTestId("confirm-dialog")).toContainText(`Revoke "${name}"?`);
    await page.getByTestId("confirm-dialog-confirm").click();
    await expect(row.getByTestId("token-status")).toHaveText("revoked");
    await expect(row.getByTestId("revoke-token")).toHaveCount(0);

    const refused = await api.get("/api/v1/runs", { headers: { authorization: `Bearer ${token}` } });
    expect(refused.status()).toBe(401);
  } finally {
    await api.dispose();
  }

  // Shown once: after a reload only the prefix is left.
  await page.reload();
  await expect(page.getByTestId("new-token")).toHaveCount(0);
});
