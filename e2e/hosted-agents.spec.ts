// Hosted agents (docs/hosted-agents.md): an operator starts demo-hosted from
// New run and sees it is hosted on Rein's test agent; its deploy waits in the
// Inbox until an approver approves it; the run succeeds with hello.sh in
// Files and the greeting in the Terminal. An admin tests the program from
// Settings › Hosted agents, reads what it answered, and opens the agent that
// uses it: its editor names the program instead of listing tools.
import { expect, test, type Browser, type Page } from "@playwright/test";
import { login, trpcPost } from "./fixtures";

const stamp = Date.now().toString(36);
const OPERATOR = { email: `hosted-operator-${stamp}@rein.test`, name: "Hana Operator", password: "operator-password-1" };
const APPROVER = { email: `hosted-approver-${stamp}@rein.test`, name: "Aki Approver", password: "approver-password-1" };

/** A browser of that person's own, logged in. */
async function personPage(browser: Browser, person: { email: string; password: string }) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto("/login");
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Password").fill(person.password);
  await page.getByTestId("login-submit").click();
  await expect(page).toHaveURL(/\/runs$/, { timeout: 30_000 });
  return { context, page };
}

async function terminalText(page: Page): Promise<string> {
  return page.locator(".xterm-rows").innerText();
}

test("an operator runs demo-hosted, an approver approves its deploy, and Files and the Terminal show its work", async ({
  page,
  browser,
}) => {
  test.setTimeout(150_000);
  await login(page);
  for (const [person, role] of [
    [OPERATOR, "operator"],
    [APPROVER, "approver"],
  ] as const)
    await trpcPost(page, "users.create", { email: person.email, name: person.name, password: person.password, role });

  const operator = await personPage(browser, OPERATOR);
  const approver = await personPage(browser, APPROVER);
  try {
    const op = operator.page;
    await op.getByTestId("new-run-button").click();
    await op.getByTestId("agent-select").selectOption("demo-hosted");
    await expect(op.getByTestId("new-run-hosted-badge")).toHaveText("Hosted · Rein test agent");
    await expect(op.getByTestId("goal-input")).toHaveValue("Write a greeting script, run it, and deploy it to staging");
    const goal = `Write a greeting script, run it, and deploy it to staging (${stamp})`;
    await op.getByTestId("goal-input").fill(goal);
    await op.getByTestId("start-run").click();
    await op.waitForURL(/\/runs\/[^/?#]+$/);
    await expect(op.getByTestId("run-hosted-badge")).toHaveText("Hosted · Rein test agent");

    // The deploy waits for a person: the approver's Inbox shows it as it comes, and they approve it.
    const ap = approver.page;
    await ap.goto("/inbox");
    const item = ap.getByTestId("inbox-item").filter({ hasText: goal });
    await expect(item).toBeVisible({ timeout: 60_000 });
    await item.click();
    await ap.getByTestId("request-detail").getByTestId("decide-approve").click();
    await expect(ap.getByTestId("request-detail").getByTestId("decision-outcome")).toContainText("Approved by Aki Approver");

    // The operator's run page follows: the run succeeds with its files and its terminal.
    await expect(op.getByTestId("run-status")).toHaveText("succeeded", { timeout: 60_000 });
    await op.getByTestId("tab-files").click();
    await expect(op.getByTestId("file-tree").locator('[data-path="hello.sh"]')).toBeVisible({ timeout: 15_000 });
    await op.getByTestId("tab-terminal").click();
    await expect.poll(() => terminalText(op), { timeout: 30_000 }).toMatch(/Hello from a hosted agent/);
  } finally {
    await operator.context.close();
    await approver.context.close();
  }
});

test("an admin tests Rein's test agent from Settings › Hosted agents and reads its answer", async ({ page }) => {
  await login(page);
  await page.goto("/settings");
  await page.getByTestId("settings-nav").getByRole("link", { name: "Hosted agents" }).click();
  await expect(page).toHaveURL(/\/settings\/hosted$/);
  const card = page.locator('[data-testid="hosted-program"][data-program="rein-test-agent"]');
  await expect(card.getByRole("heading", { name: "Rein test agent" })).toBeVisible();
  await expect(card.getByTestId("hosted-source")).toHaveText("comes with Rein");
  await expect(card.getByTestId("hosted-installed")).toHaveText("installed");
  await expect(card.getByTestId("hosted-agents").getByRole("link", { name: "demo-hosted" })).toBeVisible();
  await expect(card.getByTestId("hosted-commands")).toContainText("through Rein's terminal");
  // Qwen Code runs bash -c itself: the card says the relay brings its commands to the Terminal tab.
  const qwen = page.locator('[data-testid="hosted-program"][data-program="qwen-code"]');
  await expect(qwen.getByTestId("hosted-commands")).toContainText("Rein's shell relay");
  await card.getByTestId("hosted-test").click();
  const answer = card.getByTestId("hosted-test-result");
  await expect(answer).toHaveAttribute("data-ok", "true", { timeout: 30_000 });
  await expect(answer).toContainText("Rein test agent answered as rein-test-agent 1.0.0");
  await expect(answer).toContainText("it can reload a session");

  // The agent's editor names its program; Tools and Hands off to say the program brings its own.
  await card.getByTestId("hosted-agents").getByRole("link", { name: "demo-hosted" }).click();
  await expect(page).toHaveURL(/\/agents\/demo-hosted$/);
  await expect(page.getByTestId("agent-hosted")).toHaveValue("rein-test-agent");
  await expect(page.getByTestId("agent-tools-hosted")).toContainText("Rein test agent brings its own tools");
  await expect(page.getByTestId("agent-handoffs-hosted")).toContainText("hands off to no one");
});
