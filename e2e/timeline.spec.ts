// The run page's timeline as a person reads it: one card per tool call, the
// agent's text as safe Markdown, routine policy notes behind a toggle, a
// header that agrees with the log, and a call approved with edited arguments.
import { expect, test, type Page } from "@playwright/test";
import { ADMIN_EMAIL, login, trpcPost } from "./fixtures";

const stamp = Date.now().toString(36);

async function startScenario(page: Page, goal: string, scenario: unknown): Promise<string> {
  const run = await trpcPost<{ id: string }>(page, "runs.create", { agent: "demo-coder", goal, scenario });
  return run.id;
}

const AGENT_TEXT = [
  "## Plan",
  "Read the [guide](https://example.com/guide) and run `echo hi`.",
  "",
  "- first",
  "- second",
  "",
  "See ![chart](https://evil.example/img.png) and [bad](javascript:alert(1)) <script>window.__pwned = 1</script>",
].join("\n");

test("tool calls are cards with their results, the agent's text is safe Markdown, and the header agrees with the log", async ({ page }) => {
  test.setTimeout(120_000);
  await login(page);
  const goal = `Check \`echo hi\` works ${stamp}`;
  const id = await startScenario(page, goal, {
    turns: [
      { text: AGENT_TEXT, toolCalls: [{ tool: "shell", args: { command: "echo hi" } }] },
      { toolCalls: [{ tool: "shell", args: { command: "ls no-such-dir" } }] },
      { text: "Done." },
    ],
  });
  await page.goto(`/runs/${id}`);
  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 60_000 });
  const timeline = page.getByTestId("timeline");

  // The goal's command is code, not backticks.
  await expect(page.getByTestId("run-goal").locator("code")).toHaveText("echo hi");
  await expect(page.getByTestId("run-goal")).not.toContainText("`");

  // One card per call, its result inside it; no result rows of their own.
  const cards = timeline.getByTestId("tool-call");
  await expect(cards).toHaveCount(2);
  await expect(timeline.locator('[data-testid="timeline-event"][data-type="tool.result"]')).toHaveCount(0);
  await expect(cards.first()).toHaveAttribute("data-state", "ok");
  await expect(cards.first().getByTestId("tool-result").getByTestId("shell-output")).toHaveText("hi");
  await expect(cards.nth(1)).toHaveAttribute("data-state", "error");
  await expect(cards.nth(1).getByTestId("exit-code")).toHaveText("exit 2");

  // Markdown: a heading, a list, code spans, links that open safely; no image, no script.
  const text = timeline.getByTestId("model-turn-text").first();
  await expect(text.locator("li")).toHaveCount(2);
  await expect(text.locator("code")).toHaveText("echo hi");
  const guide = text.getByRole("link", { name: "guide" });
  await expect(guide).toHaveAttribute("href", "https://example.com/guide");
  await expect(guide).toHaveAttribute("rel", "noopener noreferrer nofollow");
  await expect(guide).toHaveAttribute("target", "_blank");
  await expect(text.getByRole("link", { name: "chart" })).toHaveAttribute("href", "https://evil.example/img.png");
  await expect(text.getByRole("link", { name: "bad" })).toHaveCount(0);
  await expect(text).toContainText("[bad](javascript:alert(1))");
  await expect(text).toContainText("<script>window.__pwned = 1</script>");
  await expect(timeline.locator("img")).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

  // A turn with only a tool call says nothing more.
  const turns = timeline.getByTestId("model-turn");
  await expect(turns).toHaveCount(3);
  await expect(turns.nth(1)).not.toContainText("No text");
  await expect(turns.nth(1).getByTestId("model-turn-text")).toHaveCount(0);

  // The header: steps as the timeline has them, the failed last call flagged, people by name.
  await expect(page.getByTestId("run-steps")).toHaveText("3");
  await expect(page.getByTestId("run-end-warning")).toHaveText("Succeeded — last tool call failed");
  await expect(page.getByTestId("run-created-by")).toHaveText("Admin");
  await expect(page.getByTestId("run-created-by")).toHaveAttribute("title", ADMIN_EMAIL);
  await expect(timeline.getByTestId("created-by")).toHaveText("Admin");
  await expect(page.getByTestId("run-facts")).not.toContainText("Steps");

  // Ended: no green Live dot; a plain terminal run has no Desktop tab.
  const liveStatus = page.getByTestId("live-status");
  await expect(liveStatus).toHaveAttribute("data-state", "ended");
  await expect(liveStatus).toHaveText("Run ended");
  await expect(liveStatus.locator(".live-dot")).toHaveCount(0);
  await expect(page.getByTestId("tab-terminal")).toBeVisible();
  await expect(page.getByTestId("tab-desktop")).toHaveCount(0);

  // Routine "policy: allow" notes are hidden until asked for; the choice is remembered.
  await expect(timeline.getByTestId("gate-note")).toHaveCount(0);
  await page.getByTestId("show-allow-toggle").check();
  await expect(timeline.locator('[data-testid="gate-note"][data-effect="allow"]')).toHaveCount(2);
  await page.reload();
  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 30_000 });
  await expect(page.getByTestId("show-allow-toggle")).toBeChecked();
  await expect(page.getByTestId("timeline").locator('[data-testid="gate-note"][data-effect="allow"]')).toHaveCount(2);
  await page.getByTestId("show-allow-toggle").uncheck();
  await expect(page.getByTestId("timeline").getByTestId("gate-note")).toHaveCount(0);
});

