// The Traces page: the list of runs' traces (the default view: a row per run
// that opens its Trace tab; a bad filter named under its field, the rows
// kept), and its Spans tab: spans across runs, filtered by tool (the filter
// kept in the URL), and a span that opens its run's Trace tab with it selected.
import { expect, test, type Page } from "@playwright/test";
import { ADMIN_EMAIL, login, navTo } from "./fixtures";

/** Starts a demo-coder run through the New run dialog, waits for it to succeed, returns its id. */
async function finishedDemoCoderRun(page: Page): Promise<string> {
  await page.goto("/runs");
  await page.getByTestId("new-run-button").click();
  await page.getByTestId("agent-select").selectOption("demo-coder");
  await expect(page.getByTestId("goal-input")).not.toHaveValue("");
  await page.getByTestId("start-run").click();
  await page.waitForURL(/\/runs\/[^/?#]+$/);
  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 60_000 });
  return new URL(page.url()).pathname.split("/").pop()!;
}

test("filter spans by tool on Traces, see the run's shell span, and open it in the run's trace", async ({ page }) => {
  test.setTimeout(120_000);
  await login(page);
  const runId = await finishedDemoCoderRun(page);
  const goal = (await page.getByTestId("run-goal").textContent())?.trim();
  // Spans are written in batches: the run's trace shows its tool calls once they are.
  await page.goto(`/runs/${runId}?tab=trace`);
  await expect(page.getByTestId("span-tree").locator('[data-testid="span-row"][data-kind="execute_tool"]').first()).toBeVisible();

  await navTo(page, "traces");
  await expect(page).toHaveURL(/\/traces$/);
  await expect(page.getByRole("heading", { name: "Traces" })).toBeVisible();
  await page.getByTestId("traces-view-spans").click();
  await expect(page).toHaveURL(/\/traces\?view=spans$/);
  await expect(page.getByTestId("traces-view-spans")).toHaveAttribute("aria-current", "page");
  const rows = page.getByTestId("spans-table").getByTestId("span-row");
  // Unfiltered: the run's model calls are there too.
  await expect(page.locator('[data-testid="span-row"][data-kind="chat"]').first()).toBeVisible();

  await page.getByTestId("tool-filter").selectOption("shell");
  await expect(page).toHaveURL(/[?&]tool=shell/);
  await expect(page).toHaveURL(/[?&]view=spans/);
  await expect(rows.first()).toBeVisible();
  await expect(page.locator('[data-testid="span-row"]:not([data-kind="execute_tool"])')).toHaveCount(0);
  for (const name of await rows.getByTestId("span-name").allTextContents()) expect(name).toBe("shell");

  const shell = rows.and(page.locator(`[data-run-id="${runId}"]`)).first();
  await expect(shell).toBeVisible();
  await expect(shell.getByTestId("span-status")).toHaveText("ok");
  if (goal) await expect(shell.getByTestId("span-run-link")).toHaveText(goal);
  const spanId = (await shell.getAttribute("data-span-id"))!;

  // The filter survives a reload.
  await page.reload();
  await expect(page.getByTestId("tool-filter")).toHaveValue("shell");
  await expect(rows.and(page.locator(`[data-span-id="${spanId}"]`))).toBeVisible();

  await rows
    .and(page.locator(`[data-span-id="${spanId}"]`))
    .getByTestId("span-run-link")
    .click();
  await page.waitForURL(new RegExp(`/runs/${runId}\\?tab=trace&span=${spanId}$`));
  await expect(page.getByTestId("tab-trace")).toHaveAttribute("aria-selected", "true");
  await expect(page.getByTestId("span-detail")).toHaveAttribute("data-span-id", spanId);
});

test("Traces opens on a row per run that opens its trace; a bad filter is named under its field and the rows stay", async ({ page }) => {
  test.setTimeout(120_000);
  await login(page);
  const runId = await finishedDemoCoderRun(page);
  const goal = (await page.getByTestId("run-goal").textContent())!.trim();
  await page.goto(`/runs/${runId}?tab=trace`);
  await expect(page.getByTestId("span-tree").locator('[data-testid="span-row"][data-kind="execute_tool"]').first()).toBeVisible();
  const spanCount = await page.getByTestId("span-tree").getByTestId("span-row").count();

  await navTo(page, "traces");
  await expect(page).toHaveURL(/\/traces$/);
  await expect(page.getByTestId("traces-view-traces")).toHaveAttribute("aria-current", "page");
  const row = page.locator(`[data-testid="trace-row"][data-run-id="${runId}"]`);
  await expect(row).toBeVisible();
  await expect(row.getByTestId("trace-row-link")).toHaveText(goal);
  await expect(row).toHaveAttribute("data-status", "succeeded");
  await expect(row.getByTestId("trace-row-user")).toHaveAttribute("title", ADMIN_EMAIL);
  await expect(row.getByTestId("trace-row-cost")).toHaveText(/^\$/);
  // The run's spans are counted (at least the ones its tree shows).
  expect(Number(await row.getByTestId("trace-row-spans").textContent())).toBeGreaterThanOrEqual(spanCount);
  // One row per run.
  await expect(page.locator(`[data-testid="trace-row"][data-run-id="${runId}"]`)).toHaveCount(1);

  // Sorted by cost, kept in the address.
  await page.getByTestId("trace-list-sort-cost").click();
  await expect(page).toHaveURL(/[?&]sort=cost/);
  await expect(page.getByTestId("trace-list-table").locator("th[aria-sort=descending]")).toContainText("Cost");
  await expect(row).toBeVisible();

  // A shortest duration that is not a number: named under the field, the rows stay.
  await page.getByTestId("trace-list-min-duration").fill("abc");
  await expect(page).toHaveURL(/[?&]minDuration=abc/);
  await expect(page.getByTestId("trace-list-duration-error")).toHaveText('"abc" is not a number of seconds: type one such as 2.5');
  await expect(page.getByTestId("trace-list-min-duration")).toHaveAttribute("aria-invalid", "true");
  await expect(row).toBeVisible();

  // A malformed date from the address: the same.
  await page.goto("/traces?from=2026-02-30");
  await expect(page.getByTestId("trace-list-from-error")).toContainText("is not a date");
  await expect(row).toBeVisible();

  // The row opens the run's Trace tab.
  await row.getByTestId("trace-row-link").click();
  await page.waitForURL(new RegExp(`/runs/${runId}\\?tab=trace$`));
  await expect(page.getByTestId("tab-trace")).toHaveAttribute("aria-selected", "true");
});
