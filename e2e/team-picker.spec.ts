// New run asks for the team (docs/people-and-teams.md#teams): a person who may
// start runs in two teams picks one, the run belongs to it and says so with the
// person's role there, and the dialog offers that team first next time. A team
// where they only watch is not offered.
import { expect, test, type Page } from "@playwright/test";
import { login } from "./fixtures";

const stamp = Date.now().toString(36);
const EMAIL = `two-teams-${stamp}@rein.test`;
const PASSWORD = "two teams, one person";

async function trpc<T>(page: Page, procedure: string, input: unknown): Promise<T> {
  const res = await page.request.post(`/api/trpc/${procedure}`, { data: { json: input } });
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()) as { result: { data: { json: T } } }).result.data.json;
}

test("New run asks for the team, the run shows it with my role there, and the choice is remembered", async ({ page, browser }) => {
  test.setTimeout(120_000);
  await login(page);
  const ops = await trpc<{ id: string }>(page, "teams.create", { name: `ops-${stamp}` });
  const qa = await trpc<{ id: string }>(page, "teams.create", { name: `qa-${stamp}` });
  const watch = await trpc<{ id: string }>(page, "teams.create", { name: `watch-${stamp}` });
  await trpc(page, "users.create", { email: EMAIL, password: PASSWORD, role: "viewer", teamId: ops.id, teamRole: "operator" });
  await trpc(page, "teams.addMember", { teamId: qa.id, email: EMAIL, role: "approver" });
  await trpc(page, "teams.addMember", { teamId: watch.id, email: EMAIL, role: "viewer" });

  const context = await browser.newContext();
  const person = await context.newPage();
  await person.goto("/login");
  await person.getByLabel("Email").fill(EMAIL);
  await person.getByLabel("Password").fill(PASSWORD);
  await person.getByTestId("login-submit").click();
  await expect(person).toHaveURL(/\/runs$/);

  await person.getByTestId("new-run-button").click();
  const select = person.getByTestId("team-select");
  await expect(select).toBeVisible();
  // The goal is where a person starts typing, even with the team picker above it.
  await expect(person.locator("#new-run-goal")).toBeFocused();
  // Only the teams where they may start runs, each with their role there.
  const options = await select.locator("option").allTextContents();
  expect(options).toEqual([`ops-${stamp} (you are operator)`, `qa-${stamp} (you are approver)`]);
  await select.selectOption(qa.id);
  await person.getByTestId("start-run").click();
  await person.waitForURL(/\/runs\/[^/?#]+$/);
  await expect(person.getByTestId("run-team")).toHaveText(`qa-${stamp} · you are approver`);

  // Next time, qa comes first.
  await person.goto("/runs");
  await person.getByTestId("new-run-button").click();
  await expect(person.getByTestId("team-select")).toHaveValue(qa.id);
  await context.close();
});
