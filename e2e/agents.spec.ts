// Agents: an admin creates an agent (instructions typed into Monaco, the
// scripted demo-coder model so it runs without a key), saves version 1, tries
// the draft on a goal with the run beside the editor, saves version 2 with a
// note, compares 1 → 2, exports and archives it. A guardrail problem is
// shown under its field, in words, as the person types; a save that someone
// else's beat says so and keeps the edits.
import fs from "node:fs/promises";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { login, navTo } from "./fixtures";

/** Monaco is several MB of code; the first load on a busy 2-core machine can take a while. */
const MONACO_LOAD = { timeout: 30_000 };

async function trpcPost<T>(request: APIRequestContext, procedure: string, input: unknown): Promise<T> {
  const res = await request.post(`/api/trpc/${procedure}`, { data: { json: input } });
  expect(res.ok(), `${procedure}: ${await res.text()}`).toBe(true);
  return (await res.json()).result.data.json as T;
}

function instructionsEditor(page: Page) {
  return page.getByTestId("instructions-editor").locator(".monaco-editor").first();
}

test("create an agent, try it, save a second version and compare the two", async ({ page }) => {
  test.setTimeout(180_000);
  await login(page);
  const name = `e2e-writer-${Date.now().toString(36)}`;

  // The list: built-in agents are marked, scripted models say so.
  await navTo(page, "agents");
  await expect(page).toHaveURL(/\/agents$/);
  const coder = page.locator('[data-testid="agent-row"][data-agent="demo-coder"]');
  await expect(coder).toContainText("Built-in");
  await expect(coder.getByTestId("scripted-badge")).toBeVisible();
  await expect(coder).toContainText("Everyone");

  await page.getByTestId("agent-new").click();
  await expect(page).toHaveURL(/\/agents\/new$/);
  await expect(page.getByRole("heading", { name: "New agent", level: 1 })).toBeVisible();

  await page.getByTestId("agent-name").fill(name);
  await page.getByTestId("agent-description").fill("Writes small programs with tests (e2e)");
  const lines = instructionsEditor(page).locator(".view-lines");
  await expect(lines).toBeVisible(MONACO_LOAD);
  await lines.click();
  await page.keyboard.type("# Role\nYou write small programs with tests.\nBe brief.");
  await expect(lines).toContainText("Be brief.");

  // The preview renders the Markdown: the heading is a heading.
  await page.getByTestId("instructions-preview-toggle").click();
  await expect(page.getByTestId("instructions-preview").getByRole("heading", { name: "Role" })).toBeVisible();
  await page.getByTestId("instructions-edit").click();
  await expect(lines).toContainText("Be brief.", MONACO_LOAD);

  await page.getByTestId("model-mode-model").check();
  await page.getByTestId("agent-model-select").selectOption("scripted/demo-coder");
  await expect(page.getByTestId("agent-form").getByTestId("scripted-badge")).toBeVisible();
  for (const tool of ["read_file", "list_files", "write_file", "shell", "update_tasks"]) {
    await page.locator(`[data-testid="tool-option"][data-tool="${tool}"] input`).check();
  }
  // Each tool says what a replay does to it.
  await expect(page.locator('[data-testid="tool-option"][data-tool="shell"] [data-testid="replay-chip"]')).toHaveAttribute(
    "data-replay",
    "unsafe_on_replay",
  );
  await expect(page.getByTestId("agent-problems")).toHaveCount(0, { timeout: 10_000 });

  await page.getByTestId("agent-save").click();
  const dialog = page.getByTestId("agent-save-dialog");
  await dialog.getByTestId("agent-change-note").fill("First version");
  await dialog.getByTestId("agent-save-confirm").click();
  await expect(page).toHaveURL(new RegExp(`/agents/${name}$`));
  await expect(page.getByTestId("agent-version-badge")).toHaveText("v1");
  await expect(page.getByTestId("agent-dirty")).toHaveCount(0);

  // Try it: the draft runs beside the editor, its timeline live.
  await page.getByTestId("try-goal").fill("Write a small FizzBuzz program and run its tests");
  await page.getByTestId("try-run").click();
  const pane = page.getByTestId("try-run-pane");
  await expect(pane).toBeVisible();
  await expect(pane.getByTestId("try-run-draft-note")).toHaveText("Draft — not saved as a version");
  await expect(pane.getByTestId("timeline-event").first()).toBeVisible({ timeout: 30_000 });
  await expect(pane.locator('[data-testid="tool-call"][data-tool="write_file"]').first()).toBeVisible({ timeout: 60_000 });
  await expect(pane).toHaveAttribute("data-status", "succeeded", { timeout: 60_000 });
  const runHref = await pane.getByTestId("try-run-open").getAttribute("href");
  expect(runHref).toMatch(/^\/runs\/.+/);

  // Version 2: one instruction line changed, saved with Ctrl+S from Monaco and a note.
  await lines.click();
  await page.keyboard.press("Control+End");
  await page.keyboard.press("Shift+Home");
  await page.keyboard.type("Be thorough: test every branch.");
  await expect(lines).toContainText("Be thorough: test every branch.");
  await expect(page.getByTestId("agent-dirty")).toBeVisible();
  await expect(page.getByTestId("agent-save")).toContainText("Save as version 2");
  await page.keyboard.press("Control+s");
  await expect(dialog).toBeVisible();
  await dialog.getByTestId("agent-change-note").fill("Ask for thorough tests");
  await dialog.getByTestId("agent-change-note").press("Enter");
  await expect(page.getByTestId("agent-notice")).toHaveText("Saved as version 2.");
  await expect(page.getByTestId("agent-version-badge")).toHaveText("v2");

  // Versions: both listed with their notes; the default comparison is 1 → 2.
  await page.getByTestId("agent-tab-versions").click();
  const versions = page.getByTestId("agent-version");
  await expect(versions).toHaveCount(2);
  await expect(versions.first()).toHaveAttribute("data-version", "2");
  await expect(versions.first()).toContainText("Ask for thorough tests");
  await expect(versions.nth(1)).toContainText("First version");
  const diffLines = page.getByTestId("agent-diff-instructions");
  await expect(page.getByTestId("agent-diff")).toContainText("Version 1 → version 2");
  const removed = diffLines.locator('[data-kind="del"]');
  const added = diffLines.locator('[data-kind="add"]');
  await expect(removed).toHaveCount(1);
  await expect(removed).toContainText("−");
  await expect(removed).toContainText("Be brief.");
  await expect(added).toHaveCount(1);
  await expect(added).toContainText("+");
  await expect(added).toContainText("Be thorough: test every branch.");
  await expect(diffLines.locator('[data-kind="same"]').filter({ hasText: "# Role" })).toHaveCount(1);

  // The tried run says it ran a draft, not a saved version.
  await page.goto(runHref!);
  await expect(page.getByTestId("run-agent")).toContainText(name);
  await expect(page.getByTestId("run-agent-draft")).toHaveText("draft");

  // Archived agents leave the list until "Show archived".
  await page.goto("/agents");
  const row = page.locator(`[data-testid="agent-row"][data-agent="${name}"]`);
  await expect(row).toContainText("v2");
  // Export YAML downloads the spec as a file named after the agent.
  const download = page.waitForEvent("download");
  await row.getByTestId(`agent-export-${name}`).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(new RegExp(`^${name}(\\.agent)?\\.yaml$`));
  expect(await fs.readFile((await file.path())!, "utf8")).toContain("Be thorough: test every branch.");
  await row.getByTestId(`agent-archive-${name}`).click();
  await page.getByTestId("confirm-dialog-confirm").click();
  await expect(row).toHaveCount(0);
  await page.getByTestId("agents-show-archived").check();
  await expect(row).toContainText("Archived");
});

