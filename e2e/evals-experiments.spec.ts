// Experiments and Compare: an admin copies demo-coder into the default team
// and saves its version 2 with a call cap of 3 (its runs then stop at the
// call limit), makes a dataset of fizzbuzz goals, runs it with version 1 and
// watches it finish live, runs it with version 2, and compares the two:
// every item regressed, one verdict sentence says so (and nothing else
// judges), the older experiment is the baseline unless another is picked,
// and an item opens to the Monaco diffs.
import { expect, test, type Page } from "@playwright/test";
import { login, trpcPost, trpcGet } from "./fixtures";

/** Monaco is several MB of code; the first load on a busy 2-core machine can take a while. */
const MONACO_LOAD = { timeout: 30_000 };
/** Three demo-coder runs, two at a time, each writing files and running its tests. */
const EXPERIMENT_DONE = { timeout: 150_000 };

const stamp = Date.now().toString(36);
const AGENT = `fizz-coder-${stamp}`;
const DATASET = `fizz-${stamp}`;
const GOALS = [
  "Write a fizzbuzz function in src/fizzbuzz.mjs with tests and run them",
  "Implement fizzbuzz as an ES module with a test file, and run the tests",
  "Add fizzbuzz with tests, run them and commit the work",
];

type Spec = Record<string, unknown> & { guardrails: Record<string, unknown> };
const SPEC_FIELDS = [
  "name",
  "description",
  "instructions",
  "model",
  "taskClass",
  "complexity",
  "tools",
  "handoffs",
  "guardrails",
  "tier",
  "secrets",
  "teamId",
];

