// What scripts/e2e-server.mjs starts the server with; specs log in with these.
export const ADMIN_EMAIL = "admin@rein.test";
export const ADMIN_PASSWORD = "rein-e2e-password";

import { expect, test, type Cookie, type Page } from "@playwright/test";

/**
 * The server the running test's project talks to: each project of playwright.config.ts has a
 * server of its own (docs/development.md#browser-tests).
 */
export function baseUrl(): string {
  const url = test.info().project.use.baseURL;
  if (!url) throw new Error("The Playwright project has no baseURL (playwright.config.ts)");
  return url;
}

/** Where e2e/slack.spec.ts runs its fake Slack Web API: its server's port + 7, where scripts/e2e-server.mjs points Rein. */
export function fakeSlackPort(): number {
  return Number(new URL(baseUrl()).port) + 7;
}

/**
 * The admin's session on the shared server, kept by each worker process after its first login: a
 * test's fresh browser context is given these cookies instead of going through the form again.
 */
let adminSession: Cookie[] | null = null;

/**
 * Logs in as the e2e admin (on another server than the shared one when `origin`
 * is given) and waits for the runs list, with room for a first page that is
 * slow to come up on a busy machine. On the shared server a session from an
 * earlier test is reused; the login form is the fallback when there is none
 * or the server refuses it.
 */
export async function login(page: Page, origin = "") {
  if (!origin && adminSession) {
    await page.context().addCookies(adminSession);
    await page.goto("/runs");
    if (/\/runs$/.test(page.url())) {
      // Ready as after the form: the page knows its person (the New run button waits for them).
      await expect(page.getByTestId("new-run-button").first()).toBeEnabled({ timeout: 30_000 });
      return;
    }
    await page.context().clearCookies();
  }
  await page.goto(`${origin}/login`);
  await page.getByLabel("Email").fill(ADMIN_EMAIL);
  await page.getByLabel("Password").fill(ADMIN_PASSWORD);
  await page.getByTestId("login-submit").click();
  await expect(page).toHaveURL(/\/runs$/, { timeout: 30_000 });
  if (!origin) adminSession = await page.context().cookies();
}

/** A tRPC mutation as the page's logged-in person; fails the test with the server's answer when it is refused. */
/** The top bar's groups (components/top-nav.tsx): a page in a group is reached through its menu. */
const NAV_GROUP_OF: Record<string, string> = {
  agents: "build",
  evals: "build",
  skills: "build",
  memory: "build",
  improvements: "improve",
  extensions: "improve",
  traces: "observe",
  costs: "observe",
  audit: "observe",
};

/** Opens a page from the top bar as a person would: its group's menu first, when it has one. */
export async function navTo(page: Page, name: string) {
  const group = NAV_GROUP_OF[name];
  if (group) await page.getByTestId(`nav-group-${group}`).click();
  await page.getByTestId(`nav-${name}`).click();
}

export async function trpcPost<T>(page: Page, procedure: string, input: unknown): Promise<T> {
  const res = await page.request.post(`/api/trpc/${procedure}`, { data: { json: input } });
  expect(res.ok(), `${procedure}: ${await res.text()}`).toBe(true);
  return ((await res.json()) as { result: { data: { json: T } } }).result.data.json;
}

/** A tRPC query as the page's logged-in person. */
export async function trpcGet<T>(page: Page, procedure: string, input?: unknown): Promise<T> {
  const query = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;
  const res = await page.request.get(`/api/trpc/${procedure}${query}`);
  expect(res.ok(), `${procedure}: ${await res.text()}`).toBe(true);
  return ((await res.json()) as { result: { data: { json: T } } }).result.data.json;
}
