import { expect, test, type Page } from "@playwright/test";
import { login } from "./fixtures";

function sleepScenario(seconds: number): string {
  return JSON.stringify({
    turns: [{ text: "Working", toolCalls: [{ tool: "shell", args: { command: `sleep ${seconds}` } }] }, { text: "Done" }],
  });
}

/** Starts a demo-coder run with a scenario through the New run dialog; returns its id. */
async function startScenarioRun(page: Page, goal: string, scenario: string): Promise<string> {
  await page.goto("/runs");
  await page.getByTestId("new-run-button").click();
  await page.getByTestId("agent-select").selectOption("demo-coder");
  await page.getByTestId("goal-input").fill(goal);
  await page.getByTestId("advanced-toggle").click();
  await page.getByTestId("scenario-input").fill(scenario);
  await page.getByTestId("start-run").click();
  await page.waitForURL(/\/runs\/[^/?#]+$/);
  return new URL(page.url()).pathname.split("/").pop()!;
}

test.describe.serial("pause, resume and cancel", () => {
  let pausedRunId = "";
  let canceledRunId = "";
  const stamp = Date.now().toString(36);

  test("the New run dialog rejects a scenario that is not JSON", async ({ page }) => {
    await login(page);
    await page.getByTestId("new-run-button").click();
    await page.getByTestId("advanced-toggle").click();
    await page.getByTestId("scenario-input").fill("{ turns: [");
    await page.getByTestId("start-run").click();
    await expect(page.getByTestId("scenario-error")).toContainText("not valid JSON");
    await expect(page).toHaveURL(/\/runs$/);
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("new-run-dialog")).not.toBeVisible();
  });

  test("pause takes effect after the current step and resume finishes the run", async ({ page }) => {
    test.setTimeout(90_000);
    await login(page);
    pausedRunId = await startScenarioRun(page, `Pause me ${stamp}`, sleepScenario(4));
    await expect(page.getByTestId("run-model").getByTestId("scripted-badge")).toBeVisible();
    await expect(page.getByTestId("tool-running")).toBeVisible({ timeout: 15_000 });
    await expect(page.getByTestId("run-status")).toHaveText("running");

    await page.getByTestId("pause-run").click();
    await expect(page.getByTestId("run-status")).toHaveText("paused", { timeout: 20_000 });
    // The sleep finished and was recorded; the next model turn did not happen.
    await expect(page.locator('[data-testid="tool-result"][data-tool="shell"]')).toHaveCount(1);
    await expect(page.getByTestId("model-turn-text").filter({ hasText: /^Done$/ })).toHaveCount(0);
    await expect(page.getByTestId("control-event").first()).toHaveText("Paused by Admin");
    await expect(page.getByTestId("pause-run")).toHaveCount(0);

    await page.getByTestId("resume-run").click();
    await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 30_000 });
    await expect(page.getByTestId("model-turn-text").filter({ hasText: /^Done$/ })).toHaveCount(1);
    await expect(page.getByTestId("control-event")).toHaveText(["Paused by Admin", "Resumed by Admin"]);
    await expect(page.getByTestId("resume-run")).toHaveCount(0);
    await expect(page.getByTestId("cancel-run")).toHaveCount(0);
  });

  test("cancel stops a long command within seconds", async ({ page }) => {
    test.setTimeout(60_000);
    await login(page);
    canceledRunId = await startScenarioRun(page, `Cancel me ${stamp}`, sleepScenario(60));
    await expect(page.getByTestId("tool-running")).toBeVisible({ timeout: 15_000 });

    await page.getByTestId("cancel-run").click();
    await expect(page.getByTestId("confirm-dialog")).toContainText("Cancel this run?");
    await page.getByTestId("confirm-dialog-confirm").click();
    await expect(page.getByTestId("run-status")).toHaveText("canceled", { timeout: 10_000 });
    await expect(page.getByTestId("tool-error")).toContainText("ABORTED");
    await expect(page.getByTestId("cancel-run")).toHaveCount(0);
    await expect(page.getByTestId("pause-run")).toHaveCount(0);
  });

  test("the runs list shows both runs and the status filter narrows it", async ({ page }) => {
    expect(pausedRunId && canceledRunId).toBeTruthy();
    await login(page);
    const row = (id: string) => page.locator(`[data-testid="run-row"][data-run-id="${id}"]`);
    await expect(row(pausedRunId).getByTestId("run-row-status")).toHaveText("succeeded");
    await expect(row(canceledRunId).getByTestId("run-row-status")).toHaveText("canceled");

    await page.getByTestId("status-chip-canceled").click();
    await expect(page).toHaveURL(/status=canceled/);
    await expect(row(canceledRunId)).toBeVisible();
    await expect(row(pausedRunId)).toHaveCount(0);
    for (const status of await page.getByTestId("run-row").evaluateAll((els) => els.map((el) => el.getAttribute("data-status")))) {
      expect(status).toBe("canceled");
    }

    // The filter lives in the URL: a reload keeps it.
    await page.reload();
    await expect(page.getByTestId("status-chip-canceled")).toHaveAttribute("aria-pressed", "true");
    await expect(row(pausedRunId)).toHaveCount(0);

    await page.getByTestId("status-chip-succeeded").click();
    await expect(row(pausedRunId)).toBeVisible();
    await expect(row(canceledRunId)).toBeVisible();

    await page.getByTestId("clear-filters").click();
    await page.getByTestId("runs-search").fill(`Cancel me ${stamp}`);
    await expect(page).toHaveURL(/q=Cancel/);
    await expect(page.getByTestId("run-row")).toHaveCount(1);
    await expect(row(canceledRunId)).toBeVisible();
  });
});
