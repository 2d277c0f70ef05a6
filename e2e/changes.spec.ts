// Reviewed changes to repositories (docs/changes.md): an operator
// starts the demo change (demo-fix on demo-service) from Improvements ›
// Changes, reads its diff and its checks' log, and cannot approve what their
// own run wrote; an admin approves & merges it, then reverts the merge. A
// rejected change closes with its comment; Settings lists the repositories.
import { expect, test, type Browser, type Page } from "@playwright/test";
import { login, trpcPost } from "./fixtures";
import { atEverySize } from "./journey";

const stamp = Date.now().toString(36);
const OPERATOR = { email: `change-operator-${stamp}@rein.test`, name: "Otto Operator", password: "operator-password-1" };

/** A browser of the operator's own, logged in. */
async function operatorPage(browser: Browser) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto("/login");
  await page.getByLabel("Email").fill(OPERATOR.email);
  await page.getByLabel("Password").fill(OPERATOR.password);
  await page.getByTestId("login-submit").click();
  await expect(page).toHaveURL(/\/runs$/);
  return { context, page };
}

test("an operator starts the demo change; another person approves and merges it, then reverts it", async ({ page, browser }) => {
  test.setTimeout(240_000);
  await login(page);
  await trpcPost(page, "users.create", { email: OPERATOR.email, name: OPERATOR.name, password: OPERATOR.password, role: "operator" });

  const { context, page: op } = await operatorPage(browser);
  let changeUrl: string;
  try {
    // Improvements › Changes, then New change: the demo repository and agent are chosen, with their goal.
    await op.goto("/improvements");
    await op.getByTestId("improvements-tab-changes").click();
    await expect(op).toHaveURL(/\/improvements\/changes$/);
    await op.getByTestId("new-change").click();
    const dialog = op.getByTestId("new-change-dialog");
    await dialog.getByTestId("new-change-repository").selectOption({ label: "demo-service" });
    await dialog.getByTestId("new-change-agent").selectOption("demo-fix");
    await expect(dialog.getByTestId("new-change-goal")).toHaveValue(
      "Fix the failing test of demo-service and propose the change for review",
    );
    await dialog.getByTestId("new-change-goal").fill("");
    await dialog.getByTestId("new-change-submit").click();
    await expect(dialog.getByTestId("new-change-goal-error")).toHaveText("Say what the change should do");
    await dialog.getByTestId("new-change-goal").fill("Fix the failing test of demo-service and propose the change for review");
    await dialog.getByTestId("new-change-submit").click();
    await op.waitForURL(/\/improvements\/changes\/[^/?#]+$/);
    changeUrl = new URL(op.url()).pathname;

    // The agent works, the checks run; then it waits for review.
    await expect(op.getByTestId("change-state")).toHaveText("waiting for review", { timeout: 120_000 });
    await expect(op.getByTestId("change-title")).toHaveText("Round discounts to the nearest cent");
    await expect(op.getByTestId("change-hypothesis")).toContainText("Math.round rounds to the nearest cent");
    await expect(op.getByTestId("change-repository")).toHaveText("demo-service");
    await expect(op.getByTestId("change-author-agent")).toHaveText("demo-fix");
    await expect(op.getByTestId("change-author-model")).toContainText("scripted");
    await expect(op.getByTestId("change-launched-by")).toHaveText(OPERATOR.name);
    await expect(op.getByTestId("change-files-medium")).toContainText("src/price.mjs");

    // The diff in Monaco, and as text.
    const diff = op.getByTestId("change-diff");
    await expect(diff.getByTestId("diff-file")).toHaveAttribute("data-path", "src/price.mjs");
    await expect(diff.locator(".monaco-diff-editor")).toContainText("Math.round(", { timeout: 30_000 });
    await diff.getByTestId("diff-raw").click();
    await expect(diff.getByTestId("diff-text")).toContainText("+  return Math.round(");
    await expect(diff.getByTestId("diff-text")).toContainText("-  return Math.floor(");

    // Each file links to its diff.
    await op.getByTestId("change-file-link").filter({ hasText: "src/price.mjs" }).click();
    await expect(op).toHaveURL(/#diff=src%2Fprice\.mjs$/);
    await expect(diff.getByTestId("diff-file")).toHaveAttribute("aria-pressed", "true");
    await expect(diff.locator(".monaco-diff-editor")).toBeVisible();

    // The change claims a fix: the same tests failed on the base and pass with it.
    await expect(op.getByTestId("change-fix")).toHaveAttribute("data-verdict", "shown");
    await expect(op.getByTestId("change-fix")).toContainText("The tests fail without this change and pass with it");

    // The checks passed; their log is the test runner's.
    const check = op.getByTestId("check-run").first();
    await expect(check.getByTestId("check-run-state")).toHaveText("passed");
    await check.getByTestId("check-run-open").click();
    await expect(op.getByTestId("check-log")).toContainText("pass");

    // The person who launched the run cannot approve it, and is told why.
    await expect(op.getByTestId("change-approve")).toBeDisabled();
    await expect(op.getByTestId("change-approve-why")).toHaveText(
      "You launched the run that wrote this change; another approver must approve it.",
    );
    await expect(op.getByTestId("change-merge-blocked")).toContainText("No approver has approved it yet");
    // The developer's journey: what they launched, and why they may not approve it, at every size.
    await atEverySize(op, "developer-change", async (p) => {
      await expect(p.getByTestId("change-approve")).toBeDisabled();
      await expect(p.getByTestId("change-approve-why")).toBeVisible();
    });

    // The launcher comments on the conversation, as on a pull request.
    await op.getByTestId("change-new-comment").fill("The invoice test is the one that failed");
    await op.getByTestId("change-new-comment").press("Control+Enter");
    await expect(op.getByTestId("change-activity").last()).toContainText(`${OPERATOR.name} commented`);
    await expect(op.getByTestId("change-activity-comment").last()).toHaveText("The invoice test is the one that failed");

    // The Inbox says the same before any click: the request is someone else's to decide, and why.
    await op.goto("/inbox");
    const asked = op.getByTestId("inbox-item").filter({ hasText: "Fix the failing test of demo-service" }).first();
    await expect(asked).toHaveAttribute("data-may-decide", "false");
    await expect(asked.getByTestId("inbox-item-view-only")).toBeVisible();
    await expect(asked.getByTestId("inbox-item-team")).not.toBeEmpty();
    await asked.click();
    await expect(op.getByTestId("read-only-note")).toContainText("needs the approver role; you are operator");
    await expect(op.getByTestId("decide-approve")).toHaveCount(0);
  } finally {
    await context.close();
  }

  // The admin (another person) may decide it: the Inbox offers it as theirs.
  await page.goto("/inbox");
  await expect(page.getByTestId("inbox-item").filter({ hasText: "Fix the failing test of demo-service" }).first()).toHaveAttribute(
    "data-may-decide",
    "true",
  );

  // The list shows it; the admin approves & merges it.
  await page.goto("/improvements/changes");
  const row = page.getByTestId("change-row").filter({ hasText: "Round discounts to the nearest cent" }).first();
  await expect(row.getByTestId("change-row-state")).toHaveText("waiting for review");
  await expect(row).toContainText("demo-service");
  await row.getByTestId("change-open").click();
  await expect(page).toHaveURL(new RegExp(`${changeUrl}$`));
  await expect(page.getByTestId("change-approve")).toBeEnabled();
  // Approve asks first, with an optional comment kept in the conversation.
  await page.getByTestId("change-approve").click();
  await expect(page.locator("[data-testid=confirm-dialog][open]")).toContainText("A merge commit lands on main of demo-service");
  await page.getByTestId("change-approve-comment").fill("Rounds as the comment promises");
  await page.getByTestId("confirm-dialog-confirm").click();
  await expect(page.getByTestId("change-state")).toHaveText("merged", { timeout: 30_000 });
  await expect(page.getByTestId("change-merge-commit")).toHaveText(/^[0-9a-f]{8}$/);
  await expect(page.getByTestId("change-approval")).toHaveAttribute("data-state", "APPROVED");
  const approved = page.getByTestId("change-activity").filter({ hasText: "Admin approved" });
  await expect(approved.getByTestId("change-activity-comment")).toHaveText("Rounds as the comment promises");

  // Revert asks for a reason, then undoes the merge with a commit of its own.
  await page.getByTestId("change-revert").click();
  await expect(page.locator("[data-testid=confirm-dialog][open]")).toContainText("undoes merge commit");
  await expect(page.getByTestId("confirm-dialog-confirm")).toBeDisabled();
  await page.getByTestId("change-revert-reason").fill("Invoices round twice now");
  await page.getByTestId("confirm-dialog-confirm").click();
  await expect(page.getByTestId("change-state")).toHaveText("reverted", { timeout: 30_000 });
  await expect(page.getByTestId("change-state-reason")).toHaveText("Reverted by Admin: Invoices round twice now");
  await expect(page.getByTestId("change-revert-commit")).toHaveText(/^[0-9a-f]{8}$/);
  await expect(page.getByTestId("change-revert")).toHaveCount(0);
  const story = page.getByTestId("change-activity");
  await expect(story.last()).toContainText("Admin reverted it");
  await expect(story.last().getByTestId("change-activity-comment")).toHaveText("Invoices round twice now");
  // In order: the proposal, the tests before and after, the review, the merge, the revert.
  const kinds = await story.evaluateAll((els) => els.map((e) => `${e.getAttribute("data-kind")}:${e.getAttribute("data-to")}`));
  expect(kinds.filter((k) => k !== "comment:")).toEqual([
    "opened:",
    "proposed:checks_running",
    "check:failed",
    "check:passed",
    "state:awaiting_review",
    "decision:APPROVED",
    "state:merged",
    "state:reverted",
  ]);

  // The reviewer's journey: the conversation tells the whole review, at every size.
  await atEverySize(page, "reviewer-change", async (p) => {
    await p.getByTestId("change-conversation").scrollIntoViewIfNeeded();
    await expect(p.getByTestId("change-conversation")).toBeVisible();
    await expect(p.getByTestId("change-state")).toHaveText("reverted");
  });

  // The list shows the review decision.
  await page.goto("/improvements/changes");
  const done = page.getByTestId("change-row").filter({ hasText: "Round discounts to the nearest cent" }).first();
  await expect(done.getByTestId("change-row-review")).toHaveText("✔ approved by Admin");
});

test("repositories are listed in Settings, a bad one is refused field by field, and New run points demo-fix to Changes", async ({
  page,
}) => {
  await login(page);
  await page.goto("/settings/repositories");
  const demo = page.getByTestId("repository-row").filter({ hasText: "demo-service" });
  await expect(demo.getByTestId("repository-built-in")).toBeVisible();
  await expect(demo).toContainText("node --test");

  await page.getByTestId("repository-new").click();
  const form = page.getByTestId("repository-form");
  await form.getByTestId("repository-name").fill("Not A Name");
  await form.getByTestId("repository-source").fill("/nowhere");
  await form.getByTestId("repository-testCommand").fill("npm test");
  await form.getByTestId("repository-save").click();
  await expect(form.getByTestId("repository-name-error")).toContainText("lower-case letters");
  await form.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByTestId("repository-form")).toHaveCount(0);

  await page.goto("/runs");
  await page.getByTestId("new-run-button").click();
  await page.getByTestId("agent-select").selectOption("demo-fix");
  await expect(page.getByTestId("agent-change-note")).toContainText("Improvements › Changes › New change");
});

test("a change rejected with a comment closes with that reason, and the list filters by state", async ({ page }) => {
  test.setTimeout(180_000);
  await login(page);
  const repositories = await page.request.get("/api/trpc/repositories.list");
  const demo = ((await repositories.json()).result.data.json as Array<{ id: string; name: string }>).find(
    (r) => r.name === "demo-service",
  )!;
  const { id } = await trpcPost<{ id: string }>(page, "changes.start", {
    repositoryId: demo.id,
    agent: "demo-fix",
    goal: `Fix the failing test of demo-service (${stamp})`,
  });

  await page.goto(`/improvements/changes/${id}`);
  await expect(page.getByTestId("change-state")).toHaveText("waiting for review", { timeout: 120_000 });
  await page.getByTestId("change-comment").fill("Not this week");
  await page.getByTestId("change-reject").click();
  await expect(page.getByTestId("change-state")).toHaveText("rejected");
  await expect(page.getByTestId("change-state-reason")).toHaveText("Rejected by Admin: Not this week");
  await expect(page.getByTestId("change-approve")).toHaveCount(0);

  await page.goto("/improvements/changes");
  await page.getByTestId("changes-state-filter").selectOption("rejected");
  const rows = page.getByTestId("change-row");
  await expect(rows.first()).toHaveAttribute("data-state", "rejected");
  await expect(page.locator(`[data-testid="change-row"][data-change="${id}"]`)).toBeVisible();
  await expect(page.locator('[data-testid="change-row"]:not([data-state="rejected"])')).toHaveCount(0);
});
