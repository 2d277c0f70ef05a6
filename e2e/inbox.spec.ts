// The inbox, signed links and runs that wait for a person
// (docs/human-requests-and-policy.md#the-inbox), with the scripted demo-deploy
// and demo-release agents and the default policy.
import { expect, test, type Page } from "@playwright/test";
import { ADMIN_EMAIL, ADMIN_PASSWORD, login } from "./fixtures";

const stamp = Date.now().toString(36);

/** Starts a run through the REST API with the page's session; returns its id. */
async function createRun(page: Page, agent: string, goal: string): Promise<string> {
  const res = await page.request.post("/api/v1/runs", { data: { agent, goal } });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** The top navigation's inbox badge (absent when nothing is open). */
async function badgeCount(page: Page): Promise<number> {
  await expect(page.getByTestId("nav-inbox")).toBeVisible();
  // The badge query settles shortly after the page; give it a moment before reading "absent".
  await page.waitForLoadState("networkidle");
  const badge = page.getByTestId("inbox-badge");
  return (await badge.count()) ? Number(await badge.textContent()) : 0;
}

async function expectBadge(page: Page, n: number) {
  if (n === 0) await expect(page.getByTestId("inbox-badge")).toHaveCount(0, { timeout: 10_000 });
  else await expect(page.getByTestId("inbox-badge")).toHaveText(String(n), { timeout: 10_000 });
}

/** Opens the run and waits until it waits for a person; returns the open request's title element. */
async function waitForPerson(page: Page, runId: string, title: RegExp | string) {
  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId("run-status")).toHaveText("waiting for human", { timeout: 30_000 });
  await expect(page.getByTestId("waiting-title")).toContainText(title);
}

const detail = (page: Page) => page.getByTestId("request-detail");
const shellResults = (page: Page) => page.getByTestId("timeline").locator('[data-testid="tool-result"][data-tool="shell"]');

const GOALS = {
  reject: `Deploy 1.4.0 (reject) ${stamp}`,
  release: `Release 1.4 ${stamp}`,
  link: `Deploy 1.4.0 (link) ${stamp}`,
  linkReject: `Deploy 1.4.0 (link reject) ${stamp}`,
};

