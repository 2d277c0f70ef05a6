import { expect, test, type Page } from "@playwright/test";
import { ADMIN_EMAIL, ADMIN_PASSWORD } from "./fixtures";

async function fillLogin(page: Page, email: string, password: string) {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByTestId("login-submit").click();
}

test("visiting /runs logged out redirects to the login page", async ({ page }) => {
  await page.goto("/runs");
  await expect(page).toHaveURL(/\/login\?next=%2Fruns$/);
  await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();
  await expect(page.getByText("The first admin's credentials were printed when the server started")).toBeVisible();
});

test("a wrong password shows an error and stays on the login page", async ({ page }) => {
  await page.goto("/login?next=%2Fruns");
  await fillLogin(page, ADMIN_EMAIL, "not-the-password");
  await expect(page.getByTestId("login-error")).toHaveText("Wrong email or password");
  await expect(page).toHaveURL(/\/login/);
  await expect(page.getByTestId("login-submit")).toBeEnabled();

  // The tRPC API refuses the browser too: no session was created.
  const me = await page.request.get("/api/trpc/identity.me");
  expect(me.status()).toBe(401);
});

test("guessing a password is slowed down: after a few wrong ones the page says how long to wait", async ({ page }) => {
  // An account of its own: the throttle is per account (and per address, which the other tests share but seldom fail from).
  const email = `guessed-${Date.now()}@rein.test`;
  await page.goto("/login");
  let message = "";
  for (let i = 0; i < 8 && !message.startsWith("Too many"); i++) {
    await fillLogin(page, email, `guess-${i}`);
    await expect(page.getByTestId("login-submit")).toBeEnabled();
    message = (await page.getByTestId("login-error").textContent()) ?? "";
  }
  expect(message).toMatch(/^Too many failed attempts; try again in \d+ seconds$/);
});

test("the right password lands on /runs; logging out ends the session", async ({ page }) => {
  await page.goto("/runs");
  await fillLogin(page, ADMIN_EMAIL, ADMIN_PASSWORD);
  await expect(page).toHaveURL(/\/runs$/);
  await expect(page.getByRole("heading", { name: "Runs", exact: true })).toBeVisible();
  // People by name, the e-mail on hover.
  await expect(page.getByTestId("user-name")).toHaveText("Admin");
  await expect(page.getByTestId("user-menu")).toHaveAttribute("title", ADMIN_EMAIL);
  await expect(page.getByTestId("user-role")).toHaveText("admin");

  await page.getByTestId("user-menu").click();
  await page.getByTestId("logout").click();
  await expect(page).toHaveURL(/\/login/);
  await page.goto("/agents");
  await expect(page).toHaveURL(/\/login\?next=%2Fagents$/);
});

test("after logging in the user returns to the page they asked for, never to another site", async ({ page }) => {
  await page.goto("/agents");
  await fillLogin(page, ADMIN_EMAIL, ADMIN_PASSWORD);
  await expect(page).toHaveURL(/\/agents$/);
  await expect(page.getByTestId("agent-row").first()).toBeVisible();

  // Off Rein's pages first: a page whose session goes away sends itself to the login page, which would race this navigation.
  await page.goto("about:blank");
  await page.context().clearCookies();
  await page.goto("/login?next=" + encodeURIComponent("//example.com/steal"));
  await fillLogin(page, ADMIN_EMAIL, ADMIN_PASSWORD);
  await expect(page).toHaveURL(/localhost:\d+\/runs$/);
});

test("a viewer can watch runs but cannot start or steer them", async ({ page, browser }) => {
  await page.goto("/login");
  await fillLogin(page, ADMIN_EMAIL, ADMIN_PASSWORD);
  await expect(page).toHaveURL(/\/runs$/);

  // The admin adds a viewer and starts a long run through tRPC.
  const email = `viewer-${Date.now().toString(36)}@rein.test`;
  const password = "viewer-password-1";
  const user = await page.request.post("/api/trpc/users.create", { data: { json: { email, password, role: "viewer" } } });
  expect(user.ok(), await user.text()).toBe(true);
  const scenario = { turns: [{ text: "Working", toolCalls: [{ tool: "shell", args: { command: "sleep 30" } }] }, { text: "Done" }] };
  const created = await page.request.post("/api/trpc/runs.create", {
    data: { json: { agent: "demo-coder", goal: "A run the viewer watches", scenario } },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const runId: string = (await created.json()).result.data.json.id;

  const context = await browser.newContext();
  try {
    const viewer = await context.newPage();
    await viewer.goto("/runs");
    await fillLogin(viewer, email, password);
    await expect(viewer).toHaveURL(/\/runs$/);
    await expect(viewer.getByTestId("user-role")).toHaveText("viewer");
    await expect(viewer.getByTestId("new-run-button")).toBeDisabled();
    await expect(viewer.getByTestId("new-run-button")).toHaveAttribute("title", /operator role/);
    await viewer.keyboard.press("n");
    await expect(viewer.getByTestId("new-run-dialog")).not.toBeVisible();

    await viewer.goto(`/runs/${runId}`);
    await expect(viewer.getByTestId("run-status")).toHaveText("running", { timeout: 15_000 });
    await expect(viewer.getByTestId("pause-run")).toBeDisabled();
    await expect(viewer.getByTestId("cancel-run")).toBeDisabled();
    await expect(viewer.getByTestId("export-scenario")).toBeEnabled();
  } finally {
    await context.close();
    await page.request.post("/api/trpc/runs.cancel", { data: { json: { id: runId } } });
  }
});
