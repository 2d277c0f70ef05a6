// Long runs across fresh sessions, as the run page shows them: demo-long (a
// small context window) goes through several sessions, each marked in the
// timeline by a separator saying why it started, what the session before
// used and what its seed held. And the agent form's long-run guardrails.
import { expect, test } from "@playwright/test";
import { login, trpcGet, trpcPost } from "./fixtures";

type Event = { seq: number; type: string; payload: Record<string, unknown> };

test("demo-long goes through fresh sessions, each marked by a separator in the timeline", async ({ page }) => {
  test.setTimeout(150_000);
  await login(page);
  const goal = `Build a small unit-conversion library, one module at a time (e2e ${Date.now().toString(36)})`;
  const run = await trpcPost<{ id: string }>(page, "runs.create", { agent: "demo-long", goal });
  await page.goto(`/runs/${encodeURIComponent(run.id)}`);
  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 120_000 });

  const separators = page.getByTestId("session-separator");
  await expect.poll(() => separators.count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
  const first = separators.first();
  await expect(first).toContainText("Session 2 · started because the context reached 90% of the model's window");
  await expect(first).toHaveAttribute("data-session", "2");
  await expect(separators.nth(1)).toContainText("Session 3 · started because");
  // The session before, from its session.ended (folded in: no row of its own).
  await expect(first.getByTestId("session-before")).toHaveText(
    /^Session 1 used \d+ steps? and [\d,]+ tokens \([\d,]+ in · [\d,]+ out.*\); its context reached [\d,]+ of [\d,]+ tokens \(\d+%\)\.$/,
  );
  await expect(page.locator('[data-testid="timeline-event"][data-type="session.ended"]')).toHaveCount(0);
  await expect(first.getByTestId("session-seed")).toHaveText(
    /^Seeded with: .*tasks?.*, .*notes?.*, .*commits?.*, .*open errors? · [\d,]+ tokens$/,
  );

  // What the separators say is what the log holds.
  const events = await trpcGet<Event[]>(page, "runs.events", { id: run.id, limit: 1000 });
  const started = events.filter((e) => e.type === "session.started");
  const ended = events.filter((e) => e.type === "session.ended");
  expect(started.length).toBeGreaterThanOrEqual(2);
  await expect(separators).toHaveCount(started.length);
  const s2 = started[0].payload as { session: number; step: number; seed: { tasks: number; tokens: number } };
  const e1 = ended.find((e) => e.payload.session === 1)!.payload as { steps: number };
  expect(s2.session).toBe(2);
  await expect(first.getByTestId("session-before")).toContainText(`Session 1 used ${e1.steps} step`);
  await expect(first.getByTestId("session-seed")).toContainText(`${s2.seed.tasks} task`);
  await expect(first.getByTestId("session-seed")).toContainText(`${s2.seed.tokens.toLocaleString("en-US")} tokens`);

  // Each separator sits between the last turn of one session and the first of the next.
  const order = await page
    .locator('[data-testid="timeline-event"], [data-testid="session-separator"]')
    .evaluateAll((els) => els.map((el) => ({ type: el.getAttribute("data-type"), seq: Number(el.getAttribute("data-seq")) })));
  const sepIndex = order.findIndex((o) => o.type === "session.started");
  expect(order.slice(0, sepIndex).some((o) => o.type === "model.turn")).toBe(true);
  expect(order.slice(sepIndex + 1).some((o) => o.type === "model.turn")).toBe(true);
  for (let i = 1; i < order.length; i++) expect(order[i].seq).toBeGreaterThan(order[i - 1].seq);
});

test("the agent form checks the long-run guardrails under their fields", async ({ page }) => {
  test.setTimeout(90_000);
  await login(page);
  await page.goto("/agents/new");
  await page.getByTestId("agent-name").fill(`e2e-long-${Date.now().toString(36)}`);

  const budget = page.getByTestId("agent-session-budget");
  const budgetProblem = page.locator('[data-testid="field-problem"][data-field="guardrails.sessionBudget"]');
  await expect(budget).toHaveAttribute("placeholder", "90");
  await budget.fill("99");
  await expect(budgetProblem).toHaveText("must be from 20 to 95 (% of the model's context window)");
  await expect(budget).toHaveAttribute("aria-invalid", "true");
  await budget.fill("lots");
  await expect(budgetProblem).toHaveText("must be a number, e.g. 90");
  await budget.fill("80");
  await expect(budgetProblem).toHaveCount(0);

  const memory = page.getByTestId("agent-memory-tokens");
  const memoryProblem = page.locator('[data-testid="field-problem"][data-field="guardrails.memoryTokens"]');
  await memory.fill("25000");
  await expect(memoryProblem).toHaveText("must be at most 20,000 tokens");
  await memory.fill("2.5");
  await expect(memoryProblem).toHaveText("must be a whole number, e.g. 1500");
  await memory.fill("0");
  await expect(memoryProblem).toHaveCount(0, { timeout: 15_000 });

  const confirm = page.getByTestId("agent-memory-confirm");
  await expect(confirm).not.toBeChecked();
  await confirm.check();
  await expect(confirm).toBeChecked();
  // The server agrees with what the form sends (no problem under these fields after its check).
  await page.waitForTimeout(1000);
  await expect(page.locator('[data-testid="field-problem"][data-field^="guardrails."]')).toHaveCount(0);
});
