// Extensions: the admin finds the empty registry, proposes the csv-tools demo
// with approval on (it waits, and its proposer cannot approve it), rejects it,
// turns approval off in Settings → Improvements, proposes the demo's next
// version and sees it installed with its three tests passing and its files.
import { expect, test, type Page } from "@playwright/test";
import { login, navTo } from "./fixtures";

/** Building and testing the package runs every test in its own sandbox. */
const GATE = { timeout: 60_000 };
const MONACO_LOAD = { timeout: 30_000 };

async function proposeDemo(page: Page, edit: (text: string) => string = (t) => t) {
  await navTo(page, "extensions");
  await expect(page).toHaveURL(/\/extensions$/);
  await page.getByTestId("extension-propose-open").click();
  await page.getByTestId("extension-propose-demo").click();
  const box = page.getByTestId("extension-propose-text");
  await expect(box).toHaveValue(/"csv-tools"/);
  await box.fill(edit(await box.inputValue()));
  await page.getByTestId("extension-propose-submit").click();
  await expect(page).toHaveURL(/\/extensions\/[^/]+$/, GATE);
}

async function setApproval(page: Page, on: boolean) {
  await page.goto("/settings/improvements");
  const box = page.getByTestId("settings-extensions-approval");
  await expect(box).toBeVisible();
  if ((await box.isChecked()) === on) return;
  await box.setChecked(on);
  await page.getByTestId("settings-save").click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
}

test("propose the csv-tools demo: it waits for another admin, then, with approval off, is installed with its tests", async ({ page }) => {
  test.setTimeout(180_000);
  await login(page);
  await navTo(page, "extensions");
  await expect(page.getByRole("heading", { name: "Extensions", level: 1 })).toBeVisible();
  await expect(page.getByText("No extensions yet")).toBeVisible();

  // Approval is on by default: the demo's tests pass, and it waits.
  await proposeDemo(page);
  const ext = page.getByTestId("extension-page");
  await expect(ext).toHaveAttribute("data-state", "awaiting_approval");
  await expect(page.getByTestId("extension-tests-summary")).toHaveAttribute("data-ok", "true");
  await expect(page.getByTestId("extension-approve")).toBeDisabled();
  await expect(page.getByTestId("extension-approve")).toHaveAttribute("title", "You proposed it: another admin approves it");
  await page.getByTestId("extension-reject").click();
  await expect(ext).toHaveAttribute("data-state", "rejected");

  // Approval off: the next version is installed as soon as its tests pass.
  await setApproval(page, false);
  await proposeDemo(page, (t) => t.replaceAll('"1.0.0"', '"1.0.1"').replaceAll('version: \\"1.0.0\\"', 'version: \\"1.0.1\\"'));
  await expect(ext).toHaveAttribute("data-state", "installed");
  await expect(ext).toHaveAttribute("data-version", "1.0.1");
  await expect(page.getByTestId("extension-title")).toHaveText("csv-tools v1.0.1");
  await expect(page.locator('[data-testid="extension-capabilities"] [data-testid="extension-capability"]')).toHaveAttribute(
    "data-capability",
    "none",
  );
  const tests = page.getByTestId("extension-test");
  await expect(tests).toHaveCount(3);
  for (const name of ["sums a column", "quoted fields keep their commas", "an unknown column is an error"]) {
    await expect(page.locator(`[data-testid="extension-test"][data-name="${name}"]`)).toHaveAttribute("data-ok", "true");
  }
  await expect(page.getByTestId("extension-tests-summary")).toContainText("3 passed");

  // Its files, read-only.
  await page.locator('[data-testid="extension-file"][data-path="lib/csv.js"]').click();
  await expect(page.getByTestId("extension-file-view")).toHaveAttribute("data-path", "lib/csv.js");
  await expect(page.getByTestId("extension-file-view").locator(".monaco-editor .view-lines")).toContainText("parseCsv", MONACO_LOAD);

  // The list shows both versions.
  await navTo(page, "extensions");
  await expect(page.locator('[data-testid="extension-row"][data-version="1.0.1"]')).toHaveAttribute("data-state", "installed");
  await expect(page.locator('[data-testid="extension-row"][data-version="1.0.0"]')).toHaveAttribute("data-state", "rejected");
  await expect(page.locator('[data-testid="extension-row"][data-version="1.0.1"] [data-testid="extension-tools"]')).toHaveText(
    "csv_column_sum",
  );

  // Removed, and back to the default approval: other specs run demo-csv, which must not find this tool.
  await page.locator('[data-testid="extension-row"][data-version="1.0.1"]').getByTestId("extension-open").click();
  await expect(ext).toHaveAttribute("data-state", "installed");
  await page.getByTestId("extension-remove").click();
  await expect(ext).toHaveAttribute("data-state", "removed");
  await setApproval(page, true);
});
