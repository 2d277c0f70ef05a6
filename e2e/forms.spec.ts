// Forms show every error at once, each under its field, and compute nothing
// from an impossible number: the New run dialog, Settings › Tiers and
// Settings › Prices.
import { expect, test } from "@playwright/test";
import { login } from "./fixtures";

test("New run: an empty goal, a negative ceiling and a bad call cap are all shown at once, and nothing starts", async ({ page }) => {
  await login(page);
  await page.goto("/runs");
  await page.getByTestId("new-run-button").click();
  await page.getByTestId("agent-select").selectOption("demo-coder");
  await expect(page.getByTestId("goal-input")).toHaveValue("Write a small FizzBuzz program and run its tests");
  await page.getByTestId("goal-input").fill("");
  await page.getByTestId("limits-toggle").click();
  await page.getByTestId("ceiling-input").fill("-4");
  await page.getByTestId("max-steps-input").fill("ten");
  await page.getByTestId("start-run").click();

  await expect(page.getByTestId("goal-error")).toHaveText("Describe what the agent should achieve");
  await expect(page.getByTestId("ceiling-error")).toHaveText("must be more than 0");
  await expect(page.getByTestId("max-steps-error")).toContainText("must be a whole number");
  // Nothing was started and nothing typed was lost.
  await expect(page).toHaveURL(/\/runs$/);
  await expect(page.getByTestId("ceiling-input")).toHaveValue("-4");
  await expect(page.getByTestId("max-steps-input")).toHaveValue("ten");
});

test("Settings › Tiers: a negative price shows no estimate, and two bad fields show both errors", async ({ page }) => {
  await login(page);
  await page.goto("/settings/tiers");
  const estimate = page.getByTestId("tier-T2-estimate");
  await expect(estimate).toHaveText(/^\$/);

  await page.getByTestId("tier-T2-costPerHourUsd").fill("-4");
  await expect(estimate).toHaveText("—");
  await page.getByTestId("tier-T2-idleTimeoutMin").fill("-5");
  await page.getByTestId("tiers-save").click();
  await expect(page.getByTestId("tier-T2-costPerHourUsd-error")).toHaveText("cannot be negative");
  await expect(page.getByTestId("tier-T2-idleTimeoutMin-error")).toHaveText("is from 1 minute to a week (10080)");
  await expect(page.getByTestId("tiers-error-count")).toHaveText("2 fields need fixing");
  await expect(estimate).toHaveText("—");

  // A possible price brings the estimate back (an hour's price for at least the idle timeout).
  await page.getByTestId("tier-T2-costPerHourUsd").fill("0.06");
  await page.getByTestId("tier-T2-idleTimeoutMin").fill("60");
  await expect(estimate).toHaveText(/^\$0\.060*$/);
});

test("Settings › Prices: a bad model name and an absurd price are both shown at once, and nothing is saved", async ({ page }) => {
  await login(page);
  await page.goto("/settings/prices");
  const add = page.getByTestId("price-new-row");
  await expect(add).toBeVisible();
  await add.getByTestId("price-model").fill("gpt-4.1");
  await add.getByTestId("price-inputPerMTok").fill("2");
  await add.getByTestId("price-outputPerMTok").fill("9999999");
  await add.getByTestId("price-add").click();

  // One message under each bad field, the model's first; the good input price has none.
  await expect(add.getByTestId("price-field-error")).toHaveText([
    /<provider>\/<model id>/,
    "must be at most 100,000 USD per million tokens",
  ]);
  await expect(add.getByTestId("price-model")).toHaveAttribute("aria-invalid", "true");
  await expect(add.getByTestId("price-outputPerMTok")).toHaveAttribute("aria-invalid", "true");
  await expect(add.getByTestId("price-inputPerMTok")).not.toHaveAttribute("aria-invalid", "true");
  // Nothing was saved and nothing typed was lost.
  await expect(page.locator('[data-testid="price-row"][data-model="gpt-4.1"]')).toHaveCount(0);
  await expect(add.getByTestId("price-added")).toHaveCount(0);
  await expect(add.getByTestId("price-model")).toHaveValue("gpt-4.1");
  await expect(add.getByTestId("price-outputPerMTok")).toHaveValue("9999999");

  // Typing in a field clears its own message only.
  await add.getByTestId("price-outputPerMTok").fill("8");
  await expect(add.getByTestId("price-field-error")).toHaveText([/<provider>\/<model id>/]);
});
