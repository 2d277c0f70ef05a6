// Steering a run from its page: the message box (continue an ended run, a
// message a running agent reads at its next turn), Retry with a higher step
// limit, Re-run with its lineage back to the first run, and Fork from a step
// with Compare showing where the fork parted from its parent.
import { expect, test, type Page } from "@playwright/test";
import { login, trpcPost } from "./fixtures";

/** What the scripted model says to a person's message (server/models/providers/scripted/play.ts DEFAULT_REPLIES). */
const REPLY = "I read your message. I am Rein's scripted demo model, so I cannot act on what it asks; I go on with my script.";

type Turn = { text: string; toolCalls?: Array<{ tool: string; args: unknown }> };

/** Starts a demo-coder run that plays `turns` on the scripted model; returns its id. */
async function startRun(page: Page, goal: string, turns: Turn[], maxSteps?: number): Promise<string> {
  const run = await trpcPost<{ id: string }>(page, "runs.create", {
    agent: "demo-coder",
    goal,
    scenario: { turns },
    ...(maxSteps ? { maxSteps } : {}),
  });
  await page.goto(`/runs/${encodeURIComponent(run.id)}`);
  return run.id;
}

test.describe.serial("steering a run", () => {
  const stamp = Date.now().toString(36);
  const firstGoal = `Say done ${stamp}`;
  let endedRunId = "";

  test("a message to an ended run continues it: the agent reads it and the run succeeds again", async ({ page }) => {
    test.setTimeout(90_000);
    await login(page);
    endedRunId = await startRun(page, firstGoal, [{ text: "Done" }]);
    await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 30_000 });

    const box = page.getByTestId("message-box");
    const send = page.getByTestId("send-message");
    await expect(send).toHaveText("Send and continue");
    await expect(send).toBeDisabled(); // nothing typed yet
    await expect(page.getByTestId("message-hint")).toContainText("continues from where it ended, in the same workspace");
    await expect(page.getByTestId("message-interrupt")).toHaveCount(0);

    // Plain text, never markup.
    const text = `Please also write a README <b>now</b>\nsecond line ${stamp}`;
    await box.fill(text);
    await expect(send).toBeEnabled();
    await box.press("Control+Enter");
    await expect(box).toHaveValue("");
    await expect(page.getByTestId("message-error")).toHaveCount(0);

    const card = page.getByTestId("user-message");
    await expect(card).toHaveCount(1);
    await expect(card.getByTestId("user-message-text")).toHaveText(text);
    await expect(card.locator("b")).toHaveCount(0);
    await expect(card.getByTestId("user-message-by")).toHaveText("Admin");

    // The run went back to work (succeeded → queued → running) and ended again.
    await expect(page.getByTestId("state-chip").filter({ hasText: /^succeeded → queued$/ })).toHaveCount(1, { timeout: 15_000 });
    await expect(page.getByTestId("state-chip").filter({ hasText: /^queued → running$/ })).toHaveCount(2, { timeout: 15_000 });
    await expect(page.getByTestId("control-event").last()).toHaveText("Continued with a message by Admin");
    await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 30_000 });

    const status = card.getByTestId("user-message-status");
    await expect(status).toHaveText(/Read by the agent at step \d+$/, { timeout: 15_000 });
    const step = /step (\d+)$/.exec((await status.textContent()) ?? "")![1];
    const replyTurn = page.getByTestId("model-turn").filter({ has: page.getByTestId("model-turn-text").filter({ hasText: REPLY }) });
    await expect(replyTurn).toHaveCount(1);
    await expect(replyTurn).toContainText(`step ${step}`);
    // The reply comes after the message in the timeline.
    const seqs = await page
      .getByTestId("timeline-event")
      .evaluateAll((els) =>
        els.map((el) => ({ type: el.getAttribute("data-type"), seq: Number(el.getAttribute("data-seq")), text: el.textContent ?? "" })),
      );
    const messageSeq = seqs.find((e) => e.type === "user.message")!.seq;
    const replySeq = seqs.find((e) => e.type === "model.turn" && e.text.includes(REPLY))!.seq;
    expect(replySeq).toBeGreaterThan(messageSeq);

    // Ended again: the box offers to continue once more.
    await expect(send).toHaveText("Send and continue");
  });

  test("a running agent reads a message at its next turn; until then it waits", async ({ page }) => {
    test.setTimeout(90_000);
    await login(page);
    // The command waits until the test says go (a file in the workspace): however slow the machine,
    // the message arrives while it runs.
    const waitForGo = "for i in $(seq 1 300); do [ -f go.txt ] && break; sleep 0.2; done";
    const runId = await startRun(page, `Sleep then done ${stamp}`, [
      { text: "Working", toolCalls: [{ tool: "shell", args: { command: waitForGo } }] },
      { text: "Done" },
    ]);
    await expect(page.getByTestId("tool-running")).toBeVisible({ timeout: 15_000 });

    const send = page.getByTestId("send-message");
    await expect(send).toHaveText("Send");
    await expect(page.getByTestId("message-hint")).toHaveText("The agent reads it before its next model call.");
    await expect(page.getByTestId("message-interrupt")).not.toBeChecked();

    await page.getByTestId("message-box").fill(`Check the edge cases ${stamp}`);
    await send.click();
    await expect(page.getByTestId("message-box")).toHaveValue("");
    const status = page.getByTestId("user-message").getByTestId("user-message-status");
    await expect(status).toHaveText("Waiting for the agent's next turn");
    // Step 1's command is still running: there is nothing to fork from yet.
    const forkFirst = page.getByTestId("model-turn").first().getByTestId("fork-from-here");
    await expect(forkFirst).toBeDisabled();
    await expect(forkFirst).toHaveAttribute("title", /Step 1's tool calls have not all finished yet/);
    await expect(status).toHaveText("Waiting for the agent's next turn");
    // The command was not interrupted: told to go, it finishes, then the agent reads the message.
    await trpcPost(page, "files.save", { runId, path: "go.txt", content: "go\n" });
    await expect(status).toHaveText("✓Read by the agent at step 2", { timeout: 20_000 });
    await expect(page.locator('[data-testid="tool-result"][data-tool="shell"]').getByTestId("exit-code")).toHaveText("exit 0");
    await expect(page.getByTestId("model-turn-text").filter({ hasText: REPLY })).toContainText("Done");
    await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 20_000 });
    await expect(page.getByTestId("message-interrupt")).toHaveCount(0);
    await expect(send).toHaveText("Send and continue");
    await expect(forkFirst).toBeEnabled();
  });

  test("a message that interrupts stops the tool call in flight, and the agent reads it at once", async ({ page }) => {
    test.setTimeout(60_000);
    await login(page);
    await startRun(page, `Sleep long ${stamp}`, [
      { text: "Working", toolCalls: [{ tool: "shell", args: { command: "sleep 120" } }] },
      { text: "Done" },
    ]);
    await expect(page.getByTestId("tool-running")).toBeVisible({ timeout: 15_000 });

    await page.getByTestId("message-box").fill(`Stop waiting ${stamp}`);
    await page.getByTestId("message-interrupt").check();
    await page.getByTestId("send-message").click();
    const card = page.getByTestId("user-message");
    await expect(card).toContainText("interrupted the tool call");
    await expect(page.getByTestId("control-event").filter({ hasText: "Tool call interrupted by Admin" })).toHaveCount(1);
    // Far sooner than the two minutes the command would take.
    await expect(card.getByTestId("user-message-status")).toHaveText(/Read by the agent at step \d+$/, { timeout: 20_000 });
    await expect(page.getByTestId("tool-running")).toHaveCount(0);
    await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 20_000 });
    await expect(page.getByTestId("message-interrupt")).toHaveCount(0);
  });

  test("Retry checks its fields and goes again with a higher step limit", async ({ page }) => {
    test.setTimeout(90_000);
    await login(page);
    await startRun(
      page,
      `Two steps, one allowed ${stamp}`,
      [{ text: "Working", toolCalls: [{ tool: "shell", args: { command: "echo hi" } }] }, { text: "Done" }],
      1,
    );
    await expect(page.getByTestId("run-status")).toHaveText("failed", { timeout: 30_000 });
    await expect(page.getByTestId("run-error")).toContainText("STEP_LIMIT");
    // A run out of model calls cannot read a message: the box says what to do instead.
    await expect(page.getByTestId("message-hint")).toContainText("Retry it with a higher step limit");

    await page.getByTestId("retry-run").click();
    await expect(page.getByTestId("retry-dialog")).toBeVisible();
    await expect(page.getByTestId("retry-steps-used")).toContainText("made its only model call");
    const steps = page.getByTestId("retry-max-steps");
    await expect(steps).toHaveValue("1");
    await expect(steps).toBeFocused();

    const stepsError = page.getByTestId("retry-max-steps-error");
    await page.getByTestId("retry-submit").click();
    await expect(stepsError).toHaveText("The run has made 1 model call: raise the limit above 1");
    await steps.fill("-3");
    await page.getByTestId("retry-submit").click();
    await expect(stepsError).toHaveText("The step limit cannot be negative");
    await steps.fill("2.5");
    await page.getByTestId("retry-submit").click();
    await expect(stepsError).toContainText("whole number");
    await steps.fill("80");
    await page.getByTestId("retry-submit").click();
    await expect(stepsError).toContainText("needs a cost ceiling");
    await steps.fill("3");
    await page.getByTestId("retry-budget").fill("-1");
    await page.getByTestId("retry-submit").click();
    await expect(stepsError).toHaveCount(0);
    await expect(page.getByTestId("retry-budget-error")).toHaveText("The cost ceiling cannot be negative");
    await page.getByTestId("retry-budget").fill("");
    // Still the same run, nothing was sent yet.
    await expect(page.getByTestId("run-status")).toHaveText("failed");

    await page.getByTestId("retry-max-steps").press("Control+Enter");
    await expect(page.getByTestId("retry-dialog")).not.toBeVisible();
    await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 30_000 });
    await expect(page.getByTestId("control-event").last()).toHaveText("Retried by Admin");
    await expect(page.getByTestId("control-changes")).toHaveText("step limit 1 → 3");
    await expect(page.getByTestId("model-turn-text").filter({ hasText: /^Done$/ })).toHaveCount(1);
    await expect(page.getByTestId("retry-run")).toHaveCount(0);
  });

  test("Re-run starts a new run with the edited goal, linked to the first", async ({ page }) => {
    test.setTimeout(90_000);
    expect(endedRunId).toBeTruthy();
    await login(page);
    await page.goto(`/runs/${encodeURIComponent(endedRunId)}`);
    await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 15_000 });
    await expect(page.getByTestId("lineage")).toHaveCount(0);

    await page.getByTestId("rerun-run").click();
    const goal = page.getByTestId("rerun-goal");
    await expect(goal).toHaveValue(firstGoal);
    await expect(goal).toBeFocused();
    // The run played a given scenario: the re-run plays it too, so there is no model to pick.
    await expect(page.getByTestId("rerun-model")).toHaveCount(0);
    await expect(page.getByTestId("rerun-scenario-note")).toBeVisible();

    await goal.fill("   ");
    await page.getByTestId("rerun-submit").click();
    await expect(page.getByTestId("rerun-goal-error")).toHaveText("Write the goal of the new run");
    await expect(page).toHaveURL(new RegExp(`/runs/${endedRunId}$`));

    const newGoal = `Say done again ${stamp}`;
    await goal.fill(newGoal);
    await page.getByTestId("rerun-submit").click();
    await page.waitForURL((url) => /\/runs\/[^/?#]+$/.test(url.pathname) && !url.pathname.endsWith(endedRunId));
    await expect(page.getByTestId("run-goal")).toHaveText(newGoal);
    await expect(page.getByTestId("lineage")).toContainText("Re-run of");
    const parent = page.getByTestId("lineage-parent");
    await expect(parent).toHaveText(firstGoal);
    await expect(page.getByTestId("created-parent")).toContainText(`Re-run of run ${endedRunId}`);
    await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 30_000 });
    const newRunId = new URL(page.url()).pathname.split("/").pop()!;

    await parent.click();
    await expect(page).toHaveURL(new RegExp(`/runs/${endedRunId}$`));
    const child = page.getByTestId("lineage-child");
    await expect(child).toHaveCount(1);
    await expect(child).toHaveText(newGoal);
    await expect(child).toHaveAttribute("href", `/runs/${newRunId}`);
  });

  test("Fork from the third step with an edited goal, then Compare shows where the fork parted", async ({ page }) => {
    test.setTimeout(120_000);
    await login(page);
    const parentGoal = `Write fizzbuzz with tests ${stamp}`;
    const parent = await trpcPost<{ id: string }>(page, "runs.create", { agent: "demo-coder", goal: parentGoal });
    await page.goto(`/runs/${encodeURIComponent(parent.id)}`);
    await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 60_000 });
    const turns = page.getByTestId("model-turn");
    await expect(turns.nth(3)).toBeVisible();
    const parentSteps = await turns.count();

    const third = turns.nth(2);
    await expect(third).toContainText("step 3");
    const forkButton = third.getByTestId("fork-from-here");
    await expect(forkButton).toBeEnabled();
    await forkButton.click();
    const dialog = page.getByTestId("fork-dialog");
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText("A new run starts after step 3 with the conversation and the workspace exactly as they were");
    const goal = page.getByTestId("fork-goal");
    await expect(goal).toHaveValue(parentGoal);
    await expect(goal).toBeFocused();
    await expect(page.getByTestId("fork-model")).toHaveValue(/demo-coder/);
    await expect(page.getByTestId("fork-message")).toHaveValue("");

    // Checked before anything is sent.
    await goal.fill("  ");
    await page.getByTestId("fork-max-steps").fill("3");
    await page.getByTestId("fork-submit").click();
    await expect(page.getByTestId("fork-goal-error")).toHaveText("Write the goal of the fork");
    await expect(page.getByTestId("fork-max-steps-error")).toHaveText("The fork starts with 3 steps taken: raise the limit above 3");
    await expect(page).toHaveURL(new RegExp(`/runs/${parent.id}$`));

    const forkGoal = `Write fizzbuzz with tests, then a README ${stamp}`;
    await goal.fill(forkGoal);
    await page.getByTestId("fork-max-steps").fill("20");
    await page.getByTestId("fork-message").fill(`Also write a README ${stamp}`);
    await page.getByTestId("fork-submit").click();
    await page.waitForURL((url) => /\/runs\/[^/?#]+$/.test(url.pathname) && !url.pathname.endsWith(parent.id), { timeout: 20_000 });
    const forkId = new URL(page.url()).pathname.split("/").pop()!;
    await expect(page.getByTestId("fork-error")).toHaveCount(0);

    // The fork's page: its lineage, its goal, and it goes on from step 4.
    await expect(page.getByTestId("run-goal")).toHaveText(forkGoal);
    const lineage = page.getByTestId("lineage");
    await expect(lineage).toContainText("Forked from");
    await expect(page.getByTestId("lineage-parent")).toHaveText(parentGoal);
    await expect(page.getByTestId("lineage-step")).toHaveText("after step 3");
    await expect(lineage).toContainText(/Forked from\s*Write fizzbuzz.*after step 3/);
    await expect(page.getByTestId("created-parent")).toContainText(`Forked from run ${parent.id}`);
    await expect(page.getByTestId("created-parent")).toContainText("after step 3");
    await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 60_000 });
    await expect(page.getByTestId("model-turn").first()).toContainText("step 4");
    await expect(page.getByTestId("model-turn").filter({ hasText: /step [123]\b/ })).toHaveCount(0);

    // Compare, from the lineage: the parent on the left, the fork on the right.
    const compare = lineage.getByTestId("compare-link");
    await expect(compare).toHaveText("Compare with parent");
    await compare.click();
    await expect(page).toHaveURL(new RegExp(`/runs/compare\\?a=${parent.id}&b=${forkId}$`));
    await expect(page.getByTestId("compare-page")).toBeVisible();
    const totals = page.getByTestId("compare-totals");
    await expect(totals.getByTestId("compare-goal-a")).toHaveText(parentGoal);
    await expect(totals.getByTestId("compare-goal-a")).toHaveAttribute("href", `/runs/${parent.id}`);
    await expect(totals.getByTestId("compare-goal-b")).toHaveText(forkGoal);
    await expect(totals.getByTestId("compare-goal-b")).toHaveAttribute("href", `/runs/${forkId}`);
    await expect(totals.getByTestId("compare-status-a")).toHaveText("succeeded");
    await expect(totals.getByTestId("compare-steps-a")).toHaveText(String(parentSteps));
    await expect(totals.getByTestId("compare-steps-b")).toHaveText(/^\d+/);
    await expect(totals.getByTestId("compare-tokens-a")).toHaveText(/^[\d,]+ \/ [\d,]+$/);
    await expect(totals.getByTestId("compare-cost-b")).toHaveText(/\$/);
    await expect(page.getByTestId("compare-summary")).toContainText("The right run is a fork of the left one.");

    const divergence = page.getByTestId("first-divergence");
    await expect(divergence).toHaveCount(1);
    await expect(divergence).toBeInViewport();
    const at = Number(await divergence.getAttribute("data-step"));
    expect(at).toBeGreaterThanOrEqual(4);
    // Steps before it are the same in both runs (they are the parent's), folded into one line until shown.
    const same = page.getByTestId("compare-same-group").first();
    await expect(same).toHaveText(new RegExp(`Steps 1–${at - 1} are the same in both runs`));
    await expect(page.locator('[data-testid="compare-row"][data-same="true"]')).toHaveCount(0);
    await same.getByTestId("compare-same-toggle").click();
    await expect(page.locator('[data-testid="compare-row"][data-same="true"]')).toHaveCount(at - 1);
    await expect(page.locator('[data-testid="compare-row"][data-step="1"]')).toContainText("its parent");
    const divergent = page.locator(`[data-testid="compare-row"][data-step="${at}"]`);
    await expect(divergent).toHaveAttribute("data-same", "false");
    await expect(divergent.getByTestId("compare-text").last()).toContainText(REPLY);

    // A run that does not exist is named.
    await page.goto(`/runs/compare?a=${parent.id}&b=no-such-run-${stamp}`);
    await expect(page.getByTestId("error-state")).toContainText(`Run no-such-run-${stamp} was not found`);
  });
});
