// Settings › Prices and Costs: an admin prices the scripted demo-coder model
// (the browser's checks refuse a bad row first), a demo-coder run is costed
// with it, and the Costs page shows the same figure as the run. Then Settings ›
// Budgets and a run stopped by its cost ceiling. The price and the budgets are
// removed again afterwards: the other specs expect the scripted model free.
import { expect, test, type Page } from "@playwright/test";
import { formatCost } from "../lib/format";
import { login, navTo } from "./fixtures";

const MODEL = "scripted/demo-coder";

async function startDemoCoderRun(page: Page): Promise<string> {
  await page.goto("/runs");
  await page.getByTestId("new-run-button").click();
  await page.getByTestId("agent-select").selectOption("demo-coder");
  await expect(page.getByTestId("goal-input")).not.toHaveValue("");
  await page.getByTestId("start-run").click();
  await page.waitForURL(/\/runs\/[^/?#]+$/);
  return new URL(page.url()).pathname.split("/").pop()!;
}

test.afterEach(async ({ page }) => {
  // Whatever happened above, leave the scripted model free (a missing price is a 404, which is fine).
  await page.request.post("/api/trpc/prices.delete", { data: { json: { model: MODEL } } });
  // And no budget behind: later specs' runs must not be refused.
  const res = await page.request.get("/api/trpc/budgets.get");
  const teams = res.ok()
    ? ((await res.json()) as { result: { data: { json: { teams: Array<{ id: string; budgetUsd: number | null }> } } } }).result.data.json
        .teams
    : [];
  for (const t of teams.filter((t) => t.budgetUsd !== null)) {
    await page.request.post("/api/trpc/budgets.setTeam", { data: { json: { teamId: t.id, budgetUsd: null } } });
  }
});

test("with only free scripted runs, Costs says why everything is $0 and links to Prices and Models", async ({ page }) => {
  test.setTimeout(90_000);
  await login(page);
  await startDemoCoderRun(page);

  await navTo(page, "costs");
  await expect(page).toHaveURL(/\/costs$/);
  await expect(page.getByTestId("total-cost")).toHaveText(formatCost(0));
  const note = page.getByTestId("costs-free");
  await expect(note).toContainText("Scripted models (the demo agents) are free");
  await expect(note).toContainText("No model has a price yet");
  await expect(note.getByTestId("costs-free-models")).toHaveAttribute("href", "/settings/models");
  // Tokens and runs by outcome are still there, under the note.
  await expect(page.getByRole("heading", { name: "Tokens by model" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Runs by outcome" })).toBeVisible();
  await note.getByTestId("costs-free-prices").click();
  await expect(page).toHaveURL(/\/settings\/prices$/);
});

test("an admin prices a model; a run is costed with it and Costs shows the same total", async ({ page }) => {
  test.setTimeout(120_000);
  await login(page);

  // Settings › Prices, through the navigation.
  await page.getByTestId("nav-settings").click();
  await page.getByTestId("settings-nav").getByRole("link", { name: "Prices" }).click();
  await expect(page).toHaveURL(/\/settings\/prices$/);
  await expect(page.getByTestId("prices-note")).toContainText("scripted");
  await expect(page.getByTestId("prices-note")).toContainText("$0");

  // A bad row is refused where it is wrong, and nothing is saved.
  const add = page.getByTestId("price-new-row");
  await add.getByTestId("price-model").fill("demo-coder");
  await add.getByTestId("price-inputPerMTok").fill("-1");
  await add.getByTestId("price-outputPerMTok").fill("abc");
  await add.getByTestId("price-add").click();
  await expect(add.getByTestId("price-field-error")).toHaveText([
    /<provider>\/<model id>/,
    "must be 0 or more",
    "must be a number, e.g. 2.5",
  ]);
  await expect(page.getByTestId("price-row")).toHaveCount(0);

  // The server's limit is checked in the browser too, under its field.
  await add.getByTestId("price-model").fill(MODEL);
  await add.getByTestId("price-inputPerMTok").fill("1000");
  await add.getByTestId("price-outputPerMTok").fill("9999999");
  await add.getByTestId("price-add").click();
  await expect(add.getByTestId("price-field-error")).toHaveText("must be at most 100,000 USD per million tokens");
  await expect(page.getByTestId("price-row")).toHaveCount(0);

  await add.getByTestId("price-outputPerMTok").fill("3000");
  await add.getByTestId("price-cacheReadPerMTok").fill("100");
  await add.getByTestId("price-add").click();
  const row = page.locator(`[data-testid="price-row"][data-model="${MODEL}"]`);
  await expect(row).toBeVisible();
  await expect(row.getByTestId("price-inputPerMTok")).toHaveValue("1000");
  await expect(row.getByTestId("price-cacheWritePerMTok")).toHaveValue("0");
  await expect(add.getByTestId("price-model")).toHaveValue("");

  // Edit a saved price: Save is enabled only once something changed.
  await expect(row.getByTestId("price-save")).toBeDisabled();
  await row.getByTestId("price-outputPerMTok").fill("4000");
  await row.getByTestId("price-save").click();
  await expect(row.getByTestId("price-saved")).toBeVisible();
  await page.reload();
  await expect(row.getByTestId("price-outputPerMTok")).toHaveValue("4000");

  // A demo-coder run is costed at that price.
  const id = await startDemoCoderRun(page);
  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 60_000 });
  // Spans are written in batches: the cost is final once it is above zero and the same on two reads in a row.
  let runCost = 0;
  let previous = -1;
  await expect
    .poll(
      async () => {
        const res = await page.request.get(`/api/v1/runs/${id}`);
        previous = runCost;
        runCost = ((await res.json()) as { costUsd: number }).costUsd;
        return runCost > 1 && runCost === previous;
      },
      { message: "the run's cost, once all its spans are written", intervals: [500, 1000] },
    )
    .toBe(true);
  // The run page shows it, where it shows a cost.
  if ((await page.getByTestId("run-cost").count()) > 0) {
    await page.reload();
    await expect(page.getByTestId("run-cost")).toHaveText(formatCost(runCost));
  }

  // Costs: the total is every run's cost in the range; runs of other specs were free.
  const list = (await (await page.request.get("/api/v1/runs?limit=200")).json()) as { runs: Array<{ costUsd: number }> };
  const allRuns = list.runs.reduce((n, r) => n + r.costUsd, 0);
  expect(Math.round(allRuns * 100)).toBe(Math.round(runCost * 100));

  await navTo(page, "costs");
  await expect(page).toHaveURL(/\/costs$/);
  await expect(page.getByTestId("range-30")).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("total-cost")).toHaveText(formatCost(runCost));
  await expect(page.getByTestId("cost-chart")).toBeVisible();
  await expect(page.getByTestId("outcome-chart")).toBeVisible();

  // Grouped by model, the priced model carries the whole cost; by team, it is the default team's.
  await page.getByTestId("group-by-model").click();
  const modelRow = page.locator(`[data-testid="cost-group-row"][data-key="${MODEL}"]`);
  await expect(modelRow.getByTestId("cost-group-cost")).toHaveText(formatCost(runCost));
  await page.getByTestId("group-by-team").click();
  await expect(page.getByTestId("cost-group-row").first()).toContainText("default");
  await page.getByTestId("range-7").click();
  await expect(page.getByTestId("range-7")).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("total-cost")).toHaveText(formatCost(runCost));

  // Delete the price again, through the page.
  await page.getByTestId("nav-settings").click();
  await page.getByTestId("settings-nav").getByRole("link", { name: "Prices" }).click();
  await row.getByTestId("price-delete").click();
  await expect(page.getByTestId("confirm-dialog")).toContainText(`Delete the price of ${MODEL}?`);
  await page.getByTestId("confirm-dialog-confirm").click();
  await expect(page.getByTestId("price-row")).toHaveCount(0);
});

test("an admin sets a team budget; a run with a tiny cost ceiling stops before the call that would exceed it", async ({ page }) => {
  test.setTimeout(120_000);
  await login(page);
  // The price through the API (the test above sets one through the page).
  const priced = await page.request.post("/api/trpc/prices.set", {
    data: { json: { model: MODEL, inputPerMTok: 1000, outputPerMTok: 4000 } },
  });
  expect(priced.ok()).toBe(true);

  // Settings › Budgets: a bad amount is refused under the field; a good one is saved.
  await page.getByTestId("nav-settings").click();
  await page.getByTestId("settings-nav").getByRole("link", { name: "Budgets" }).click();
  await expect(page).toHaveURL(/\/settings\/budgets$/);
  const team = page.locator('[data-testid="team-budget-row"][data-team="default"]');
  await team.getByTestId("team-budget-input").fill("-5");
  await team.getByTestId("team-budget-save").click();
  await expect(team.getByTestId("team-budget-error")).toHaveText("must be more than 0");
  await team.getByTestId("team-budget-input").fill("5000");
  await team.getByTestId("team-budget-save").click();
  await expect(team.getByTestId("team-budget-saved")).toBeVisible();
  await expect(team.getByTestId("team-budget-progress")).toBeVisible();
  await page.reload();
  await expect(team.getByTestId("team-budget-input")).toHaveValue("5000");

  // New run: more than 50 model calls without a ceiling is refused by the server, under the field.
  await page.goto("/runs");
  await page.getByTestId("new-run-button").click();
  await page.getByTestId("agent-select").selectOption("demo-coder");
  await expect(page.getByTestId("goal-input")).not.toHaveValue("");
  await page.getByTestId("limits-toggle").click();
  await page.getByTestId("max-steps-input").fill("80");
  await page.getByTestId("start-run").click();
  await expect(page.getByTestId("max-steps-error")).toContainText("needs a cost ceiling");
  await expect(page).toHaveURL(/\/runs$/);

  // With a ceiling far below one model call's cost: the run stops before its second call.
  await page.getByTestId("max-steps-input").fill("");
  await page.getByTestId("ceiling-input").fill("0.0001");
  await page.getByTestId("start-run").click();
  await page.waitForURL(/\/runs\/[^/?#]+$/);
  await expect(page.getByTestId("run-status")).toHaveText("failed", { timeout: 60_000 });
  await expect(page.getByTestId("run-error")).toContainText(/budget/i);
  // The Runs list prints the failure once on its row.
  const failedId = new URL(page.url()).pathname.split("/").pop()!;
  await page.goto("/runs");
  const failedRow = page.locator(`[data-testid="run-row"][data-run-id="${failedId}"]`);
  await expect(failedRow.getByTestId("run-end-line")).toContainText(/budget/i);
  await expect(failedRow.getByText(/budget/i)).toHaveCount(1);

  // Costs: the team's burn-down against its budget, and the health dashboards.
  await navTo(page, "costs");
  await expect(page.locator('[data-testid="burn-down"][data-team="default"]')).toContainText("$5,000.00");
  await expect(page.getByTestId("tool-success-chart")).toBeVisible();
  await expect(
    page.locator('[data-testid="latency-row"][data-kind="chat"][data-name="scripted/demo-coder"]').getByTestId("latency-p50"),
  ).toContainText("≤");
});
