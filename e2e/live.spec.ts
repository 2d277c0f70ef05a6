// Nothing stale (docs/human-requests-and-policy.md#the-inbox): two people
// look at the same request; when one decides it, the other's Inbox badge and
// list follow without a reload, and the run page they watch moves on too.
import { expect, test, type Browser } from "@playwright/test";
import { login, trpcPost } from "./fixtures";
import { atEverySize } from "./journey";

const stamp = Date.now().toString(36);
const APPROVER = { email: `live-approver-${stamp}@rein.test`, name: "Ada Approver", password: "approver-password-1" };

async function approverPage(browser: Browser) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto("/login");
  await page.getByLabel("Email").fill(APPROVER.email);
  await page.getByLabel("Password").fill(APPROVER.password);
  await page.getByTestId("login-submit").click();
  await expect(page).toHaveURL(/\/runs$/);
  return { context, page };
}

test("one person approves; the other's badge, Inbox list and run page follow without a reload", async ({ page, browser }) => {
  test.setTimeout(120_000);
  await login(page);
  await trpcPost(page, "users.create", { email: APPROVER.email, name: APPROVER.name, password: APPROVER.password, role: "approver" });
  const goal = `Deploy 1.4.0 (live) ${stamp}`;
  const res = await page.request.post("/api/v1/runs", { data: { agent: "demo-deploy", goal } });
  expect(res.status(), await res.text()).toBe(201);
  const runId = ((await res.json()) as { id: string }).id;

  // The admin's Inbox shows the request and counts it.
  await page.goto("/inbox");
  const item = page.getByTestId("inbox-item").filter({ hasText: goal });
  await expect(item).toBeVisible({ timeout: 30_000 });
  const before = Number(await page.getByTestId("inbox-badge").textContent());
  expect(before).toBeGreaterThanOrEqual(1);

  // The admin also watches the run, in another tab.
  const watch = await page.context().newPage();
  await watch.goto(`/runs/${runId}`);
  await expect(watch.getByTestId("run-status")).toHaveText("waiting for human");

  // The approver decides it in their own browser.
  const { context, page: other } = await approverPage(browser);
  try {
    await other.goto("/inbox");
    await other.getByTestId("inbox-item").filter({ hasText: goal }).click();
    await other.getByTestId("request-detail").getByTestId("decide-approve").click();
    await expect(other.getByTestId("request-detail").getByTestId("decision-outcome")).toContainText("Approved by Ada Approver");
    // The approver's journey: the decision they made, at every size.
    await atEverySize(other, "approver-inbox", async (p) => {
      await expect(p.getByTestId("request-detail").getByTestId("decision-outcome")).toBeVisible();
    });
  } finally {
    await context.close();
  }

  // The admin's screen follows: the request leaves the open list and the badge counts one less, with no reload.
  await expect(item).toHaveCount(0, { timeout: 10_000 });
  if (before === 1) await expect(page.getByTestId("inbox-badge")).toHaveCount(0);
  else await expect(page.getByTestId("inbox-badge")).toHaveText(String(before - 1));

  // The run page in the other tab moved on by itself: the decision, then the run going on.
  await expect(watch.getByTestId("run-status")).toHaveText("succeeded", { timeout: 30_000 });
  await expect(watch.getByTestId("human-decided")).toContainText("Ada Approver");
});
