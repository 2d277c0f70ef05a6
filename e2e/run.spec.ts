import fs from "node:fs/promises";
import { expect, test, type Page } from "@playwright/test";
import { login } from "./fixtures";

/** Starts a run through the New run dialog and returns its id. */
async function startRun(page: Page, agent: string): Promise<string> {
  await page.goto("/runs");
  await page.getByTestId("new-run-button").click();
  await page.getByTestId("agent-select").selectOption(agent);
  await expect(page.getByTestId("goal-input")).not.toHaveValue("");
  await page.getByTestId("start-run").click();
  await page.waitForURL(/\/runs\/[^/?#]+$/);
  return new URL(page.url()).pathname.split("/").pop()!;
}

async function seqs(page: Page): Promise<string[]> {
  return page.getByTestId("timeline-event").evaluateAll((els) => els.map((el) => el.getAttribute("data-seq") ?? ""));
}

test("a demo-coder run streams its timeline live; a reload and a second browser show the same events", async ({ page, browser }) => {
  test.setTimeout(120_000);
  await login(page);
  const id = await startRun(page, "demo-coder");

  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 60_000 });
  await expect(page.getByTestId("run-goal")).toHaveText("Write a small FizzBuzz program and run its tests");
  await expect(page.getByTestId("run-model").getByTestId("scripted-badge")).toHaveText("scripted");

  const timeline = page.getByTestId("timeline");
  await expect(timeline.locator('[data-testid="tool-call"][data-tool="write_file"]').first()).toBeVisible();
  await expect(timeline.locator('[data-testid="tool-call"][data-tool="shell"]').first()).toContainText("node --test");
  await expect(timeline.locator('[data-testid="tool-result"][data-tool="shell"]').first().getByTestId("exit-code")).toHaveText("exit 0");
  await expect(timeline.getByTestId("model-turn-text").filter({ hasText: "Running the tests." })).toBeVisible();
  await expect(timeline.getByTestId("model-turn").first().getByTestId("scripted-badge")).toBeVisible();
  await expect(page.getByTestId("streaming-turn")).toHaveCount(0);
  await expect(page.getByTestId("task-panel")).toContainText("Run the tests and commit");

  // The header caught up with the log: steps and tokens are filled in.
  await expect(page.getByTestId("run-steps")).toHaveText("6");
  await expect(page.getByTestId("run-tokens")).not.toHaveText("0 / 0");

  // Export scenario downloads the run's model turns, ready to replay.
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-scenario").click()]);
  expect(download.suggestedFilename()).toBe(`rein-run-${id}-scenario.json`);
  const scenario = JSON.parse(await fs.readFile((await download.path())!, "utf8"));
  expect(scenario.turns).toHaveLength(6);
  expect(scenario.turns[3].toolCalls[0]).toEqual({ tool: "shell", args: { command: "node --test test/fizzbuzz.test.mjs" } });

  // A tool call and its result share one row (a card), so there are fewer rows than events.
  const before = await seqs(page);
  expect(before.length).toBeGreaterThan(8);
  const count = Number(/^(\d+) events$/.exec((await page.getByTestId("event-count").textContent()) ?? "")?.[1]);
  expect(count).toBeGreaterThan(before.length);
  await expect(timeline.locator('[data-testid="timeline-event"][data-type="tool.result"]')).toHaveCount(0);

  await page.reload();
  await expect(page.getByTestId("run-status")).toHaveText("succeeded");
  await expect(page.getByTestId("timeline-event")).toHaveCount(before.length);
  await expect(page.getByTestId("event-count")).toHaveText(`${count} events`);
  expect(await seqs(page)).toEqual(before);

  const other = await browser.newContext();
  try {
    const second = await other.newPage();
    await login(second);
    await second.goto(`/runs/${id}`);
    await expect(second.getByTestId("run-status")).toHaveText("succeeded");
    await expect(second.getByTestId("timeline-event")).toHaveCount(before.length);
    expect(await seqs(second)).toEqual(before);
  } finally {
    await other.close();
  }
});

test("a demo-team run shows the handoff to the specialist", async ({ page }) => {
  test.setTimeout(90_000);
  await login(page);
  // Keyboard only: "n" opens the dialog, Ctrl+Enter starts the run.
  await expect(page.getByTestId("new-run-button")).toBeEnabled();
  await page.keyboard.press("n");
  await expect(page.getByTestId("new-run-dialog")).toBeVisible();
  await page.getByTestId("agent-select").selectOption("demo-team");
  await expect(page.getByTestId("agent-description")).toContainText("hands off to a coding specialist");
  await expect(page.getByTestId("goal-input")).toHaveValue("Plan and implement a slugify helper with tests");
  await page.getByTestId("goal-input").press("Control+Enter");
  await page.waitForURL(/\/runs\/[^/?#]+$/);
  await expect(page.getByTestId("run-goal")).toHaveText("Plan and implement a slugify helper with tests");
  await expect(page.getByTestId("handoff-banner")).toContainText(
    "demo-team handed off to demo-specialist: Implementation and tests are coding work.",
    {
      timeout: 60_000,
    },
  );
  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 60_000 });
  await expect(page.getByTestId("model-turn").filter({ hasText: "demo-specialist" }).first()).toBeVisible();
});

test("a run that does not exist says so", async ({ page }) => {
  await login(page);
  await page.goto("/runs/no-such-run");
  await expect(page.getByTestId("run-not-found")).toContainText("Run no-such-run was not found");
});