/** Starts an experiment from the dialog with the given version of the agent; returns its id once its page is open. */
async function startExperiment(page: Page, datasetId: string, teamId: string, version: string, baselineId?: string): Promise<string> {
  await page.goto("/evals/experiments");
  await page.getByTestId("experiment-new").click();
  const dialog = page.getByTestId("new-experiment-dialog");
  await expect(dialog).toBeVisible();
  await dialog.getByTestId("experiment-dataset").selectOption(datasetId);
  await expect(dialog.getByTestId("experiment-agent")).toHaveValue("");
  await dialog.getByTestId("experiment-agent").selectOption(AGENT);
  await expect(dialog.getByTestId("experiment-version").locator("option")).toHaveCount(3);
  await dialog.getByTestId("experiment-version").selectOption(version);
  if (await dialog.getByTestId("team-select").isVisible()) await dialog.getByTestId("team-select").selectOption(teamId);
  if (baselineId) await dialog.getByTestId("experiment-baseline-select").selectOption(baselineId);
  await expect(dialog.getByTestId("experiment-trials")).toHaveText("3 runs in all.");
  await dialog.getByTestId("experiment-start").click();
  await page.waitForURL(/\/evals\/experiments\/[^/?#]+$/);
  return decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
}

test("run a dataset with two versions of an agent, watch it live, and compare them", async ({ page }) => {
  test.setTimeout(480_000);
  await login(page);

  // Setup through the app's own API: a team copy of demo-coder, its version 2 capped at 3 calls, a dataset of fizzbuzz goals.
  const me = await trpcGet<{ teams: Array<{ id: string; name: string }> }>(page, "identity.me");
  const team = me.teams.find((t) => t.name === "default")!;
  expect(team, "the admin is in the default team").toBeTruthy();
  const copy = await trpcPost<Spec>(page, "agents.copy", { from: "demo-coder", name: AGENT, teamId: team.id });
  // The spec as saved: its fields, leaving out the unset ones (the team stays, it is null for everyone).
  const spec = Object.fromEntries(
    SPEC_FIELDS.filter((k) => k === "teamId" || (copy[k] !== undefined && copy[k] !== null)).map((k) => [k, copy[k]]),
  );
  await trpcPost(page, "agents.save", {
    name: AGENT,
    spec: { ...spec, guardrails: { ...copy.guardrails, callCap: 3 } },
    changeNote: "Cap model calls at 3",
  });
  const dataset = await trpcPost<{ id: string }>(page, "evals.createDataset", {
    name: DATASET,
    description: "FizzBuzz goals (e2e)",
    teamId: team.id,
    scoring: { scorers: [{ kind: "outcome", equals: "succeeded", required: true }], threshold: 1 },
  });
  for (const [i, goal] of GOALS.entries()) {
    await trpcPost(page, "evals.addItem", {
      datasetId: dataset.id,
      key: `fizz-${i + 1}`,
      goal,
      expected: { outcome: "succeeded", text: "All tests pass and the work is committed." },
    });
  }

  // The dialog checks its numbers as people type them.
  await page.goto("/evals/experiments");
  await expect(page.getByRole("heading", { name: "Experiments", level: 1 })).toBeVisible();
  await page.getByTestId("experiment-new").click();
  const dialog = page.getByTestId("new-experiment-dialog");
  await dialog.getByTestId("experiment-dataset").selectOption(dataset.id);
  await dialog.getByTestId("experiment-epochs").fill("11");
  await dialog.getByTestId("experiment-start").click();
  await expect(dialog.getByTestId("experiment-error-epochs")).toHaveText("Epochs must be from 1 to 10");
  await expect(dialog.getByTestId("experiment-epochs")).toHaveAttribute("aria-invalid", "true");
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();

  // Version 1: the page follows it live until every run is scored.
  const v1 = await startExperiment(page, dataset.id, team.id, "1");
  await expect(page.getByTestId("experiment-agent")).toHaveText(`${AGENT} v1`);
  await expect(page.getByTestId("experiment-live")).toHaveAttribute("data-active", "true");
  await expect(page.getByTestId("experiment-progress")).toHaveAttribute("data-total", "3");
  await expect(page.getByTestId("experiment-page")).toHaveAttribute("data-status", "succeeded", EXPERIMENT_DONE);
  await expect(page.getByTestId("experiment-progress")).toHaveAttribute("data-done", "3");
  await expect(page.getByTestId("experiment-live")).toHaveAttribute("data-active", "false");
  await expect(page.getByTestId("experiment-reason")).toHaveText("3 of 3 trials passed");
  await expect(page.getByTestId("summary-pass-rate-value")).toHaveText("100%");
  await expect(page.getByTestId("item-row")).toHaveCount(3);
  await expect(page.locator('[data-testid="item-row"][data-passed="true"]')).toHaveCount(3);
  // Each epoch's dot opens its run.
  await expect(page.getByTestId("epoch-dot").first()).toHaveAttribute("href", /^\/runs\/.+/);
  // A row opens with Enter to each scorer's result.
  await page.getByTestId("item-row").first().focus();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("scorer-results").first()).toContainText("outcome");
  await expect(page.locator('[data-testid="scorer-chart"][data-kind="outcome"]')).toContainText("3 of 3 passed");

  // Version 2, with version 1 as its baseline: every run stops at the call limit.
  const v2 = await startExperiment(page, dataset.id, team.id, "2", v1);
  await expect(page.getByTestId("experiment-agent")).toHaveText(`${AGENT} v2`);
  await expect(page.getByTestId("experiment-page")).toHaveAttribute("data-status", "succeeded", EXPERIMENT_DONE);
  await expect(page.getByTestId("experiment-reason")).toHaveText("0 of 3 trials passed");
  await expect(page.locator('[data-testid="item-row"][data-passed="false"]')).toHaveCount(3);
  await expect(page.getByTestId("item-why").first()).toContainText("limit of 3 model calls");
  // "Compare with…" offers its baseline first.
  await expect(page.getByTestId("compare-with")).toHaveValue(v1);

  // Compare from the list: both selected, version 1 marked baseline.
  await page.goto("/evals/experiments");
  const row = (id: string) => page.locator(`[data-testid="experiment-row"][data-experiment="${id}"]`);
  await expect(row(v1)).toHaveAttribute("data-status", "succeeded");
  await expect(page.getByTestId("experiments-compare")).toBeDisabled();
  await row(v2).getByTestId("experiment-select").check();
  await row(v1).getByTestId("experiment-select").check();
  await row(v1).getByTestId("experiment-baseline").check();
  await page.getByTestId("experiments-compare").click();
  await page.waitForURL(/\/evals\/compare\?/);
  const url = new URL(page.url());
  expect(url.searchParams.get("baseline")).toBe(v1);
  expect(url.searchParams.get("ids")).toBe(`${v1},${v2}`);
  await expect(page.locator(`[data-testid="baseline-option"][data-experiment="${v1}"]`)).toHaveAttribute("aria-checked", "true");

  const candidate = page.locator(`[data-testid="compare-candidate"][data-experiment="${v2}"]`);
  // One verdict, in words, with the interval; the pass/fail counts carry no verdict of their own.
  await expect(candidate.getByTestId("compare-verdict")).toHaveText(
    "v2 scores 0.00 against 1.00 for v1 (−1.00, 95% interval −1.00 to −1.00): significantly worse with 3 items",
  );
  await expect(page.getByTestId("compare-verdict")).toHaveCount(1);
  await expect(candidate.getByTestId("compare-counts")).toHaveText("Pass/fail item by item: 3 regressed, 0 improved, 0 unchanged.");
  await expect(candidate).not.toContainText("McNemar");
  // Column names say what they hold.
  const headers = candidate.getByTestId("compare-items").locator("thead th");
  await expect(headers).toHaveText([
    "Item",
    "Pass/fail",
    "Score (v1, baseline)",
    "Score (v2)",
    "Change",
    "Cost a run, change (USD)",
    "Latency, change",
  ]);
  const items = candidate.getByTestId("compare-item");
  await expect(items).toHaveCount(3);
  const first = items.first();
  await expect(first).toHaveAttribute("data-change", "regressed");
  const badge = first.getByTestId("change-badge");
  await expect(badge).toHaveText("regressed");
  await expect(badge).toHaveCSS("color", "rgb(192, 40, 45)");

  // Space opens the item: the candidate against the expected text, both outputs, both tool sequences, in Monaco's diff editor.
  await first.focus();
  await page.keyboard.press(" ");
  const detail = candidate.getByTestId("compare-item-detail");
  await expect(detail).toBeVisible();
  await expect(detail.getByTestId("diff-expected")).toBeVisible();
  await expect(detail.getByTestId("diff-output").locator(".monaco-diff-editor")).toBeVisible(MONACO_LOAD);
  await expect(detail.getByTestId("diff-tools").locator(".monaco-diff-editor")).toBeVisible(MONACO_LOAD);
  await expect(detail.getByTestId("diff-tools")).toContainText("write_file", MONACO_LOAD);
  await expect(detail.getByTestId("compare-run-link")).toHaveCount(2);

  // Switching the baseline turns the comparison round: now every item improved, and the address keeps the choice.
  await page.locator(`[data-testid="baseline-option"][data-experiment="${v2}"]`).click();
  await expect(page).toHaveURL(new RegExp(`baseline=${v2}`));
  await expect(page.locator(`[data-testid="compare-candidate"][data-experiment="${v1}"]`).getByTestId("compare-verdict")).toHaveText(
    "v1 scores 1.00 against 0.00 for v2 (+1.00, 95% interval +1.00 to +1.00): significantly better with 3 items",
  );
  await expect(page.getByTestId("baseline-why")).toContainText("chosen here");

  // Nobody chose: the older experiment is the baseline, whatever the order of the ids, and the page lists them oldest first.
  await page.goto(`/evals/compare?ids=${v2},${v1}`);
  await expect(page.locator(`[data-testid="baseline-option"][data-experiment="${v1}"]`)).toHaveAttribute("aria-checked", "true");
  await expect(page.getByTestId("baseline-why")).toHaveText("the oldest, until you pick another");
  await expect(page.getByTestId("compare-experiment")).toHaveCount(2);
  await expect(page.getByTestId("compare-experiment").first()).toHaveAttribute("data-experiment", v1);
  await expect(page.getByTestId("compare-experiment").first()).toHaveAttribute("data-role", "baseline");
  await expect(page.getByTestId("compare-verdict")).toHaveCount(1);
  await expect(page.getByTestId("compare-verdict")).toHaveAttribute("data-verdict", "worse");
  // The picker is reachable by keyboard: Tab to the chosen one, an arrow key picks the next.
  await page.locator(`[data-testid="baseline-option"][data-experiment="${v1}"]`).focus();
  await page.keyboard.press("ArrowRight");
  await expect(page).toHaveURL(new RegExp(`baseline=${v2}`));
});
