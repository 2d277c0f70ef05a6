// Settings › Data in a real browser (docs/operations.md#retention): an admin
// changes how long workspaces are kept and keeps the audit log forever, sees
// the change saved, measures disk use and reads it by kind and by team; on a
// run's page an operator pins the run and unpins it.
import { expect, test } from "@playwright/test";
import { login, trpcGet, trpcPost } from "./fixtures";

interface Status {
  settings: Record<string, number | null>;
  usage: { byTeam: Array<{ teamName: string | null }> } | null;
}

test("an admin sets retention, measures disk use, and pins a run", async ({ page }) => {
  await login(page);
  await page.goto("/settings/data");
  await expect(page.getByRole("heading", { name: "Data", level: 1 })).toBeVisible();
  const form = page.getByTestId("retention-form");
  await expect(form.getByTestId("retention-workspaces")).toContainText("Workspaces");

  // A bad value is said in words and cannot be saved.
  const workspaces = form.getByLabel("Workspaces");
  await workspaces.fill("1.5");
  await expect(form.getByTestId("retention-workspaces")).toContainText("A whole number of days");
  await expect(form.getByRole("button", { name: "Save" })).toBeDisabled();
  await workspaces.fill("45");
  await form.getByTestId("retention-audit-forever").check();
  await form.getByRole("button", { name: "Save" }).click();
  await expect(form.getByRole("status")).toContainText("Saved");
  const saved = await trpcGet<Status>(page, "data.status");
  expect(saved.settings).toMatchObject({ workspaces: 45, audit: null });

  // Disk use, measured on demand, by kind and by team (a run of the default team to count).
  const run = await trpcPost<{ id: string }>(page, "runs.create", {
    goal: "A run to pin",
    agent: "demo-coder",
    scenario: [{ text: "Nothing to do." }],
  });
  await page.getByTestId("measure-now").click();
  await expect(page.getByTestId("usage-teams")).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId("disk-use")).toContainText("Database (SQLite)");
  await expect(page.getByTestId("usage-teams")).toContainText("default");

  // A run's page: Pin keeps it whole; pressing it again unpins.
  await page.goto(`/runs/${run.id}`);
  const pin = page.getByTestId("run-pin");
  await expect(pin).toHaveText("Pin");
  await pin.click();
  await expect(pin).toHaveText("Pinned");
  await expect(pin).toHaveAttribute("aria-pressed", "true");
  await pin.click();
  await expect(pin).toHaveText("Pin");

  // Put back what the other tests expect.
  await trpcPost(page, "data.save", { workspaces: 14, audit: 730 });
});
