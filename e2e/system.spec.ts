import { expect, test } from "@playwright/test";
import { login, trpcGet, trpcPost } from "./fixtures";

interface Deployment {
  mode: string;
  processes: Array<{ id: string; pid: number; host: string; role: string; self: boolean }>;
}

test("an admin opens Settings › System and sees this process, role all, beating", async ({ page }) => {
  await login(page);
  await page.getByRole("link", { name: "Settings" }).click();
  await page
    .getByTestId("settings-nav")
    .getByRole("link", { name: /System/ })
    .click();
  await expect(page).toHaveURL(/\/settings\/system$/);
  await expect(page.getByRole("heading", { name: "System", level: 1 })).toBeVisible();

  const api = await trpcGet<Deployment>(page, "system.processes");
  expect(api.mode).toBe("one-process");
  expect(api.processes).toHaveLength(1);
  const me = api.processes[0];

  const overview = page.getByTestId("system-overview");
  await expect(overview).toHaveAttribute("data-mode", "one-process");
  await expect(page.getByTestId("system-one-process")).toHaveText(
    "Rein runs in one process. To spread runs over several machines, see docs/several-machines.md.",
  );

  const rows = page.getByTestId("system-process-row");
  await expect(rows).toHaveCount(1);
  const row = rows.first();
  await expect(row).toHaveAttribute("data-self", "true");
  await expect(row.getByTestId("system-role")).toHaveText("all");
  await expect(row.getByTestId("system-state")).toHaveText("running");
  await expect(row).toContainText(me.host);
  await expect(row).toContainText(String(me.pid));
  await expect(page.getByTestId("system-summary")).toHaveText("1 process: 1 all-in-one");

  // The page asks again every two seconds: the heartbeat never grows old while the process lives.
  const beat = row.getByTestId("system-heartbeat");
  await expect(beat).toHaveText(/^\d+ s ago$/);
  await page.waitForTimeout(5_000);
  await expect(beat).toHaveText(/^[0-3] s ago$/);
});

test("a viewer has no System entry and the page says it needs the admin role", async ({ page, browser, baseURL }) => {
  await login(page);
  const email = `viewer-${Date.now().toString(36)}@rein.test`;
  await trpcPost(page, "users.create", { email, name: "Vera Viewer", password: "viewer-password-1", role: "viewer" });

  const theirs = await browser.newContext({ baseURL, extraHTTPHeaders: { origin: baseURL! } });
  try {
    const them = await theirs.newPage();
    await them.goto("/login");
    await them.getByLabel("Email").fill(email);
    await them.getByLabel("Password").fill("viewer-password-1");
    await them.getByTestId("login-submit").click();
    await expect(them).toHaveURL(/\/runs$/);
    await them.goto("/settings/tokens");
    await expect(them.getByTestId("settings-nav").getByRole("link", { name: "Teams" })).toBeVisible();
    await expect(them.getByTestId("settings-nav").getByRole("link", { name: /System/ })).toHaveCount(0);

    await them.goto("/settings/system");
    await expect(them.getByRole("heading", { name: "System needs the admin role" })).toBeVisible();
    await expect(them.getByTestId("system-processes")).toHaveCount(0);
    const res = await them.request.get("/api/trpc/system.processes");
    expect(res.status()).toBe(403);
  } finally {
    await theirs.close();
  }
});