test("a call approved with edited arguments shows what ran, the original struck through", async ({ page }) => {
  test.setTimeout(120_000);
  await login(page);
  const id = await startScenario(page, `Deploy with an edit ${stamp}`, {
    turns: [{ toolCalls: [{ tool: "shell", args: { command: "./deploy.sh production" } }] }, { text: "Deployed." }],
  });
  await page.goto(`/runs/${id}`);
  await expect(page.getByTestId("run-status")).toHaveText("waiting for human", { timeout: 60_000 });
  // The request's title shows its command as code.
  await expect(page.getByTestId("human-requested-title").locator("code")).toHaveText("./deploy.sh production");
  await expect(page.getByTestId("human-requested-title")).not.toContainText("`");
  const card = page.getByTestId("timeline").getByTestId("tool-call");
  await expect(card.getByTestId("tool-waiting")).toBeVisible();
  await expect(card.getByTestId("tool-result")).toHaveCount(0);

  await page.getByTestId("open-in-inbox").click();
  const d = page.getByTestId("request-detail");
  await expect(d.getByTestId("request-title").locator("code")).toHaveText("./deploy.sh production");
  await d.getByTestId("edit-args-toggle").check();
  await d.getByTestId("edit-args-input").fill('{"command": "echo deployed to staging"}');
  await d.getByTestId("decide-approve").click();
  await expect(d.getByTestId("decision-outcome")).toContainText("Approved by Admin");

  await page.goto(`/runs/${id}`);
  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 60_000 });
  await expect(page.getByTestId("human-decided")).toContainText("Admin approved with edited arguments");
  // In the order it happened: the call as the agent asked for it, the question, the decision, then the result.
  const timeline = page.getByTestId("timeline");
  const order = await timeline
    .locator('[data-testid="tool-call"], [data-testid="human-requested"], [data-testid="human-decided"], [data-testid="tool-result-card"]')
    .evaluateAll((els) => els.map((el) => el.getAttribute("data-testid")));
  expect(order).toEqual(["tool-call", "human-requested", "human-decided", "tool-result-card"]);
  await expect(card).toHaveAttribute("data-state", "asked");
  await expect(card.getByTestId("tool-asked")).toBeVisible();
  await expect(card.getByTestId("tool-command")).toHaveText("$ ./deploy.sh production");
  await expect(card.getByTestId("tool-result")).toHaveCount(0);
  const result = timeline.getByTestId("tool-result-card");
  await expect(result).toHaveAttribute("data-edited", "true");
  await expect(result.getByTestId("tool-command")).toHaveText("$ echo deployed to staging");
  await expect(result.getByTestId("tool-command-original")).toHaveText("$ ./deploy.sh production");
  await expect(result.getByTestId("tool-edited")).toBeVisible();
  await expect(result.getByTestId("shell-output")).toHaveText("deployed to staging");
  // The approval's policy note stays visible without the toggle: a person was asked.
  await expect(result.getByTestId("gate-note")).toContainText("policy: ask");
  await expect(page.getByTestId("run-end-warning")).toHaveCount(0);
});

test("a long live run keeps a few hundred entries on the page while it is followed; scrolled up, Show earlier adds the ones before", async ({
  page,
}) => {
  test.setTimeout(180_000);
  await login(page);
  const turns = [
    { text: "Warming up", toolCalls: [{ tool: "shell", args: { command: "sleep 3" } }] },
    ...Array.from({ length: 40 }, (_, i) => ({
      toolCalls: Array.from({ length: 15 }, (_, c) => ({
        tool: "update_tasks",
        args: { tasks: [{ title: `step ${i}.${c}`, status: "doing" }] },
      })),
    })),
    { text: "All steps listed." },
  ];
  const id = await trpcPost<{ id: string }>(page, "runs.create", {
    agent: "demo-coder",
    goal: `A long stream ${stamp}`,
    scenario: { turns },
    maxSteps: 60,
    budgetUsd: 10,
  }).then((r) => r.id);
  await page.goto(`/runs/${id}`);
  const timeline = page.getByTestId("timeline");
  await expect(timeline.getByTestId("tool-call").first()).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 120_000 });
  await expect(timeline).toContainText("All steps listed.");
  const entries = timeline.locator(":scope > li[data-seq]");
  // Over 600 entries streamed in while the page followed; only the latest few hundred are drawn.
  const drawn = await entries.count();
  expect(drawn).toBeGreaterThanOrEqual(200);
  expect(drawn).toBeLessThanOrEqual(450);
  const earlier = page.getByTestId("timeline-earlier");
  await expect(earlier).toBeVisible();
  // The newest entry is in view: the page followed to the end.
  await expect(timeline.getByText("All steps listed.")).toBeInViewport();

  // Scrolled up, the reader asks for what came before; what they were reading stays in view.
  const firstDrawn = entries.first();
  const seq = await firstDrawn.getAttribute("data-seq");
  await earlier.scrollIntoViewIfNeeded();
  await earlier.click();
  await expect.poll(() => entries.count()).toBeGreaterThan(drawn);
  await expect(timeline.locator(`:scope > li[data-seq="${seq}"]`)).toBeInViewport();
  await expect(page.getByTestId("jump-to-latest")).toBeVisible();
});
