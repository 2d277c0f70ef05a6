// Evals datasets: a finished demo-coder run is added to a new dataset from
// its page (expected outcome prefilled, a key chosen), the item shows on the
// dataset's page, an edit of its expected outcome saves version 2, a scoring
// with bad scorers shows each problem beside its scorer, all at once, and
// Export JSONL downloads the items.
import fs from "node:fs/promises";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { login, navTo } from "./fixtures";

/** Monaco is several MB of code; the first load on a busy 2-core machine can take a while. */
const MONACO_LOAD = { timeout: 30_000 };

/** Starts a demo-coder run through the New run dialog, waits for it to succeed, returns its id. */
async function finishedDemoRun(page: Page): Promise<string> {
  await page.goto("/runs");
  await page.getByTestId("new-run-button").click();
  await page.getByTestId("agent-select").selectOption("demo-coder");
  await expect(page.getByTestId("goal-input")).not.toHaveValue("");
  await page.getByTestId("start-run").click();
  await page.waitForURL(/\/runs\/[^/?#]+$/);
  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 60_000 });
  return new URL(page.url()).pathname.split("/").pop()!;
}

/** Replaces what a Monaco editor holds with `text`; what Monaco closed by itself after the cursor goes. */
async function replaceMonaco(editor: Locator, text: string) {
  const lines = editor.locator(".view-lines");
  await expect(lines).toBeVisible(MONACO_LOAD);
  await lines.click();
  const keyboard = editor.page().keyboard;
  await keyboard.press("ControlOrMeta+A");
  await keyboard.insertText(text);
  await keyboard.press("ControlOrMeta+Shift+End");
  await keyboard.press("Delete");
}

test("add a finished run to a new dataset, edit its expected outcome, check the scoring, export the items", async ({ page }) => {
  test.setTimeout(240_000);
  await login(page);
  const name = `e2e-runs-${Date.now().toString(36)}`;

  // The Evals page lists the built-in dataset, marked as such, for everyone.
  await navTo(page, "evals");
  await expect(page).toHaveURL(/\/evals$/);
  const demo = page.locator('[data-testid="dataset-row"][data-dataset="demo-coding"]');
  await expect(demo).toContainText("Built-in");
  await expect(demo).toContainText("Everyone");

  // A finished run: Add to dataset, into a dataset named here.
  const runId = await finishedDemoRun(page);
  await page.getByTestId("add-to-dataset").click();
  const add = page.getByTestId("add-to-dataset-dialog");
  await expect(add.getByRole("heading", { name: "Add this run to a dataset" })).toBeVisible();
  await add.getByTestId("add-dataset-select").selectOption({ label: "New dataset…" });
  await add.getByTestId("add-new-dataset-name").fill(name);
  await add.getByTestId("add-key").fill("fizzbuzz-run");
  await expect(add.getByTestId("add-preview")).toContainText("demo-coder");
  await expect(add.getByTestId("add-preview")).toContainText("scenario yes (6 turns)");
  // The expected outcome is prefilled from how the run ended.
  await expect(add.getByTestId("add-expected-editor").locator(".view-lines")).toContainText('"outcome": "succeeded"', MONACO_LOAD);
  await add.getByTestId("add-to-dataset-submit").click();
  await expect(add.getByTestId("add-to-dataset-done")).toContainText(`item fizzbuzz-run (version 1) of ${name}`);
  await add.getByTestId("add-to-dataset-open").click();

  // The dataset's page: the item, from the run, version 1.
  await expect(page).toHaveURL(/\/evals\/datasets\/[^/]+$/);
  await expect(page.getByTestId("dataset-title")).toHaveText(name);
  const row = page.locator('[data-testid="item-row"][data-key="fizzbuzz-run"]');
  await expect(row.getByTestId("item-version")).toHaveText("v1");
  await expect(row.getByTestId("item-scenario")).toHaveText("yes (6 turns)");
  await expect(row.getByTestId("item-expected")).toContainText("succeeded");
  await expect(row.getByRole("link", { name: "from a run" })).toHaveAttribute("href", `/runs/${runId}`);

  // Edit its expected outcome: version 2.
  await row.getByTestId("item-edit").click();
  const edit = page.getByTestId("item-dialog");
  await expect(edit.getByRole("heading", { name: "Edit fizzbuzz-run" })).toBeVisible();
  const expected = edit.getByTestId("item-expected-editor").locator(".monaco-editor").first();
  await expect(expected.locator(".view-lines")).toContainText("succeeded", MONACO_LOAD);
  await replaceMonaco(expected, '{ "outcome": "succeeded", "notes": "FizzBuzz with passing tests" }');
  await expect(expected.locator(".view-lines")).toContainText("passing tests");
  await edit.getByTestId("item-save").click();
  await expect(edit).toBeHidden();
  await expect(row.getByTestId("item-version")).toHaveText("v2");
  await expect(row.getByTestId("item-expected")).toHaveText("succeeded · notes");

  // Its history keeps both versions.
  await row.getByTestId("item-history").click();
  const history = page.getByTestId("item-history-dialog");
  await expect(history.getByTestId("item-version-entry")).toHaveCount(2);
  await expect(history.getByTestId("item-version-entry").first()).toHaveAttribute("data-version", "2");
  await page.keyboard.press("Escape");
  await expect(history).toBeHidden();

  // A bad scoring: each problem beside its scorer, all at once, nothing saved.
  const scoring = page.getByTestId("scoring-card");
  await expect(scoring.getByTestId("scorer-row")).toHaveCount(1);
  await scoring.getByTestId("scorer-weight").first().fill("-1");
  await scoring.getByTestId("scorer-add").click();
  const second = scoring.getByTestId("scorer-row").nth(1);
  await second.getByTestId("scorer-kind").selectOption("calls_at_most");
  await expect(second.getByTestId("scorer-settings")).toHaveValue('{\n  "calls": null\n}');
  await scoring.getByTestId("scoring-save").click();
  await expect(scoring.getByTestId("scoring-error")).toContainText("The scoring has 2 problems; nothing was saved.");
  await expect(scoring.getByTestId("scorer-row").nth(0).getByTestId("scorer-problems")).toHaveText("weight must be more than 0");
  await expect(second.getByTestId("scorer-problems")).toHaveText("calls is the most model calls the run may make");
  // Fixed, it saves.
  await scoring.getByTestId("scorer-weight").first().fill("2");
  await second.getByTestId("scorer-settings").fill('{ "calls": 20 }');
  await scoring.getByTestId("scoring-save").click();
  await expect(page.getByTestId("dataset-notice")).toHaveText("Scoring saved.");
  await expect(scoring.getByTestId("scoring-error")).toHaveCount(0);
  await expect(scoring.getByTestId("scoring-dirty")).toHaveCount(0);

  // Export JSONL downloads the items, one a line.
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("dataset-export").click()]);
  expect(download.suggestedFilename()).toBe(`${name}.jsonl`);
  const lines = (await fs.readFile((await download.path())!, "utf8"))
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({
    key: "fizzbuzz-run",
    agent: "demo-coder",
    expected: { outcome: "succeeded", notes: "FizzBuzz with passing tests" },
  });
  expect(lines[0].scenario.turns).toHaveLength(6);

  // Back on the Evals page, the dataset shows with its item.
  await page.getByRole("link", { name: "← Evals" }).click();
  const mine = page.locator(`[data-testid="dataset-row"][data-dataset="${name}"]`);
  await expect(mine.getByTestId("dataset-item-count")).toHaveText("1");
  await expect(mine).toContainText("Everyone");
});

