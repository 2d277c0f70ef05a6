// The audit log: routine allows hidden until asked for, the kind filter
// matching the start of a kind, and people shown by name with their e-mail on
// hover.
import { expect, test } from "@playwright/test";
import { ADMIN_EMAIL, login, trpcPost } from "./fixtures";

test("routine allows are hidden until asked for; the kind filter matches a kind's start; people by name", async ({ page }) => {
  test.setTimeout(120_000);
  await login(page);
  // A demo-coder run: the policy allows each of its tool calls.
  await page.goto("/runs");
  await page.getByTestId("new-run-button").click();
  await page.getByTestId("agent-select").selectOption("demo-coder");
  await expect(page.getByTestId("goal-input")).not.toHaveValue("");
  await page.getByTestId("start-run").click();
  await page.waitForURL(/\/runs\/[^/?#]+$/);
  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 60_000 });
  const runId = new URL(page.url()).pathname.split("/").pop()!;

  await page.goto(`/audit?run=${runId}`);
  await expect(page.getByTestId("audit-page")).toBeVisible();
  const allows = page.locator('[data-testid="audit-row"][data-kind="policy.decision"]').filter({ hasText: "→ allow" });
  await expect(page.getByTestId("audit-show-routine")).not.toBeChecked();
  // Hidden by default: the run's decisions were all allows.
  await expect(page.getByText("No entries match these filters")).toBeVisible();
  await expect(allows).toHaveCount(0);

  await page.getByTestId("audit-show-routine").check();
  await expect(page).toHaveURL(/[?&]routine=1/);
  await expect(allows.first()).toBeVisible();

  // Kinds read as words, their code on hover.
  await expect(allows.first().getByTestId("audit-kind-words")).toHaveText("Policy decision");
  await expect(allows.first().getByTestId("audit-kind-words")).toHaveAttribute("title", "policy.decision");

  // On whose behalf: the launcher by name, the e-mail on hover.
  const onBehalf = allows.first().getByTestId("audit-on-behalf");
  await expect(onBehalf).toHaveAttribute("title", ADMIN_EMAIL);
  await expect(onBehalf).toHaveAttribute("data-email", ADMIN_EMAIL);
  expect((await onBehalf.textContent())?.trim()).not.toBe("");

  // "polic" finds policy.decision; "request" finds no policy rows.
  await page.getByTestId("audit-kind").fill("polic");
  await expect(page).toHaveURL(/[?&]kind=polic(&|$)/);
  await expect(allows.first()).toBeVisible();
  for (const kind of await page.getByTestId("audit-row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-kind"))))
    expect(kind).toMatch(/^polic/);
  await page.getByTestId("audit-kind").fill("request");
  await expect(page).toHaveURL(/[?&]kind=request(&|$)/);
  await expect(page.locator('[data-testid="audit-row"][data-kind^="policy."]')).toHaveCount(0);
  // A wildcard typed in the kind matches only itself.
  await page.getByTestId("audit-kind").fill("%");
  await expect(page.getByText("No entries match these filters")).toBeVisible();

  // Each row of the run names the run's team; the team filter (by id, in the address) keeps that team's rows.
  await page.goto(`/audit?run=${runId}&routine=1`);
  const teamName = ((await page.getByTestId("audit-team").first().textContent()) ?? "").trim();
  expect(teamName).not.toBe("");
  await page.goto("/audit?routine=1");
  await page.getByTestId("audit-team-filter").selectOption({ label: teamName });
  await expect(page).toHaveURL(/[?&]team=[^&]+/);
  await expect(page.locator(`[data-testid="audit-row"] a[href="/runs/${runId}"]`).first()).toBeVisible();
  for (const team of await page.getByTestId("audit-team").allTextContents()) expect(team.trim()).toBe(teamName);
  expect(await page.getByTestId("audit-team").count()).toBe(await page.getByTestId("audit-row").count());

  // What one person did: the filter is in the address, and every row is theirs.
  await trpcPost(page, "users.create", {
    email: `audited-${Date.now().toString(36)}@rein.test`,
    name: "Audited",
    password: "audited-password-1",
    role: "viewer",
  });
  await page.goto("/audit");
  await page.getByTestId("audit-person").selectOption({ label: "Admin" });
  await expect(page).toHaveURL(/[?&]person=[^&]+/);
  await expect(page.getByTestId("audit-row").first()).toBeVisible();
  for (const actor of await page.getByTestId("audit-actor").allTextContents()) expect(actor.trim()).toBe("Admin");
});
