// Settings › Secrets: an admin adds a secret (checks under the fields, the
// server's refusal shown), the value is never shown again; a run given the
// secret (picked in the New run dialog) prints its length and a redacted echo
// in its shell output, and the list then says when it was last used; Replace
// value and Delete (with a confirmation). The secret is removed afterwards.
import { expect, test, type Page } from "@playwright/test";
import { login } from "./fixtures";

const NAME = "E2E_DEPLOY_TOKEN";
const VALUE = "e2e-dpl-Zq81-77aa-KEEP-OUT";

test.afterEach(async ({ page }) => {
  await page.request.post("/api/trpc/secrets.delete", { data: { json: { name: NAME } } });
});

async function openSecretsPage(page: Page) {
  await page.getByTestId("nav-settings").click();
  await page
    .getByTestId("settings-nav")
    .getByRole("link", { name: /Secrets/ })
    .click();
  await expect(page).toHaveURL(/\/settings\/secrets$/);
  await expect(page.getByRole("heading", { name: "Secrets", level: 1 })).toBeVisible();
}

test("add a secret, a run's shell uses it (redacted in the timeline), replace its value, delete it", async ({ page }) => {
  test.setTimeout(120_000);
  await login(page);
  await openSecretsPage(page);
  await expect(page.getByTestId("empty-state")).toContainText("No secrets yet");

  // Checked in the browser first, then by the server.
  await page.getByTestId("secret-save").click();
  await expect(page.getByTestId("secret-name-error")).toHaveText("A name is required");
  await expect(page.getByTestId("secret-value-error")).toHaveText("A value is required");
  await page.getByTestId("secret-name").fill("provider/openai/api-key");
  await page.getByTestId("secret-value").fill("x");
  await page.getByTestId("secret-save").click();
  await expect(page.getByTestId("secret-name-error")).toContainText("Settings → Models");
  await page.getByTestId("secret-name").fill("path");
  await page.getByTestId("secret-save").click();
  await expect(page.getByTestId("secret-form-error")).toContainText("would replace the shell's PATH variable");

  await page.getByTestId("secret-name").fill(NAME);
  await expect(page.getByTestId("secret-form")).toContainText(`Tools see it as $${NAME}`);
  await page.getByTestId("secret-value").fill(VALUE);
  await page.getByTestId("secret-save").click();
  await expect(page.getByTestId("secret-saved")).toContainText(`Secret ${NAME} saved`);
  await expect(page.getByTestId("secret-value")).toHaveValue("");
  const row = page.getByTestId("secret-row").filter({ hasText: NAME });
  await expect(row).toContainText(`$${NAME}`);
  await expect(row.getByTestId("secret-last-used")).toHaveText("never");
  expect(await page.content()).not.toContain(VALUE);

  // A new secret goes to nobody until the admin says who may have it.
  await expect(row.getByTestId("secret-scope")).toHaveText("Nobody yet");
  await row.getByTestId("edit-secret-scope").click();
  await page.getByTestId("secret-scope-agents").fill("demo-coder");
  await page.getByTestId("secret-scope-teams").fill("default");
  await page.getByTestId("secret-scope-caller").check();
  await page.getByTestId("secret-scope-save").click();
  await expect(page.getByTestId("secret-scope-form")).toHaveCount(0);
  await expect(row.getByTestId("secret-scope")).toHaveText("demo-coder · team default · scenarios too");

  // A run given the secret in the New run dialog: its command gets the value, its output shows it redacted.
  const command = `echo "$${NAME}" | wc -c; echo token=$${NAME}`;
  const scenario = { turns: [{ toolCalls: [{ tool: "shell", args: { command } }] }, { text: "Deployed." }] };
  await page.goto("/runs");
  await page.getByTestId("new-run-button").click();
  await page.getByTestId("agent-select").selectOption("demo-coder");
  await page.getByTestId("goal-input").fill("Use the deploy token");
  await page.getByTestId("secrets-toggle").click();
  const option = page.getByTestId("secret-option").filter({ hasText: NAME });
  await expect(option).toContainText(`$${NAME}`);
  await option.getByRole("checkbox").check();
  await expect(page.getByTestId("secrets-toggle")).toContainText("(1 chosen)");
  await page.getByTestId("advanced-toggle").click();
  await page.getByTestId("scenario-input").fill(JSON.stringify(scenario));
  expect(await page.content()).not.toContain(VALUE);
  await page.getByTestId("start-run").click();
  await page.waitForURL(/\/runs\/[^/?#]+$/);
  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 30_000 });
  await expect(page.getByTestId("shell-output")).toHaveText(`${VALUE.length + 1}\ntoken=[secret:${NAME}]`);
  expect(await page.content()).not.toContain(VALUE);

  await openSecretsPage(page);
  await expect(row.getByTestId("secret-last-used")).not.toHaveText("never");

  // Replace the value: the form takes the name, the cursor goes to the value.
  await row.getByTestId("replace-secret").click();
  await expect(page.getByTestId("secret-form")).toContainText(`Replace the value of ${NAME}`);
  await expect(page.getByTestId("secret-value")).toBeFocused();
  await page.keyboard.type(`${VALUE}-2`);
  await page.getByTestId("secret-save").click();
  await expect(page.getByTestId("secret-saved")).toContainText(`Value of ${NAME} replaced`);

  // Delete, after a confirmation.
  await row.getByTestId("delete-secret").click();
  await expect(page.getByTestId("confirm-dialog")).toContainText(`Delete the secret ${NAME}?`);
  await page.getByTestId("confirm-dialog-confirm").click();
  await expect(page.getByTestId("secret-row")).toHaveCount(0);
  await expect(page.getByTestId("empty-state")).toContainText("No secrets yet");
});
