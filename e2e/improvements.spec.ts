// Self-improvement through the UI: demo-csv struggles (awk splits a quoted
// comma the same way three times), Rein records the friction and its
// improver writes csv_column_sum, which passes its 3 trigger cases and goes
// live; the next demo-csv run uses it. Then Improvements lists it and its
// page shows the source, the passing cases, the origin friction and the use.
import { expect, test, type Page } from "@playwright/test";
import { login, navTo, trpcGet, trpcPost } from "./fixtures";

/** Monaco is several MB of code; the first load on a busy 2-core machine can take a while. */
const MONACO_LOAD = { timeout: 30_000 };
/** The demo run, then the improver's cycle (5 minutes at most by its time box). */
const RUN_DONE = 120_000;
const TOOL_LIVE = 300_000;
const GOAL = "Add up the amount column of the sales export and write the total to total.txt";

async function runDemoCsv(page: Page): Promise<string> {
  const { id } = await trpcPost<{ id: string }>(page, "runs.create", { agent: "demo-csv", goal: GOAL });
  await expect
    .poll(async () => (await trpcGet<{ status: string }>(page, "runs.get", { id })).status, { timeout: RUN_DONE, intervals: [1000] })
    .toBe("succeeded");
  return id;
}

type Listed = { improvements: Array<{ id: string; name: string; version: number; state: string }> };

test("demo-csv twice: the friction becomes csv_column_sum, tested, live and used", async ({ page }) => {
  test.setTimeout(RUN_DONE * 2 + TOOL_LIVE + 120_000);
  await login(page);

  const firstRunId = await runDemoCsv(page);
  let toolId = "";
  await expect
    .poll(
      async () => {
        const { improvements } = await trpcGet<Listed>(page, "improvements.list", { kind: "runtime_tool", q: "csv_column_sum" });
        const live = improvements.find((i) => i.name === "csv_column_sum" && i.state === "active");
        toolId = live?.id ?? "";
        return live?.state ?? improvements.map((i) => i.state).join(",");
      },
      { timeout: TOOL_LIVE, intervals: [2000] },
    )
    .toBe("active");

  // The struggling run's timeline says what Rein saw and links to Improvements.
  await page.goto(`/runs/${firstRunId}`);
  const friction = page.getByTestId("friction-event").first();
  await expect(friction).toBeVisible({ timeout: 15_000 });
  await expect(friction.getByTestId("friction-event-text")).toContainText("Rein recorded friction");
  await expect(friction.getByRole("link", { name: "Improvements" })).toBeVisible();

  const secondRunId = await runDemoCsv(page);

  await navTo(page, "improvements");
  await expect(page).toHaveURL(/\/improvements$/);
  const row = page.getByTestId("improvement-row").filter({ has: page.getByRole("link", { name: "csv_column_sum v1" }) });
  await expect(row).toBeVisible();
  await expect(row.getByTestId("improvement-state")).toHaveText("active");
  await expect(row).toContainText("tier 1");
  await expect(row).toContainText("demo-csv");

  await row.getByTestId("improvement-open").click();
  await expect(page).toHaveURL(new RegExp(`/improvements/${toolId}$`));
  await expect(page.getByTestId("improvement-title")).toHaveText("csv_column_sum v1");
  await expect(page.getByTestId("improvement-state")).toHaveText("active");

  // The source in read-only Monaco.
  await expect(page.getByTestId("improvement-source").locator(".monaco-editor").first()).toBeVisible(MONACO_LOAD);
  await expect(page.getByTestId("improvement-source").locator(".view-lines")).toContainText("parseCsv", MONACO_LOAD);

  // Three trigger cases, all passing.
  const cases = page.getByTestId("case-row");
  await expect(cases).toHaveCount(3);
  await expect(page.locator('[data-testid="case-row"][data-passed="true"]')).toHaveCount(3);
  await expect(page.getByTestId("cases-summary")).toContainText("All 3 trigger cases pass");

  // The origin friction, with the first run among its runs.
  await expect(page.getByTestId("friction-title")).toContainText("shell");
  await expect(page.getByTestId("improvement-friction").locator(`a[href="/runs/${firstRunId}"]`)).toBeVisible();

  // The second run used it.
  await expect(page.getByTestId("improvement-cycle").getByTestId("cycle-state")).toHaveText("DEPLOY");
  const use = page.getByTestId("use-row").filter({ has: page.locator(`a[href="/runs/${secondRunId}"]`) });
  await expect(use).toBeVisible({ timeout: 15_000 });
  await expect(use).toHaveAttribute("data-ok", "true");

  // An admin sees every action; Promote is offered on an active runtime tool.
  await expect(page.getByTestId("improvement-disable")).toBeEnabled();
  await expect(page.getByTestId("improvement-promote")).toBeEnabled();
  await expect(page.getByTestId("improvement-delete")).toBeEnabled();

  // The overview charts the friction and the live tool.
  await page.goto("/improvements");
  await page.getByTestId("improvements-tab-overview").click();
  await expect(page.getByTestId("improvements-overview")).toBeVisible();
  await expect(page.getByTestId("before-after")).toContainText("csv_column_sum v1");

  // Friction: the agent's struggle, with what its cycle deployed; dismissed with a reason, then reopened.
  await page.getByTestId("improvements-tab-friction").click();
  await expect(page).toHaveURL(/\/improvements\?tab=friction$/);
  await page.getByTestId("friction-role").selectOption("cycles");
  const struggle = page.getByTestId("friction-item").filter({ hasText: "shell" }).first();
  await expect(struggle).toHaveAttribute("data-signal", "false");
  await expect(struggle.getByTestId("friction-role-words")).toContainText("deployed → csv_column_sum");
  await struggle.getByTestId("friction-open").click();
  await expect(struggle.getByTestId("friction-history")).toContainText("csv_column_sum v1");
  await struggle.getByTestId("friction-dismiss").click();
  const dialog = page.locator("[data-testid=confirm-dialog][open]");
  await expect(dialog.getByTestId("confirm-dialog-confirm")).toBeDisabled();
  await dialog.getByTestId("friction-dismiss-reason").fill("The CSV export is being rewritten");
  await dialog.getByTestId("confirm-dialog-confirm").click();
  await expect(struggle).toHaveAttribute("data-state", "dismissed");
  await expect(struggle.getByTestId("friction-dismissed")).toContainText("Dismissed by Admin");
  await expect(struggle.getByTestId("friction-dismissed")).toContainText("The CSV export is being rewritten");
  await struggle.getByTestId("friction-reopen").click();
  await expect(struggle).toHaveAttribute("data-state", /open|addressed|improving/);
});
