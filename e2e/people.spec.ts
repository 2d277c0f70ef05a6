// People and teams (docs/people-and-teams.md): an admin creates the team "payments" and
// invites someone into it from Settings › People; in a browser of their own
// the invitee opens the link, sets a password, logs in and sees only their
// team's runs. The link works once; when the admin disables them, their next
// page is the login page. A password reset link works the same way, and role
// changes that take admin away ask first.
import { expect, test, type Page } from "@playwright/test";
import { login } from "./fixtures";
import { atEverySize } from "./journey";

const stamp = Date.now().toString(36);
const INVITEE = `invitee-${stamp}@rein.test`;
const PASSWORD = "correct horse battery";

async function trpcQuery<T>(page: Page, procedure: string): Promise<T> {
  const res = await page.request.get(`/api/trpc/${procedure}`);
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()) as { result: { data: { json: T } } }).result.data.json;
}

/** Starts a run in a team through the REST API with the admin's session; returns its id. */
async function createRun(page: Page, goal: string, teamId: string): Promise<string> {
  const res = await page.request.post("/api/v1/runs", { data: { goal, agent: "demo-coder", teamId } });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

test("an invited person joins a team with a single-use link, sees only its runs, and is locked out when disabled", async ({
  page,
  context,
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await login(page);

  // Settings › Teams: a new team, created by the admin.
  await page.getByTestId("nav-settings").click();
  await page.getByTestId("settings-nav").getByRole("link", { name: /Teams/ }).click();
  await expect(page).toHaveURL(/\/settings\/teams$/);
  await page.getByTestId("new-team").click();
  await page.getByTestId("new-team-name").fill("pay/ments");
  await page.getByTestId("new-team-name").press("Enter");
  await expect(page.getByTestId("new-team-error")).toHaveText("Letters, digits, spaces and - _ . only");
  await page.getByTestId("new-team-name").fill("payments");
  await page.getByTestId("new-team-name").press("Enter");
  await expect(page).toHaveURL(/\/settings\/teams\/[^/]+$/);
  await expect(page.getByTestId("team-name")).toHaveText("payments");
  const paymentsId = page.url().split("/").pop()!;

  // Another team, and one run in each, before the invitee arrives.
  const research = await page.request.post("/api/trpc/teams.create", { data: { json: { name: `research-${stamp}` } } });
  expect(research.status(), await research.text()).toBe(200);
  const researchId = ((await research.json()) as { result: { data: { json: { id: string } } } }).result.data.json.id;
  const paymentsGoal = `Reconcile the payments ledger ${stamp}`;
  const researchGoal = `Survey the research papers ${stamp}`;
  await createRun(page, paymentsGoal, paymentsId);
  await createRun(page, researchGoal, researchId);

  // Settings › People: invite them as viewer, operator in payments; the link is shown once and copied.
  await page
    .getByTestId("settings-nav")
    .getByRole("link", { name: /People/ })
    .click();
  await expect(page).toHaveURL(/\/settings\/people$/);
  await page.getByTestId("invite-person").click();
  const dialog = page.getByTestId("invite-dialog");
  await dialog.getByTestId("invite-email").fill("not an address");
  await dialog.getByTestId("invite-email").press("Enter");
  await expect(dialog.getByTestId("invite-email-error")).toHaveText("This does not look like an e-mail address");
  await dialog.getByTestId("invite-email").fill(INVITEE);
  await dialog.getByTestId("invite-role").selectOption("viewer");
  await dialog.getByTestId("invite-team").selectOption({ label: "payments" });
  await dialog.getByTestId("invite-team-role").selectOption("operator");
  await dialog.getByTestId("invite-submit").click();
  const reveal = dialog.getByTestId("link-reveal");
  await expect(reveal).toContainText("shown only this once");
  await expect(dialog.getByTestId("link-reveal-note")).toContainText(`Send this link to ${INVITEE}; it works once and expires on`);
  await expect(dialog.getByTestId("link-reveal-note")).toContainText("E-mail delivery is not configured, so Rein does not send it.");
  const link = await dialog.getByTestId("link-reveal-url").inputValue();
  expect(link).toMatch(/\/invite\?token=/);
  await dialog.getByTestId("link-reveal-copy").click();
  await expect(dialog.getByTestId("link-reveal-copy")).toHaveText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
  await dialog.getByTestId("invite-done").click();
  await expect(dialog).toBeHidden();
  const invitation = page.getByTestId("invitation-row").filter({ hasText: INVITEE });
  await expect(invitation).toContainText("payments");
  await expect(invitation.getByTestId("invitation-state")).toHaveText("pending");
  // Shown once: the page keeps no trace of the link.
  expect(await page.content()).not.toContain(link.split("token=")[1]);
  // The admin's journey: people, their roles and what is pending, at every size.
  await atEverySize(page, "admin-people", async (p) => {
    await expect(invitation.getByTestId("invitation-state")).toHaveText("pending");
    await expect(p.getByTestId("user-role")).toHaveText("admin");
  });

  // The invitee, in a browser with no session of Rein's.
  const theirs = await browser.newContext({ baseURL });
  try {
    const invitee = await theirs.newPage();
    await invitee.goto(link);
    await expect(invitee).toHaveURL(/\/invite\?token=/);
    await expect(invitee.getByTestId("accept-summary")).toContainText(
      `invited ${INVITEE} as operator in the team payments (viewer elsewhere)`,
    );
    await expect(invitee.getByTestId("accept-email")).toHaveValue(INVITEE);
    await invitee.getByTestId("accept-name").fill("Ina Vitee");
    await invitee.getByTestId("accept-password").fill("short");
    await invitee.getByTestId("accept-confirm").fill("other");
    await invitee.getByTestId("accept-confirm").press("Enter");
    await expect(invitee.getByTestId("accept-password-error")).toHaveText("At least 8 characters (this one has 5)");
    await expect(invitee.getByTestId("accept-confirm-error")).toHaveText("The two passwords differ");
    await invitee.getByTestId("accept-password").fill(PASSWORD);
    await invitee.getByTestId("accept-confirm").fill(PASSWORD);
    await invitee.getByTestId("accept-submit").click();
    await expect(invitee.getByTestId("accept-done")).toContainText("Your account is ready");

    // Back in the admin's tab (as when they return to it): the accepted invitation leaves the pending list, no reload.
    await page.bringToFront();
    await page.evaluate(() => window.dispatchEvent(new Event("visibilitychange")));
    await expect(invitation).toHaveCount(0, { timeout: 10_000 });

    // Log in: the address is filled in.
    await invitee.getByTestId("accept-login").click();
    await expect(invitee).toHaveURL(/\/login\?email=/);
    await expect(invitee.getByTestId("login-email")).toHaveValue(INVITEE);
    await invitee.getByTestId("login-password").fill(PASSWORD);
    await invitee.getByTestId("login-submit").click();
    await expect(invitee).toHaveURL(/\/runs$/);

    // Only their team's run.
    const rows = invitee.getByTestId("run-row");
    await expect(rows.filter({ hasText: paymentsGoal })).toHaveCount(1);
    await expect(rows).toHaveCount(1);
    await expect(invitee.getByText(researchGoal)).toHaveCount(0);
    const hidden = await invitee.request.get(`/api/trpc/runs.list?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`);
    expect(await hidden.text()).not.toContain(researchGoal);

    // The most they may do (operator, in their team), then their own role and their role in the team.
    await expect(invitee.getByTestId("user-role")).toHaveText("operator");
    await invitee.getByTestId("user-menu").click();
    await expect(invitee.getByTestId("user-team-roles")).toHaveText("operator in payments");
    await expect(invitee.getByTestId("user-menu-role")).toHaveText("Own role: viewer (outside your teams)");
    await invitee.keyboard.press("Escape");

    // The link worked once.
    await invitee.goto(link);
    await expect(invitee.getByTestId("link-refusal")).toBeVisible();
    await expect(invitee.getByTestId("link-refusal-title")).toHaveText(/already been used|cannot be used any more/);
    await expect(invitee.getByTestId("link-refusal")).toContainText("Ask your admin for a new link");

    // The admin sees them in the team and in People, then disables them.
    await page.goto(`/settings/teams/${paymentsId}`);
    const member = page.getByTestId("member-row").filter({ hasText: INVITEE });
    await expect(member.getByTestId("member-role")).toHaveValue("operator");
    await expect(member.getByTestId("member-effective-role")).toHaveText("operator");
    await page.goto("/settings/people");
    await expect(page.getByTestId("invitation-row").filter({ hasText: INVITEE })).toHaveCount(0);
    await page.getByTestId("people-search").fill(INVITEE);
    const person = page.getByTestId("person-row").filter({ hasText: INVITEE });
    await expect(page.getByTestId("person-row")).toHaveCount(1);
    await expect(person).toContainText("Ina Vitee");
    await expect(person.getByTestId("person-teams")).toContainText("payments · operator");
    await expect(person.getByTestId("person-status")).toHaveText("active");
    await person.getByTestId("person-disable").click();
    const confirm = page.getByRole("dialog", { name: "Disable Ina Vitee?" });
    await expect(confirm).toContainText("sessions and API tokens stop working immediately");
    await confirm.getByTestId("confirm-dialog-confirm").click();
    await expect(person.getByTestId("person-status")).toHaveText("disabled");

    // Their next page is the login page.
    await invitee.goto("/runs");
    await expect(invitee).toHaveURL(/\/login/);

    // Their history in the audit log: invited, joined, disabled, each naming who did it.
    await person.getByTestId("person-history").click();
    await expect(page).toHaveURL(/\/audit\?q=/);
    await expect(page.locator('[data-testid="audit-row"][data-kind="user.disabled"]')).toHaveCount(1);
    await expect(page.locator('[data-testid="audit-row"][data-kind="invitation.accepted"]')).toHaveCount(1);
  } finally {
    await theirs.close();
  }
});

test("a reset link sets a new password once; taking admin away asks first, and the server's refusal is shown there", async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const email = `reset-${stamp}@rein.test`;
  await login(page);
  const created = await page.request.post("/api/trpc/users.create", {
    data: { json: { email, name: "Rhea Set", password: "old-password-1", role: "admin" } },
  });
  expect(created.status(), await created.text()).toBe(200);

  await page.goto("/settings/people");
  await page.getByTestId("people-search").fill("rhea");
  const person = page.getByTestId("person-row").filter({ hasText: email });
  await expect(page.getByTestId("person-row")).toHaveCount(1);

  // Taking admin away from someone asks first.
  await person.getByTestId("person-role").selectOption("operator");
  const demote = page.getByRole("dialog", { name: "Remove admin from Rhea Set?" });
  await expect(demote).toContainText("becomes operator everywhere");
  await demote.getByTestId("confirm-dialog-confirm").click();
  await expect(demote).toBeHidden();
  await expect(person.getByTestId("person-role")).toHaveValue("operator");

  // Giving up one's own admin role: asked, then refused by the server in words, and nothing changes.
  await page.getByTestId("people-search").fill("");
  const self = page.getByTestId("person-row").filter({ hasText: "admin@rein.test" });
  await self.getByTestId("person-role").selectOption("viewer");
  const giveUp = page.getByRole("dialog", { name: "Give up your admin role?" });
  await giveUp.getByTestId("confirm-dialog-confirm").click();
  await expect(giveUp.getByRole("alert")).toHaveText("You cannot remove your own admin role");
  await giveUp.getByRole("button", { name: "Keep admin" }).click();
  await expect(self.getByTestId("person-role")).toHaveValue("admin");

  // A reset link, shown once.
  await person.getByTestId("person-reset").click();
  const dialog = page.getByTestId("reset-dialog");
  await expect(dialog).toContainText("works once, for 24 hours");
  await dialog.getByTestId("reset-create").click();
  await expect(dialog.getByTestId("link-reveal-note")).toContainText(`Send this link to ${email}; it works once and expires on`);
  const link = await dialog.getByTestId("link-reveal-url").inputValue();
  expect(link).toMatch(/\/reset\?token=/);
  await dialog.getByTestId("reset-done").click();
  await expect(dialog).toBeHidden();

  const theirs = await browser.newContext({ baseURL });
  try {
    const them = await theirs.newPage();
    await them.goto(link);
    await expect(them.getByRole("heading", { name: "Choose a new password" })).toBeVisible();
    await expect(them.getByTestId("accept-name")).toHaveCount(0);
    await them.getByTestId("accept-password").fill("new-password-2");
    await them.getByTestId("accept-confirm").fill("new-password-2");
    await them.getByTestId("accept-confirm").press("Enter");
    await expect(them.getByTestId("accept-done")).toContainText("Your password is set");
    await them.getByTestId("accept-login").click();
    await expect(them.getByTestId("login-email")).toHaveValue(email);
    await them.getByTestId("login-password").fill("old-password-1");
    await them.getByTestId("login-submit").click();
    await expect(them.getByTestId("login-error")).toHaveText("Wrong email or password");
    await them.getByTestId("login-password").fill("new-password-2");
    await them.getByTestId("login-submit").click();
    await expect(them).toHaveURL(/\/runs$/);

    await them.goto(link);
    await expect(them.getByTestId("link-refusal-title")).toHaveText("This link has already been used");
  } finally {
    await theirs.close();
  }
});

test("a team's own admin renames it and manages its members by e-mail; a higher own role is explained", async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const team = `ops-${stamp}`;
  const lead = `lead-${stamp}@rein.test`;
  const mate = `mate-${stamp}@rein.test`;
  const boss = `boss-${stamp}@rein.test`;
  await login(page);
  const made = await page.request.post("/api/trpc/teams.create", { data: { json: { name: team } } });
  expect(made.status(), await made.text()).toBe(200);
  const teamId = ((await made.json()) as { result: { data: { json: { id: string } } } }).result.data.json.id;
  for (const user of [
    { email: lead, name: "Lea Lead", password: "lead-password", role: "viewer", teamId, teamRole: "admin" },
    { email: boss, name: "Bo Boss", password: "boss-password", role: "admin", teamId, teamRole: "viewer" },
    { email: mate, name: "Mo Mate", password: "mate-password", role: "viewer" },
  ]) {
    const res = await page.request.post("/api/trpc/users.create", { data: { json: user } });
    expect(res.status(), await res.text()).toBe(200);
  }

  const theirs = await browser.newContext({ baseURL });
  try {
    const them = await theirs.newPage();
    await them.goto("/login");
    await them.getByLabel("Email").fill(lead);
    await them.getByLabel("Password").fill("lead-password");
    await them.getByTestId("login-submit").click();
    await expect(them).toHaveURL(/\/runs$/);

    // Teams: only theirs, where they are admin; People is not offered.
    await them.goto("/settings/teams");
    await expect(them.getByTestId("settings-nav").getByRole("link", { name: /People/ })).toHaveCount(0);
    await expect(them.getByTestId("new-team")).toHaveCount(0);
    await expect(them.getByTestId("team-row")).toHaveCount(1);
    await expect(them.getByTestId("team-row").getByTestId("team-my-role")).toHaveText("admin");
    await them.getByRole("link", { name: team }).click();
    await expect(them.getByTestId("team-name")).toHaveText(team);
    await expect(them.getByTestId("archive-team")).toHaveCount(0);

    // Bo is a viewer in the team but admin everywhere.
    const bo = them.getByTestId("member-row").filter({ hasText: boss });
    await expect(bo.getByTestId("member-role")).toHaveValue("viewer");
    await expect(bo.getByTestId("member-effective-role").locator("strong")).toHaveText("admin");
    await expect(bo.getByTestId("member-effective-role")).toContainText("admin everywhere");

    // Rename: Enter saves.
    await them.getByTestId("rename-team").click();
    await them.getByTestId("rename-input").fill(`${team}-renamed`);
    await them.getByTestId("rename-input").press("Enter");
    await expect(them.getByTestId("team-name")).toHaveText(`${team}-renamed`);

    // Members by e-mail: someone unknown is refused in words, someone known is added, then removed.
    await them.getByTestId("add-member-email").fill(`nobody-${stamp}@rein.test`);
    await them.getByTestId("add-member-email").press("Enter");
    await expect(them.getByTestId("add-member-error")).toContainText("invite them first");
    await them.getByTestId("add-member-email").fill(mate);
    await them.getByTestId("add-member-role").selectOption("operator");
    await them.getByTestId("add-member-submit").click();
    const mo = them.getByTestId("member-row").filter({ hasText: mate });
    await expect(mo.getByTestId("member-role")).toHaveValue("operator");
    await expect(mo.getByTestId("member-effective-role")).toHaveText("operator");
    await mo.getByTestId("member-remove").click();
    const confirm = them.getByRole("dialog", { name: `Remove Mo Mate from ${team}-renamed?` });
    await confirm.getByTestId("confirm-dialog-confirm").click();
    await expect(mo).toHaveCount(0);
  } finally {
    await theirs.close();
  }
});
