// OAuth for a hosted MCP server (docs/mcp.md#oauth), in a real browser: an
// admin adds an HTTP server with OAuth on, presses Authorize, consents on the
// authorization server's own page (test/helpers/oauth-mcp-server.ts, written
// from the RFCs), and comes back to the server's page, which now says Rein is
// authorized, by whom, and shows the server ready with its tools.
import { expect, test } from "@playwright/test";
import { startOAuthMcpServer, type OAuthMcpServer } from "../test/helpers/oauth-mcp-server";
import { login, trpcPost } from "./fixtures";

let as: OAuthMcpServer;
test.beforeAll(async () => {
  as = await startOAuthMcpServer();
  as.setConsent("form");
});
test.afterAll(async () => {
  await as.close();
});

test("an admin authorizes Rein at a hosted MCP server through its own consent page and comes back authorized", async ({ page }) => {
  await login(page);
  try {
    await page.goto("/settings/mcp");
    await page.getByRole("button", { name: "Add a server" }).first().click();
    const dialog = page.getByTestId("mcp-add-dialog");
    await dialog.getByLabel("Name").fill("hosted");
    await dialog.getByLabel("Streamable HTTP").check();
    await dialog.getByLabel("URL").fill(as.mcpUrl);
    await dialog.getByTestId("mcp-oauth").check();
    await dialog.getByLabel("Authorization server (optional)").fill(as.issuer);
    await dialog.getByRole("button", { name: "Add server" }).click();
    await expect(page).toHaveURL(/\/settings\/mcp\/hosted$/);
    await expect(page.getByTestId("mcp-health")).toHaveText("failed");
    await expect(page.getByTestId("mcp-reason")).toContainText("Authorize");
    await expect(page.getByTestId("mcp-oauth-status")).toHaveText("Not authorized yet");

    let callback = "";
    page.on("request", (r) => void (r.url().includes("/api/mcp/oauth/callback") && (callback = r.url())));
    await page.getByTestId("mcp-oauth-authorize").click();
    // The authorization server's own page, on its own origin.
    await expect(page).toHaveURL(new RegExp(`^${as.issuer}/authorize`));
    await expect(page.getByRole("heading", { name: /Authorize Rein/ })).toBeVisible();
    await page.getByRole("button", { name: "Allow" }).click();

    await expect(page).toHaveURL(/\/settings\/mcp\/hosted\?oauth=authorized$/);
    await expect(page.getByTestId("mcp-oauth-status")).toHaveText("Authorized");
    await expect(page.getByTestId("mcp-oauth-done")).toBeVisible();
    await expect(page.getByTestId("mcp-oauth-by")).toContainText("Admin");
    await expect(page.getByTestId("mcp-health")).toHaveText("ready");
    await expect(page.locator('[data-testid="mcp-tool-row"][data-tool="echo"]')).toBeVisible();

    // The same answer again (a back button, a shared link) is refused in words, and nothing changes.
    const used = as.log.grants.length;
    expect(callback).toContain("state=");
    await page.goto(callback);
    await expect(page.getByTestId("oauth-callback-error")).toContainText("press Authorize again");
    expect(as.log.grants.length).toBe(used);
  } finally {
    await trpcPost(page, "mcp.remove", { name: "hosted" }).catch(() => {});
  }
});
