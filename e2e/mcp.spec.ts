// MCP servers (docs/mcp.md): an admin adds the bundled demo server from
// Settings › MCP servers, sees it ready with its tools (all off), turns three
// of them on, and a run of the demo-mcp agent calls them through the policy
// gate: the echo call and its answer appear in the timeline and the run
// succeeds. The add dialog shows the server's problems beside their fields;
// a tool whose definition changes is off until an admin reviews the
// difference. Every server a test adds is removed again at its end.
import { expect, test } from "@playwright/test";
import { SHIFTED_DESCRIPTION, SHIFTY_STDIO } from "../test/helpers/mcp";
import { login, trpcPost } from "./fixtures";

const TOOLS = ["echo", "get-sum", "trigger-long-running-operation"];

test("an admin adds the demo MCP server, turns three tools on, and the demo-mcp agent calls them", async ({ page }) => {
  test.setTimeout(180_000);
  await login(page);
  try {
    await page.goto("/settings");
    await page.getByTestId("settings-nav").getByRole("link", { name: "MCP servers" }).click();
    await expect(page).toHaveURL(/\/settings\/mcp$/);
    await expect(page.getByRole("heading", { name: "No MCP servers yet" })).toBeVisible();

    // One click, offline: the reference server starts in the sandbox and its tools are read.
    await page.getByRole("button", { name: "Add the demo server" }).click();
    await expect(page).toHaveURL(/\/settings\/mcp\/everything$/, { timeout: 60_000 });
    await expect(page.getByTestId("mcp-health")).toHaveText("ready", { timeout: 30_000 });
    await expect(page.getByTestId("mcp-server-info")).toContainText("protocol", { ignoreCase: true });
    const table = page.getByTestId("mcp-tools-table");
    for (const tool of TOOLS) {
      const row = table.locator(`[data-testid="mcp-tool-row"][data-tool="${tool}"]`);
      await expect(row).toHaveAttribute("data-state", "disabled");
      await expect(row).toContainText(`everything__${tool}`);
      await expect(row).toContainText(`mcp:everything/${tool}`);
    }

    for (const tool of TOOLS) {
      // The switch follows the server: it turns on once the change is saved.
      const toggle = page.getByRole("switch", { name: `Enable ${tool}` });
      await expect(toggle).not.toBeChecked();
      await toggle.click();
      await expect(table.locator(`[data-testid="mcp-tool-row"][data-tool="${tool}"]`)).toHaveAttribute("data-state", "enabled");
      await expect(toggle).toBeChecked();
    }
    await expect(table.locator(`[data-tool="echo"] [data-testid="mcp-tool-scope"]`)).toHaveText("All agents · All teams");

    // The list says how many are on.
    await page.getByRole("link", { name: "← MCP servers" }).click();
    const listed = page.locator('[data-testid="mcp-server-row"][data-server="everything"]');
    await expect(listed).toContainText("3 / ");
    await expect(listed.getByTestId("mcp-health")).toHaveText("ready");

    // A run of demo-mcp calls the three tools through the gate.
    const run = await trpcPost<{ id: string }>(page, "runs.create", { goal: "Try the demo MCP server's tools", agent: "demo-mcp" });
    await page.goto(`/runs/${run.id}`);
    await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 60_000 });
    const call = page.locator('[data-testid="tool-call"][data-tool="everything__echo"]');
    await expect(call).toBeVisible();
    await expect(call.getByTestId("mcp-chip")).toHaveText("MCP");
    const result = page.locator('[data-testid="tool-result"][data-tool="everything__echo"]');
    await expect(result).toHaveAttribute("data-ok", "true");
    await expect(result).toContainText("Hello from Rein");
    await expect(page.locator('[data-testid="tool-result"][data-tool="everything__get-sum"]')).toContainText("42");
    await expect(page.locator('[data-testid="tool-result"][data-tool="everything__trigger-long-running-operation"]')).toHaveAttribute(
      "data-ok",
      "true",
    );

    // A longer operation: its progress shows live on the call while it runs.
    const slow = await trpcPost<{ id: string }>(page, "runs.create", {
      goal: "Run a slow operation on the demo MCP server",
      agent: "demo-mcp",
      scenario: [
        { toolCalls: [{ tool: "everything__trigger-long-running-operation", args: { duration: 8, steps: 4 } }] },
        { text: "done" },
      ],
    });
    await page.goto(`/runs/${slow.id}`);
    const slowCall = page.locator('[data-testid="tool-call"][data-tool="everything__trigger-long-running-operation"]');
    await expect(slowCall.getByTestId("tool-progress-text")).toHaveText(/^[1-3] \/ 4/, { timeout: 8_000 });
    await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 30_000 });
    await expect(slowCall.getByTestId("tool-progress")).toHaveCount(0);
  } finally {
    await trpcPost(page, "mcp.remove", { name: "everything" }).catch(() => {});
  }
});

