// What scripts/e2e-server.mjs starts the server with; specs log in with these.
export const BASE_URL = `http://localhost:${Number(process.env.REIN_E2E_PORT) || 3100}`;
export const ADMIN_EMAIL = "admin@rein.test";
export const ADMIN_PASSWORD = "rein-e2e-password";
/** Where e2e/slack.spec.ts runs its fake Slack Web API (scripts/e2e-server.mjs points Rein at it). */
export const FAKE_SLACK_PORT = (Number(process.env.REIN_E2E_PORT) || 3100) + 7;

import { expect, type Page } from "@playwright/test";

/**
 * Logs in as the e2e admin (on another server than the shared one when `origin`
 * is given) and waits for the runs list, with room for a first page that is
 * slow to come up on a busy machine.
 */
export async function login(page: Page, origin = "") {
  await page.goto(`${origin}/login`);
  await page.getByLabel("Email").fill(ADMIN_EMAIL);
  await page.getByLabel("Password").fill(ADMIN_PASSWORD);
  await page.getByTestId("login-submit").click();
  await expect(page).toHaveURL(/\/runs$/, { timeout: 30_000 });
}

/** A tRPC mutation as the page's logged-in person; fails the test with the server's answer when it is refused. */
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
