// Suggested rules (docs/human-requests-and-policy.md#suggested-rules): after an approver approves the
// admin's same deploy five times in one team, Settings › Policy offers a rule for exactly that command
// line in that team; added, the next run of it goes through without asking. The version before is then saved
// again, so the specs after this one meet the policy as it was, and the suggestion, offered again,
// is dismissed with a reason.
import { expect, test, type Browser, type Page } from "@playwright/test";
import { login, trpcGet, trpcPost } from "./fixtures";

const stamp = Date.now().toString(36);
const APPROVER = { email: `suggest-approver-${stamp}@rein.test`, name: "Sam Approver", password: "approver-password-1" };
const GOAL = "Deploy version 1.4.0 to qa";

/** The approver, signed in in a browser of their own: approvals of one's own runs do not count. */
async function approverPage(browser: Browser): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto("/login");
  await page.getByLabel("Email").fill(APPROVER.email);
  await page.getByLabel("Password").fill(APPROVER.password);
  await page.getByTestId("login-submit").click();
  await expect(page).toHaveURL(/\/runs$/);
  return page;
}
const COMMAND = "./deploy.sh qa";

async function launch(page: Page, teamId: string): Promise<string> {
  const res = await page.request.post("/api/v1/runs", { data: { agent: "demo-deploy", goal: GOAL, teamId } });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function status(page: Page, runId: string): Promise<string> {
  return ((await (await page.request.get(`/api/v1/runs/${runId}`)).json()) as { status: string }).status;
}

/** Waits for the run's question about the deploy and approves it over REST, as the approver. */
async function approve(page: Page, runId: string) {
  let requestId = "";
  await expect
    .poll(
      async () => {
        const res = await page.request.get(`/api/v1/human-requests?runId=${runId}`);
        const open = ((await res.json()) as { requests: Array<{ id: string; state: string; title: string }> }).requests.find(
          (r) => r.state === "PENDING",
        );
        requestId = open?.id ?? "";
        return open?.title ?? "";
      },
      { timeout: 60_000 },
    )
    .toContain(COMMAND);
  const res = await page.request.post(`/api/v1/human-requests/${requestId}/decision`, { data: { decision: "approve" } });
  expect(res.status(), await res.text()).toBe(200);
  await expect.poll(() => status(page, runId), { timeout: 60_000 }).toBe("succeeded");
}

test("five approvals of one deploy in one team: the rule is offered, added, and the next deploy does not ask", async ({
  page,
  browser,
}) => {
  test.setTimeout(240_000);
  await login(page);
  const team = await trpcPost<{ id: string; name: string }>(page, "teams.create", { name: `Suggestions ${stamp}` });
  await trpcPost(page, "users.create", { email: APPROVER.email, name: APPROVER.name, password: APPROVER.password, role: "approver" });
  await trpcPost(page, "teams.addMember", { teamId: team.id, email: APPROVER.email, role: "approver" });
  const approver = await approverPage(browser);
  const runs = await Promise.all(Array.from({ length: 5 }, () => launch(page, team.id)));
  await Promise.all(runs.map((id) => approve(approver, id)));
  await approver.context().close();

  await page.goto("/settings/policy");
  const suggestion = page.locator(`[data-testid="policy-suggestion"][data-command="${COMMAND}"]`).filter({ hasText: team.name });
  await expect(suggestion).toBeVisible({ timeout: 30_000 });
  await expect(suggestion.getByTestId("policy-suggestion-evidence")).toContainText("Approved 5 times by 1 person, never rejected");
  await expect(suggestion.getByTestId("policy-suggestion-evidence")).toContainText("Today it asks a person; with the rule it runs.");
  const before = (await trpcGet<{ version: number }>(page, "policy.active")).version;

  await suggestion.getByTestId("policy-suggestion-add").click();
  const dialog = page.locator("[data-testid=confirm-dialog][open]");
  await expect(dialog).toContainText("Add this rule to the policy?");
  await dialog.getByRole("button", { name: "Add rule" }).click();
  await expect(page.getByTestId("policy-saved")).toContainText(`Suggested rule added as version ${before + 1}`);
  await expect(suggestion).toHaveCount(0);
  await expect(page.getByTestId("policy-active-version")).toContainText(String(before + 1));

  // The next deploy to qa in that team runs without asking.
  const next = await launch(page, team.id);
  await expect.poll(() => status(page, next), { timeout: 60_000 }).toBe("succeeded");
  const asked = (await (await page.request.get(`/api/v1/human-requests?runId=${next}`)).json()) as { requests: unknown[] };
  expect(asked.requests).toHaveLength(0);

  // The version before is saved again: the command asks once more, and the rule is offered again; dismissed, it is not.
  const earlier = await trpcGet<{ source: string }>(page, "policy.get", { version: before });
  await trpcPost(page, "policy.save", { source: earlier.source, comment: "the suggestions spec puts the policy back" });
  await page.reload();
  await expect(suggestion).toBeVisible({ timeout: 30_000 });
  await suggestion.getByTestId("policy-suggestion-dismiss").click();
  await expect(dialog.getByRole("button", { name: "Dismiss" })).toBeDisabled();
  await dialog.getByTestId("policy-suggestion-reason").fill("qa deploys stay with a person this month");
  await dialog.getByRole("button", { name: "Dismiss" }).click();
  await expect(suggestion).toHaveCount(0);

  await page.goto("/audit?kind=policy.suggestion");
  await expect(page.locator('[data-testid="audit-row"][data-kind="policy.suggestion_accepted"]').first()).toBeVisible();
  await expect(page.locator('[data-testid="audit-row"][data-kind="policy.suggestion_dismissed"]').first()).toBeVisible();
});