test("the add dialog names each bad field; an unreachable HTTP server shows why it failed; removing asks first", async ({ page }) => {
  await login(page);
  try {
    await page.goto("/settings/mcp");
    await page.getByRole("button", { name: "Add a server" }).first().click();
    const dialog = page.getByTestId("mcp-add-dialog");
    await dialog.getByLabel("Name").fill("Bad Name");
    await dialog.getByLabel("Command").fill("bash");
    await dialog.getByRole("button", { name: "Add server" }).click();
    await expect(dialog.getByTestId("mcp-name-error")).toContainText("lower-case letters");
    await expect(dialog.getByTestId("mcp-command-error")).toContainText('"node" or an absolute path under /usr');

    await dialog.getByLabel("Name").fill("unreachable");
    await dialog.getByLabel("Streamable HTTP").check();
    await dialog.getByLabel("URL").fill("http://127.0.0.1:9/mcp");
    await dialog.getByRole("button", { name: "Add server" }).click();
    await expect(page).toHaveURL(/\/settings\/mcp\/unreachable$/);
    await expect(page.getByTestId("mcp-health")).toHaveText("failed");
    await expect(page.getByTestId("mcp-reason")).not.toBeEmpty();

    await page.getByRole("button", { name: "Remove", exact: true }).click();
    await page.getByTestId("confirm-dialog-confirm").click();
    await expect(page).toHaveURL(/\/settings\/mcp$/);
    await expect(page.locator('[data-testid="mcp-server-row"][data-server="unreachable"]')).toHaveCount(0);
  } finally {
    await trpcPost(page, "mcp.remove", { name: "unreachable" }).catch(() => {});
  }
});

test("a tool whose definition changed is off until an admin reviews the difference and accepts it", async ({ page }) => {
  test.setTimeout(120_000);
  await login(page);
  try {
    await trpcPost(page, "mcp.add", { name: "shifty", transport: "stdio", stdio: SHIFTY_STDIO });
    await page.goto("/settings/mcp/shifty");
    await expect(page.getByTestId("mcp-health")).toHaveText("ready");
    const row = page.locator('[data-testid="mcp-tool-row"][data-tool="lookup"]');
    await page.getByRole("switch", { name: "Enable lookup" }).click();
    await expect(row).toHaveAttribute("data-state", "enabled");

    // Restarted, the server describes lookup differently: it goes off and waits for a review.
    await page.getByRole("button", { name: "Test (restart)" }).click();
    await expect(row).toHaveAttribute("data-state", "changed", { timeout: 30_000 });
    await expect(page.getByRole("switch", { name: "Enable lookup" })).toHaveCount(0);
    await expect(page.getByTestId("mcp-reviews-badge")).toHaveText("1");

    await row.getByRole("button", { name: "Review change" }).click();
    const dialog = page.getByTestId("mcp-review-dialog");
    await expect(dialog.getByTestId("mcp-review-pinned")).toContainText('"description": "Look up a customer by id"');
    await expect(dialog.getByTestId("mcp-review-new")).toContainText(SHIFTED_DESCRIPTION);
    await dialog.getByRole("button", { name: "Accept the new definition" }).click();
    await expect(row).toHaveAttribute("data-state", "enabled");
    await expect(row).toContainText("evil.example");
    await expect(page.getByRole("switch", { name: "Enable lookup" })).toBeChecked();
  } finally {
    await trpcPost(page, "mcp.remove", { name: "shifty" }).catch(() => {});
  }
});