test("a built-in dataset is read-only and offers its export; a JSONL file with bad lines imports nothing and names each line", async ({
  page,
}) => {
  await login(page);
  await page.goto("/evals");
  await page.locator('[data-testid="dataset-row"][data-dataset="demo-coding"]').getByTestId("dataset-link").click();
  await expect(page.getByTestId("dataset-read-only")).toContainText(
    "Built-in datasets can't be changed. Export it and import the file into a dataset of your own.",
  );
  await expect(page.getByTestId("item-add")).toHaveCount(0);
  await expect(page.getByTestId("item-edit")).toHaveCount(0);
  await expect(page.getByTestId("scoring-save")).toHaveCount(0);
  await expect(page.getByTestId("scorer-settings").first()).toHaveAttribute("readonly", "");
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("dataset-export-to-copy").click()]);
  expect(download.suggestedFilename()).toBe("demo-coding.jsonl");

  // A file with bad lines imports nothing and names each line.
  await page.goto("/evals");
  await page.getByTestId("dataset-new").click();
  const dialog = page.getByTestId("dataset-dialog");
  const name = `e2e-import-${Date.now().toString(36)}`;
  await dialog.getByTestId("dataset-name").fill(name);
  await dialog.getByTestId("dataset-save").click();
  await expect(page.getByTestId("dataset-title")).toHaveText(name);
  await page.getByTestId("dataset-import").click();
  const imp = page.getByTestId("dataset-import-dialog");
  await imp.getByTestId("dataset-import-jsonl").fill('{"goal":"fine"}\n{"agent":"demo-coder"}\nnot json\n');
  await imp.getByTestId("dataset-import-submit").click();
  const error = imp.getByTestId("dataset-import-error");
  await expect(error).toContainText("2 problems; nothing was imported");
  await expect(error.locator('[data-line="line 2"]')).toHaveText("line 2: goal is required");
  await expect(error.locator('[data-line="line 3"]')).toContainText("line 3: not valid JSON");
  await imp.getByTestId("dataset-import-jsonl").fill('{"goal":"fine"}\n{"key":"second","goal":"Also fine"}\n');
  await imp.getByTestId("dataset-import-submit").click();
  await expect(imp).toBeHidden();
  await expect(page.getByTestId("dataset-notice")).toHaveText("Imported: 2 items added, 0 changed, 0 unchanged.");
  await expect(page.getByTestId("item-row")).toHaveCount(2);
});
