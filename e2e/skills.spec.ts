// Skills: the admin writes a SKILL.md in the editor (typed into Monaco), sees
// a problem named with its line for a bad name and gone once fixed, saves
// version 1, finds it in the list, saves an edit as version 2 and sees both
// versions on its page.
import { expect, test, type Page } from "@playwright/test";
import { login, navTo } from "./fixtures";

/** Monaco is several MB of code; the first load on a busy 2-core machine can take a while. */
const MONACO_LOAD = { timeout: 30_000 };
/** The check runs a moment after typing stops. */
const CHECKED = { timeout: 15_000 };

/** A flat SKILL.md (no indented keys, no brackets) so Monaco's auto-indent and auto-close change nothing as it is typed. */
const skillMd = (name: string) => `---
name: ${name}
description: Read CSV files whose fields hold quoted commas; use it when a column sum comes out wrong.
---
# Quoted CSV

Split on commas outside quotes only.`;

function editorLines(page: Page) {
  return page.getByTestId("skill-editor").locator(".monaco-editor .view-lines").first();
}

async function replaceText(page: Page, text: string) {
  const lines = editorLines(page);
  await lines.click();
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Delete");
  await page.keyboard.type(text);
}

test("write a skill, fix a bad name, save it, edit it as version 2", async ({ page }) => {
  test.setTimeout(180_000);
  await login(page);
  const name = `e2e-csv-${Date.now().toString(36)}`;

  await navTo(page, "skills");
  await expect(page).toHaveURL(/\/skills$/);
  await page.getByTestId("skill-new").first().click();
  await expect(page).toHaveURL(/\/skills\/new$/);
  await expect(page.getByRole("heading", { name: "New skill", level: 1 })).toBeVisible();
  await expect(editorLines(page)).toBeVisible(MONACO_LOAD);
  // The template is a valid skill to start from.
  await expect(editorLines(page)).toContainText("name: my-skill");
  await expect(page.getByTestId("skill-validation")).toHaveAttribute("data-status", "ok", CHECKED);

  // A name with capitals is a problem on line 2, and Save says to fix it.
  await replaceText(page, skillMd("Bad_Name"));
  const problem = page.getByTestId("skill-problem");
  await expect(problem).toHaveCount(1, CHECKED);
  await expect(problem).toHaveAttribute("data-line", "2");
  await expect(problem).toContainText('line 2: name "Bad_Name" is not valid');
  await expect(page.getByTestId("skill-validation")).toHaveAttribute("data-status", "invalid");
  await expect(page.getByTestId("skill-save")).toBeDisabled();
  await expect(page.getByTestId("skill-save")).toHaveAttribute("title", "Fix the problems first");

  // Fixed, the problem goes away.
  await replaceText(page, skillMd(name));
  await expect(page.getByTestId("skill-validation")).toHaveAttribute("data-status", "ok", CHECKED);
  await expect(problem).toHaveCount(0);
  await expect(page.getByTestId("skill-validation")).toContainText(name);

  await page.getByTestId("skill-save").click();
  await expect(page).toHaveURL(new RegExp(`/skills/${name}$`));
  await expect(page.getByTestId("skill-title")).toHaveText(`${name} v1`);
  await expect(page.getByTestId("skill-state").first()).toHaveText("active");

  // The list has it, at version 1, written by the admin, with no runs yet.
  await navTo(page, "skills");
  const row = page.locator(`[data-testid="skill-row"][data-name="${name}"]`);
  await expect(row).toBeVisible();
  await expect(row).toHaveAttribute("data-version", "1");
  await expect(row.getByTestId("skill-state")).toHaveText("active");
  await expect(row.getByTestId("skill-outcomes")).toContainText("(0 runs)");

  // Edit: one more line, saved as version 2.
  await row.getByTestId("skill-open").click();
  await expect(page).toHaveURL(new RegExp(`/skills/${name}$`));
  await expect(editorLines(page)).toContainText("Split on commas outside quotes only.", MONACO_LOAD);
  await expect(page.getByTestId("skill-save")).toBeDisabled(); // nothing changed yet
  await editorLines(page).click();
  await page.keyboard.press("ControlOrMeta+End");
  await page.keyboard.type("\nA doubled quote inside quotes is one quote.");
  await expect(page.getByTestId("skill-validation")).toHaveAttribute("data-status", "ok", CHECKED);
  await page.getByTestId("skill-save").click();
  await expect(page.getByTestId("skill-title")).toHaveText(`${name} v2`);

  const versions = page.getByTestId("skill-version");
  await expect(versions).toHaveCount(2);
  await expect(page.locator('[data-testid="skill-version"][data-version="2"]')).toHaveAttribute("data-state", "active");
  await expect(page.locator('[data-testid="skill-version"][data-version="1"]')).toHaveAttribute("data-state", "superseded");
  await expect(page.locator('[data-testid="skill-version"][data-version="2"]')).toContainText("written by");

  // The list shows version 2 too.
  await navTo(page, "skills");
  await expect(page.locator(`[data-testid="skill-row"][data-name="${name}"]`)).toHaveAttribute("data-version", "2");
});

test("Settings → Improvements: a bad time box is refused in words; a good one and workspace:read are saved", async ({ page }) => {
  await login(page);
  await page.goto("/settings/improvements");
  await expect(page.getByTestId("settings-nav").getByRole("link", { name: /Improvements/ })).toHaveAttribute("aria-current", "page");
  const timeBox = page.getByTestId("settings-time-box");
  const capability = page.locator('[data-testid="settings-capability"][data-capability="workspace:read"]');
  const save = page.getByTestId("settings-save");
  await expect(timeBox).toHaveValue("5");
  await expect(capability).not.toBeChecked();
  await expect(save).toBeDisabled();

  await timeBox.fill("0.1");
  await expect(page.getByText("From 0.5 minutes (30 seconds) to 60 minutes")).toBeVisible();
  await expect(save).toBeDisabled();

  await timeBox.fill("10");
  await capability.check();
  await save.click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
  await page.reload();
  await expect(timeBox).toHaveValue("10");
  await expect(capability).toBeChecked();

  // Back to the defaults the other specs expect.
  await timeBox.fill("5");
  await capability.uncheck();
  await save.click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
});