test.describe.serial("inbox", () => {
  /** Runs the later tests need, started early so they already wait when those tests begin. */
  const early: Partial<Record<keyof typeof GOALS, string>> = {};
  const runFor = async (page: Page, which: keyof typeof GOALS, agent: string) => early[which] ?? createRun(page, agent, GOALS[which]);

  test("a deploy waits for approval; the a key approves it in the inbox and the run succeeds", async ({ page }) => {
    await login(page);
    const before = await badgeCount(page);

    // The New run dialog offers both demo agents with their descriptions.
    await page.getByTestId("new-run-button").click();
    await page.getByTestId("agent-select").selectOption("demo-release");
    await expect(page.getByTestId("agent-description")).toContainText("unless vetoed");
    await page.getByTestId("agent-select").selectOption("demo-deploy");
    await expect(page.getByTestId("agent-description")).toContainText("once a person approves");
    await expect(page.getByTestId("goal-input")).toHaveValue("Deploy version 1.4.0 to production");
    await page.getByTestId("goal-input").fill(`Deploy 1.4.0 (approve) ${stamp}`);
    await page.getByTestId("start-run").click();
    await page.waitForURL(/\/runs\/[^/?#]+$/);
    const runId = new URL(page.url()).pathname.split("/").pop()!;

    await waitForPerson(page, runId, "./deploy.sh production");
    const card = page.getByTestId("human-requested");
    await expect(card).toContainText("Waiting for a person:");
    await expect(card).toHaveAttribute("data-open", "true");
    await expect(
      page.getByTestId("timeline").locator('[data-testid="tool-call"][data-tool="shell"]').last().getByTestId("tool-waiting"),
    ).toBeVisible();
    await expectBadge(page, before + 1);

    // g then i opens the inbox from anywhere; the newest open request is shown.
    await page.locator("body").press("g");
    await page.locator("body").press("i");
    await expect(page).toHaveURL(/\/inbox$/);
    const item = page.getByTestId("inbox-item").filter({ hasText: "./deploy.sh production" }).first();
    await expect(item).toHaveAttribute("aria-selected", "true");
    await expect(item).toContainText(`Deploy 1.4.0 (approve) ${stamp}`);
    await expect(item).toContainText("launched by Admin");
    await expect(item.getByTestId("time-left")).toContainText(/\d+h \d+m left/);
    await expect(item.getByTestId("kind-chip")).toHaveText(/approve/i);

    const d = detail(page);
    await expect(d.getByTestId("request-title")).toContainText("./deploy.sh production");
    await expect(d.getByTestId("request-rule")).toContainText("approval");
    await expect(d.getByTestId("request-launched-by")).toHaveText("Admin");
    await expect(d.getByTestId("request-timeline")).toContainText("Asked a person");
    await expect(d.getByTestId("decide-approve")).toBeVisible();

    await page.keyboard.press("a");
    await expect(d.getByTestId("decision-outcome")).toContainText("Approved by Admin");
    await expect(d.getByTestId("decision-meta")).toContainText("via the inbox");
    await expectBadge(page, before);

    early.reject = await createRun(page, "demo-deploy", GOALS.reject);
    early.release = await createRun(page, "demo-release", GOALS.release);
    early.link = await createRun(page, "demo-deploy", GOALS.link);
    early.linkReject = await createRun(page, "demo-deploy", GOALS.linkReject);

    await d.getByTestId("open-run").click();
    await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 30_000 });
    await expect(page.getByTestId("human-decided")).toContainText("Admin approved");
    await expect(page.getByTestId("human-decided")).toContainText("via the inbox");
    await expect(page.getByTestId("human-requested")).toHaveAttribute("data-open", "false");
    await expect(page.getByTestId("waiting-banner")).toHaveCount(0);
    const deploy = shellResults(page).last();
    await expect(deploy).toHaveAttribute("data-ok", "true");
    await expect(deploy.getByTestId("shell-output")).toContainText("Deployed version 1.4.0 to production");
    await expect(deploy.getByTestId("gate-note")).toContainText("policy: ask");
  });

  test("a rejected deploy fails the run with the comment, and the deploy never runs", async ({ page }) => {
    await login(page);
    const runId = await runFor(page, "reject", "demo-deploy");
    await waitForPerson(page, runId, "./deploy.sh production");
    await page.getByTestId("waiting-open-inbox").click();
    await expect(page).toHaveURL(/\/inbox\?id=/);
    const d = detail(page);
    await expect(d).toContainText(GOALS.reject);

    // Edited arguments are checked as JSON before anything is sent.
    await d.getByTestId("edit-args-toggle").check();
    await expect(d.getByTestId("edit-args-input")).toHaveValue(/"command": "\.\/deploy\.sh production"/);
    await d.getByTestId("edit-args-input").fill('{"command": ');
    await d.getByTestId("decide-approve").click();
    await expect(d.getByTestId("edit-args-error")).toContainText("not valid JSON");
    await expect(d).toHaveAttribute("data-state", "PENDING");
    await d.getByTestId("edit-args-toggle").uncheck();

    // Reject asks for a reason and a confirmation before anything is sent; Go back leaves it open.
    await d.getByTestId("decide-reject").click();
    await expect(d.getByTestId("decision-comment")).toBeFocused();
    await expect(d.getByTestId("reject-consequence")).toContainText("The call does not run. The agent is told you rejected it");
    await d.getByTestId("decide-reject-cancel").click();
    await expect(d.getByTestId("reject-confirm")).toHaveCount(0);
    await expect(d).toHaveAttribute("data-state", "PENDING");

    // r focuses the reason; Ctrl+Enter there confirms the reject with it.
    await page.locator("body").click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("r");
    await expect(d.getByTestId("decision-comment")).toBeFocused();
    await expect(d.getByTestId("reject-armed")).toBeVisible();
    await expect(d.getByTestId("reject-confirm")).toBeVisible();
    await page.keyboard.type("Not during the launch freeze");
    await page.keyboard.press("Control+Enter");
    await expect(d.getByTestId("decision-outcome")).toContainText("Rejected by Admin", { timeout: 20_000 });
    await expect(d.getByTestId("decision-comment-text")).toHaveText("Not during the launch freeze");
    await expect(d.getByTestId("decision-consequence")).toContainText("The agent has been told");

    // The agent stopped on it: the run was stopped by a reviewer, not a red failure led by a code.
    await d.getByTestId("open-run").click();
    await expect(page.getByTestId("run-status")).toHaveText("canceled", { timeout: 30_000 });
    await expect(page.getByTestId("run-status-reason")).toHaveText("Stopped by a reviewer — Admin: Not during the launch freeze");
    await expect(page.getByTestId("run-error")).toHaveCount(0);
    const decided = page.getByTestId("human-decided");
    await expect(decided).toContainText("Admin rejected");
    await expect(decided.getByTestId("human-decided-comment")).toHaveText("Not during the launch freeze");
    const deploy = shellResults(page).last();
    await expect(deploy).toHaveAttribute("data-ok", "false");
    await expect(deploy.getByTestId("tool-result-status")).toHaveText("rejected");
    await expect(deploy.getByTestId("tool-error")).toContainText("REJECTED_BY_HUMAN");
    await expect(page.getByTestId("shell-output").filter({ hasText: "Deployed version" })).toHaveCount(0);

    // The workspace has the script but no deploy log.
    await page.getByTestId("tab-files").click();
    const tree = page.getByTestId("file-tree");
    await expect(tree.locator('[data-path="deploy.sh"]')).toBeVisible({ timeout: 15_000 });
    await expect(tree.locator('[data-path="out"]')).toHaveCount(0);
    await expect(tree.locator('[data-path="out/deploy.log"]')).toHaveCount(0);
  });

  test("demo-release: choose a draft, provide the cap through the form, then veto publishing", async ({ page }) => {
    await login(page);
    const runId = await runFor(page, "release", "demo-release");
    await waitForPerson(page, runId, "Which release-notes draft");
    await page.getByTestId("waiting-open-inbox").click();
    const d = detail(page);

    await expect(d.getByTestId("kind-chip")).toHaveText(/choose/i);
    await d.getByTestId("decide-choose").click();
    await expect(d.getByTestId("choose-error")).toHaveText("Choose one of the options");
    await expect(d.getByTestId("choose-option-detailed")).toContainText("three times faster");
    await d.getByTestId("choose-option-detailed").click();
    await d.getByTestId("decide-choose").click();
    await expect(d.getByTestId("decision-outcome")).toContainText("Admin chose “Detailed”");

    // The next question arrives live in the list.
    const provide = page.getByTestId("inbox-item").filter({ hasText: "discount cap" });
    await expect(provide).toHaveCount(1, { timeout: 20_000 });
    await provide.click();
    await expect(d.getByTestId("schema-form")).toBeVisible();
    await expect(d).toContainText("Discount cap in percent");
    const cap = d.getByTestId("schema-field-capPercent");
    await cap.fill("80");
    await d.getByTestId("decide-provide").click();
    await expect(d.getByTestId("schema-field-error")).toHaveText("Must be at most 50");
    await expect(cap).toHaveAttribute("aria-invalid", "true");
    await expect(d).toHaveAttribute("data-state", "PENDING");
    await cap.fill("20");
    await d.getByTestId("schema-field-note").fill("launch week only");
    await d.getByTestId("decide-provide").click();
    await expect(d.getByTestId("decision-outcome")).toContainText("Admin provided a value");
    await expect(d.getByTestId("decision-value")).toContainText('"capPercent": 20');

    // Publishing opens a 2-minute veto window.
    const veto = page.getByTestId("inbox-item").filter({ hasText: "./publish.sh" });
    await expect(veto).toHaveCount(1, { timeout: 20_000 });
    await expect(veto.getByTestId("time-left")).toContainText(/goes ahead in (1m|2m 00s)/);
    await veto.click();
    await expect(d.getByTestId("kind-chip")).toHaveText(/veto/i);
    await expect(d.getByTestId("veto-countdown")).toContainText(/Goes ahead in (1m \d\ds|2m 00s) unless someone vetoes/);
    await d.getByTestId("decision-comment").fill("Legal has not signed off");
    await d.getByTestId("decide-veto").click();
    await expect(d.getByTestId("reject-consequence")).toContainText("The call does not run. The agent is told you vetoed it");
    await d.getByTestId("decide-reject-confirm").click();
    await expect(d.getByTestId("decision-outcome")).toContainText("Vetoed by Admin", { timeout: 20_000 });

    await d.getByTestId("open-run").click();
    await expect(page.getByTestId("run-status")).toHaveText("canceled", { timeout: 30_000 });
    await expect(page.getByTestId("run-status-reason")).toHaveText("Stopped by a reviewer — Admin: Legal has not signed off");
    const decided = page.getByTestId("human-decided");
    await expect(decided).toHaveCount(3);
    await expect(decided.nth(0)).toContainText("Admin chose “detailed”");
    await expect(decided.nth(1)).toContainText("Admin provided the answer");
    await expect(decided.nth(2)).toContainText("Admin vetoed");
    await expect(decided.nth(2)).toContainText("Legal has not signed off");
    await expect(page.getByTestId("shell-output").filter({ hasText: "Published RELEASE_NOTES.md" })).toHaveCount(0);
  });

  test("a signed link decides once, in another browser after logging in; the second use is refused", async ({ page, browser }) => {
    await login(page);
    const runId = await runFor(page, "link", "demo-deploy");
    await waitForPerson(page, runId, "./deploy.sh production");
    await page.getByTestId("waiting-open-inbox").click();
    await detail(page).getByTestId("copy-signed-link").click();
    const dialog = page.getByTestId("signed-link-dialog");
    await expect(dialog).toBeVisible();
    const url = await dialog.getByTestId("signed-link-url").inputValue();
    expect(url).toMatch(/^http:\/\/localhost:\d+\/resume\?t=[A-Za-z0-9_.-]+$/);
    await dialog.getByTestId("signed-link-close").click();

    const other = await browser.newContext();
    try {
      const second = await other.newPage();
      // Not logged in: the link goes through the login page and comes back with its token.
      await second.goto(url);
      await expect(second).toHaveURL(/\/login\?next=%2Fresume%3Ft%3D/);
      await second.getByLabel("Email").fill(ADMIN_EMAIL);
      await second.getByLabel("Password").fill(ADMIN_PASSWORD);
      await second.getByTestId("login-submit").click();
      await expect(second).toHaveURL(url);
      await expect(second.getByTestId("link-note")).toContainText("works once");
      const d = detail(second);
      await expect(d.getByTestId("request-title")).toContainText("./deploy.sh production");
      await d.getByTestId("decision-comment").fill("Approved from the link");
      await d.getByTestId("decide-approve").click();
      await expect(second.getByTestId("resume-done-title")).toHaveText("Approved — the run continues");
      await expect(second.getByTestId("decision-meta")).toContainText("via a signed link");

      await second.getByTestId("resume-open-run").click();
      await expect(second.getByTestId("run-status")).toHaveText("succeeded", { timeout: 30_000 });
      await expect(second.getByTestId("human-decided")).toContainText("via a signed link");

      await second.goto(url);
      await expect(second.getByTestId("link-refusal-title")).toHaveText("This link cannot be used any more");
      await expect(second.getByTestId("link-refusal-message")).toContainText("already been used");
    } finally {
      await other.close();
    }

    // The first browser's inbox shows the decision, live.
    await expect(detail(page).getByTestId("decision-outcome")).toContainText("Approved by Admin", { timeout: 10_000 });
    await expect(detail(page).getByTestId("decision-meta")).toContainText("via a signed link");
  });
  test("Reject through a signed link asks for a reason, confirms, says what happened, and the run says who stopped it and why", async ({
    page,
  }) => {
    await login(page);
    const runId = await runFor(page, "linkReject", "demo-deploy");
    await waitForPerson(page, runId, "./deploy.sh production");
    await page.getByTestId("waiting-open-inbox").click();
    await detail(page).getByTestId("copy-signed-link").click();
    const dialog = page.getByTestId("signed-link-dialog");
    const url = await dialog.getByTestId("signed-link-url").inputValue();
    await dialog.getByTestId("signed-link-close").click();

    await page.goto(url);
    const d = detail(page);
    await expect(d.getByTestId("request-title")).toContainText("./deploy.sh production");
    // The first press only opens the confirmation: nothing is decided yet.
    await d.getByTestId("decide-reject").click();
    const confirm = d.getByTestId("reject-confirm");
    await expect(confirm).toBeVisible();
    await expect(confirm.getByTestId("reject-consequence")).toContainText("The call does not run");
    await expect(d.getByTestId("decision-comment")).toBeFocused();
    await expect(page.getByTestId("resume-done")).toHaveCount(0);
    await expect(confirm.getByTestId("decide-reject-confirm")).toHaveText("Reject without a reason");
    await d.getByTestId("decision-comment").fill("Wrong release train");
    await expect(confirm.getByTestId("decide-reject-confirm")).toHaveText("Reject with this reason");
    await confirm.getByTestId("decide-reject-confirm").click();

    // The result says what happened: no green tick, no "the run continues".
    const done = page.getByTestId("resume-done");
    await expect(page.getByTestId("resume-done-title")).toHaveText("Rejected — the call did not run", { timeout: 20_000 });
    await expect(page.getByTestId("resume-done-detail")).toContainText("The agent has been told, with your reason");
    await expect(done).toHaveAttribute("data-tone", "no");
    await expect(done).not.toContainText("continues");
    await expect(page.getByTestId("decision-comment-text")).toHaveText("Wrong release train");

    await page.getByTestId("resume-open-run").click();
    await expect(page.getByTestId("run-status")).toHaveText("canceled", { timeout: 30_000 });
    await expect(page.getByTestId("run-status-reason")).toHaveText("Stopped by a reviewer — Admin: Wrong release train");
    await expect(page.getByTestId("run-error")).toHaveCount(0);
    await expect(page.getByTestId("shell-output").filter({ hasText: "to production" })).toHaveCount(0);

    // The runs list says the same under the goal.
    await page.goto("/runs");
    const row = page.getByTestId("run-row").filter({ hasText: GOALS.linkReject });
    await expect(row.getByTestId("run-row-status")).toHaveText("canceled");
    await expect(row.getByTestId("run-end-line")).toHaveText("Stopped by a reviewer — Admin: Wrong release train");
  });
});
