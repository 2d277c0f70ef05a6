// The new person's journey (docs/getting-started.md#a-tour-by-role): an
// operator an admin has just added logs in for the first time, sees their own
// role, starts the scripted demo from the New run dialog and watches it to
// the end, at 1440 and 1024 pixels in both themes. The other roles' journeys
// are the specs named in that section.
import { expect, test } from "@playwright/test";
import { login, trpcPost } from "./fixtures";
import { atEverySize } from "./journey";

const stamp = Date.now().toString(36);
const NEWCOMER = { email: `newcomer-${stamp}@rein.test`, name: "Nia Newcomer", password: "newcomer-password-1" };

test("a new operator logs in, sees their role, and watches their first run end", async ({ page, browser }) => {
  test.setTimeout(120_000);
  await login(page);
  await trpcPost(page, "users.create", { email: NEWCOMER.email, name: NEWCOMER.name, password: NEWCOMER.password, role: "operator" });

  const context = await browser.newContext();
  try {
    const nia = await context.newPage();
    await nia.goto("/login");
    await nia.getByLabel("Email").fill(NEWCOMER.email);
    await nia.getByLabel("Password").fill(NEWCOMER.password);
    await nia.getByTestId("login-submit").click();
    await expect(nia).toHaveURL(/\/runs$/);
    // Their role, in the word the rest of the product uses.
    await expect(nia.getByTestId("user-role")).toHaveText("operator");
    // The filter lives in the address: the box is ticked once the list has followed it.
    await nia.getByTestId("only-mine").click();
    await expect(nia).toHaveURL(/mine=1/);
    await expect(nia.getByTestId("only-mine")).toBeChecked();
    await expect(nia.getByText("No runs match these filters")).toBeVisible();
    await atEverySize(nia, "new-user-runs", async (p) => {
      await expect(p.getByTestId("new-run-button")).toBeVisible();
      await expect(p.getByTestId("nav-runs")).toBeVisible();
    });

    await nia.getByTestId("new-run-button").click();
    await nia.getByTestId("agent-select").selectOption("demo-coder");
    await expect(nia.getByTestId("model-hint").getByTestId("scripted-badge")).toBeVisible();
    await nia.getByTestId("start-run").click();
    await nia.waitForURL(/\/runs\/[^/?#]+$/);
    await expect(nia.getByTestId("run-status")).toHaveText("succeeded", { timeout: 60_000 });
    // The scripted model is labelled as such, and nothing failed: no error line.
    await expect(nia.getByTestId("run-model").getByTestId("scripted-badge")).toBeVisible();
    await expect(nia.getByTestId("run-error")).toHaveCount(0);
    await atEverySize(nia, "new-user-run", async (p) => {
      await expect(p.getByTestId("run-status")).toBeVisible();
      await expect(p.getByTestId("timeline")).toBeVisible();
    });
  } finally {
    await context.close();
  }
});
