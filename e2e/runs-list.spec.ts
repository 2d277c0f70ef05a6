// The Runs list: tags set at launch and filtered by, sorting by cost, a
// created date range whose bad values are named under their fields, and
// cancelling several runs at once.
import { expect, test, type Page } from "@playwright/test";
import { login, trpcGet, trpcPost } from "./fixtures";

const MODEL = "scripted/demo-coder";
const stamp = Date.now().toString(36);
const row = (page: Page, id: string) => page.locator(`[data-testid="run-row"][data-run-id="${id}"]`);
const rowIds = (page: Page) => page.getByTestId("run-row").evaluateAll((els) => els.map((el) => el.getAttribute("data-run-id")));

async function startRun(page: Page, goal: string, scenario: unknown, tags: string[]): Promise<string> {
  const run = await trpcPost<{ id: string }>(page, "runs.create", { goal, agent: "demo-coder", scenario, tags });
  return run.id;
}

test.afterEach(async ({ page }) => {
  // The other specs expect the scripted model free.
  await page.request.post("/api/trpc/prices.delete", { data: { json: { model: MODEL } } });
});

test("a run tagged at launch is found by its tag, and its tags change on its page", async ({ page }) => {
  await login(page);
  await page.getByTestId("new-run-button").click();
  await page.getByTestId("agent-select").selectOption("demo-coder");
  await page.getByTestId("goal-input").fill(`Tagged at launch ${stamp}`);
  await page.getByTestId("advanced-toggle").click();
  await page.getByTestId("scenario-input").fill(JSON.stringify({ turns: [{ text: "Done" }] }));
  // A bad tag is named under the field and nothing starts.
  await page.getByTestId("new-run-tags").fill("ok, not ok!");
  await page.getByTestId("start-run").click();
  await expect(page.getByTestId("new-run-tags-error")).toContainText('"ok!" may hold only letters');
  await expect(page).toHaveURL(/\/runs$/);
  await page.getByTestId("new-run-tags").fill(`E2E-${stamp}, nightly`);
  await page.getByTestId("start-run").click();
  await page.waitForURL(/\/runs\/[^/?#]+$/);
  const id = new URL(page.url()).pathname.split("/").pop()!;
  await expect(page.getByTestId("run-tag")).toHaveText([`e2e-${stamp}×`, "nightly×"]);

  // Added and removed on the run page.
  await page.getByTestId("run-tag-input").fill("has space!");
  await page.getByTestId("run-tag-add").click();
  await expect(page.getByTestId("run-tag-error")).toContainText("may hold only");
  await page.getByTestId("run-tag-input").fill("later");
  await page.getByTestId("run-tag-add").click();
  await expect(page.getByTestId("run-tag")).toHaveCount(3);
  await page.getByRole("button", { name: "Remove the tag nightly" }).click();
  await expect(page.getByTestId("run-tag")).toHaveText([`e2e-${stamp}×`, "later×"]);

  // Another run without the tag; the filter keeps only the tagged one.
  const other = await startRun(page, `Untagged ${stamp}`, [{ text: "Done" }], []);
  await page.goto("/runs");
  await expect(row(page, other)).toBeVisible();
  await page.getByTestId("runs-tag-filter").fill(`e2e-${stamp}`);
  await page.getByTestId("runs-tag-filter").press("Enter");
  await expect(page).toHaveURL(new RegExp(`tag=e2e-${stamp}`));
  await expect(page.getByTestId("run-row")).toHaveCount(1);
  await expect(row(page, id).getByTestId("run-row-tags")).toContainText("later");
  await expect(row(page, other)).toHaveCount(0);
  // A bad tag filter is named under the field; the rows stay.
  await page.getByTestId("runs-tag-filter").fill("bad tag");
  await page.getByTestId("runs-tag-filter").press("Enter");
  await expect(page.getByTestId("runs-tag-error")).toContainText("may hold only");
  await expect(row(page, id)).toBeVisible();
});

test("sorting by cost puts the dearest run first, then the cheapest, and survives a reload", async ({ page }) => {
  test.setTimeout(90_000);
  await login(page);
  await trpcPost(page, "prices.set", { model: MODEL, inputPerMTok: 1000, outputPerMTok: 4000 });
  const tag = `cost-${stamp}`;
  // The dear run is created first, so newest-first order differs from dearest-first. It runs the
  // agent's own script on the priced model; the cheap one plays a scenario (the unpriced scenario model).
  const dear = await startRun(page, `Dear ${stamp}`, undefined, [tag]);
  const cheap = await startRun(page, `Cheap ${stamp}`, [{ text: "Ok" }], [tag]);
  await page.goto(`/runs?tag=${tag}`);
  await expect(row(page, dear)).toHaveAttribute("data-status", "succeeded", { timeout: 60_000 });
  await expect(row(page, cheap)).toHaveAttribute("data-status", "succeeded", { timeout: 30_000 });
  expect(await rowIds(page)).toEqual([cheap, dear]);

  const header = page.getByTestId("sort-cost");
  await expect(header).toHaveAttribute("aria-sort", "none");
  await header.getByRole("button").click();
  await expect(header).toHaveAttribute("aria-sort", "descending");
  await expect(page).toHaveURL(/sort=cost&dir=desc/);
  await expect.poll(() => rowIds(page)).toEqual([dear, cheap]);
  const costs = await page.getByTestId("run-row-cost").evaluateAll((els) => els.map((el) => Number(el.getAttribute("data-cost"))));
  expect(costs[0]).toBeGreaterThan(0);
  expect(costs[1]).toBe(0);
  await expect(row(page, cheap).getByTestId("run-row-cost")).toHaveText("$0");
  await expect(row(page, dear).getByTestId("run-row-cost")).toHaveText(/^\$\d/);

  // The keyboard works the header too.
  await header.getByRole("button").focus();
  await page.keyboard.press("Enter");
  await expect(header).toHaveAttribute("aria-sort", "ascending");
  await expect.poll(() => rowIds(page)).toEqual([cheap, dear]);
  await page.reload();
  await expect(page.getByTestId("sort-cost")).toHaveAttribute("aria-sort", "ascending");
  await expect.poll(() => rowIds(page)).toEqual([cheap, dear]);

  // Duration is behind Columns; chosen once, it stays after a reload. It sorts too: the run that took longest first.
  await expect(page.getByTestId("sort-duration")).toHaveCount(0);
  await page.getByTestId("runs-columns").click();
  await page.getByTestId("runs-column-duration").check();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("runs-columns-menu")).toHaveCount(0);
  await expect(page.getByTestId("runs-columns")).toHaveText("Columns (+1)");
  await page.reload();
  await expect(page.getByTestId("run-row-duration").first()).toBeVisible();
  await page.getByTestId("sort-duration").getByRole("button").click();
  await expect(page.getByTestId("sort-duration")).toHaveAttribute("aria-sort", "descending");
  await expect(page).toHaveURL(/sort=duration&dir=desc/);
  const { runs } = await trpcGet<{ runs: Array<{ id: string; durationMs: number | null }> }>(page, "runs.list", { tag });
  const longestFirst = [...runs].sort((a, b) => (b.durationMs ?? 0) - (a.durationMs ?? 0)).map((r) => r.id);
  await expect.poll(() => rowIds(page)).toEqual(longestFirst);
});

test("a date range narrows the list; a reversed range is named under its field and the rows stay", async ({ page }) => {
  await login(page);
  const tag = `range-${stamp}`;
  const id = await startRun(page, `In range ${stamp}`, [{ text: "Done" }], [tag]);
  await page.goto(`/runs?tag=${tag}`);
  await expect(row(page, id)).toBeVisible();
  const day = (offset: number) => {
    const d = new Date();
    d.setDate(d.getDate() + offset);
    return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
  };
  await page.getByTestId("runs-from").fill(day(0));
  await page.getByTestId("runs-to").fill(day(0));
  await expect(page).toHaveURL(new RegExp(`from=${day(0)}&to=${day(0)}`));
  await expect(row(page, id)).toBeVisible();

  // To before from: an error under "To", and the rows stay as they were.
  await page.getByTestId("runs-to").fill(day(-3));
  await expect(page.getByTestId("runs-to-error")).toHaveText("The end date is before the start date");
  await expect(page.getByTestId("runs-to")).toHaveAttribute("aria-invalid", "true");
  await expect(row(page, id)).toBeVisible();

  // A range that holds no run of this tag: the filtered empty state.
  await page.getByTestId("runs-to").fill(day(3));
  await page.getByTestId("runs-from").fill(day(1));
  await expect(page.getByTestId("runs-to-error")).toHaveCount(0);
  await expect(page.getByText("No runs match these filters")).toBeVisible();

  // A value in the URL that is no date.
  await page.goto(`/runs?tag=${tag}&from=not-a-day`);
  await expect(page.getByTestId("runs-from-error")).toHaveText("Not a date; use YYYY-MM-DD");
});

test("two active runs are picked and canceled together; an ended one cannot be picked", async ({ page }) => {
  test.setTimeout(90_000);
  await login(page);
  const tag = `bulk-${stamp}`;
  const ended = await startRun(page, `Bulk ended ${stamp}`, [{ text: "Done" }], [tag]);
  await page.goto(`/runs?tag=${tag}`);
  await expect(row(page, ended)).toHaveAttribute("data-status", "succeeded", { timeout: 30_000 });
  const sleep = { turns: [{ text: "Working", toolCalls: [{ tool: "shell", args: { command: "sleep 60" } }] }, { text: "Done" }] };
  const a = await startRun(page, `Bulk a ${stamp}`, sleep, [tag]);
  const b = await startRun(page, `Bulk b ${stamp}`, sleep, [tag]);
  await expect(row(page, a)).toBeVisible();
  await expect(row(page, b)).toBeVisible();

  await expect(row(page, ended).getByTestId("select-run")).toHaveCount(0);
  await page.getByTestId("select-all-runs").check();
  await expect(page.getByTestId("bulk-count")).toHaveText("2 runs selected");
  await page.getByTestId("bulk-cancel").click();
  await expect(page.getByTestId("confirm-dialog")).toContainText("Cancel 2 runs?");
  await page.getByTestId("confirm-dialog-confirm").click();
  await expect(page.getByTestId("bulk-result")).toHaveText("2 canceled");
  await expect(row(page, a)).toHaveAttribute("data-status", "canceled", { timeout: 30_000 });
  await expect(row(page, b)).toHaveAttribute("data-status", "canceled", { timeout: 30_000 });
  await expect(row(page, ended)).toHaveAttribute("data-status", "succeeded");
  await expect(page.getByTestId("select-run")).toHaveCount(0);
});
