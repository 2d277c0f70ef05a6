// Forms show every error at once, each under its field, and compute nothing
// from an impossible number: the New run dialog and Settings › Tiers.
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