test("a guardrail problem is shown under its field in words, and goes once it is fixed", async ({ page }) => {
  test.setTimeout(90_000);
  await login(page);
  await page.goto("/agents/new");
  await page.getByTestId("agent-name").fill(`e2e-limits-${Date.now().toString(36)}`);
  await page.getByTestId("agent-call-cap").fill("100");

  const problem = page.locator('[data-testid="field-problem"][data-field="guardrails.callCap"]');
  await expect(problem).toHaveText("The call cap over 50 needs a cost ceiling", { timeout: 15_000 });
  await expect(page.getByTestId("agent-call-cap")).toHaveAttribute("aria-invalid", "true");
  // The summary at the top lists it with the field's name, beside the other problems (no instructions yet).
  const summary = page.getByTestId("agent-problems");
  await expect(summary.locator('[data-field="guardrails.callCap"]')).toHaveText("Call cap: The call cap over 50 needs a cost ceiling");
  await expect(summary.locator('[data-field="instructions"]')).toBeVisible();

  await page.getByTestId("agent-cost-ceiling").fill("5");
  await expect(problem).toHaveCount(0, { timeout: 15_000 });
  await expect(page.getByTestId("agent-call-cap")).not.toHaveAttribute("aria-invalid", "true");
});

test("saving after someone else saved says so, keeps the edits, and can save over it", async ({ page }) => {
  test.setTimeout(90_000);
  await login(page);
  const name = `e2e-conflict-${Date.now().toString(36)}`;
  const spec = {
    name,
    description: "Original",
    instructions: "Do the thing.",
    model: "scripted/demo-coder",
    taskClass: "code",
    tools: ["read_file"],
    handoffs: [],
    guardrails: {},
    tier: "T1",
    secrets: [],
    teamId: null,
  };
  await trpcPost(page.request, "agents.create", { spec, changeNote: "Created by the test" });

  await page.goto(`/agents/${name}`);
  await expect(page.getByTestId("agent-version-badge")).toHaveText("v1");
  await page.getByTestId("agent-description").fill("Mine");
  // Meanwhile someone else saves version 2.
  await trpcPost(page.request, "agents.save", {
    name,
    spec: { ...spec, description: "Theirs" },
    changeNote: "Their change",
    baseVersion: 1,
  });

  await page.getByTestId("agent-save").click();
  const dialog = page.getByTestId("agent-save-dialog");
  await dialog.getByTestId("agent-change-note").fill("My change");
  await dialog.getByTestId("agent-save-confirm").click();
  await expect(dialog.getByTestId("agent-conflict")).toContainText("version 2 is the latest");
  await expect(dialog.getByTestId("agent-conflict")).toContainText("Your edits are still here");
  await expect(page.getByTestId("agent-description")).toHaveValue("Mine");

  await dialog.getByTestId("agent-save-over").click();
  await expect(page.getByTestId("agent-notice")).toHaveText("Saved as version 3.");
  await expect(page.getByTestId("agent-description")).toHaveValue("Mine");
  await page.getByTestId("agent-tab-versions").click();
  await expect(page.getByTestId("agent-version").first()).toContainText("My change");
});
