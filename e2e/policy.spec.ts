// Settings › Policy and the Audit log: an admin breaks the policy and sees the
// error on its line, previews a git push (ask), saves a new version with a
// comment, and finds the policy.updated entry in the audit log.
import { expect, test } from "@playwright/test";
import { login, navTo } from "./fixtures";

/** Monaco is several MB of code; the first load on a busy 2-core machine can take a while. */
const MONACO_LOAD = { timeout: 30_000 };

test("edit, validate, preview and save the policy; the save is in the audit log", async ({ page }) => {
  test.setTimeout(120_000);
  await login(page);

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
  await expect(page).toHaveURL(/\/settings\/tokens$/);
  await page
    .getByTestId("settings-nav")
    .getByRole("link", { name: /Policy/ })
    .click();
  await expect(page).toHaveURL(/\/settings\/policy$/);
  await expect(page.getByRole("heading", { name: "Policy", level: 1 })).toBeVisible();
  // The rules are the default view; this test edits the YAML.
  await page.getByTestId("policy-view-yaml").click();

  const editor = page.getByTestId("policy-editor").locator(".monaco-editor").first();
  const lines = editor.locator(".view-lines");
  await expect(lines).toContainText("# Rein tool policy", MONACO_LOAD);
  const validation = page.getByTestId("policy-validation");
  await expect(validation).toContainText("Valid · 11 rules");
  await expect(page.getByTestId("policy-save")).toBeDisabled();
  await expect(page.getByTestId("policy-dirty")).toHaveCount(0);
  // The history lists the active version (on a new installation, the default policy).
  await expect(page.getByTestId("policy-version").first()).toContainText("active");

  // An unknown key at the end of the document: the error names it and its line, and Monaco marks the line.
  await lines.click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("bogus: 1");
  await expect(lines).toContainText("bogus: 1");
  // The editor's own number for the cursor's line, which holds the new text.
  const bogusLine = Number(await editor.locator(".line-numbers.active-line-number").textContent());
  expect(bogusLine).toBeGreaterThan(40);
  await expect(page.getByTestId("policy-dirty")).toBeVisible();
  await expect(validation).toHaveAttribute("data-status", "invalid");
  const error = page.getByTestId("policy-error");
  await expect(error).toHaveCount(1);
  await expect(error).toContainText(`Line ${bogusLine}`);
  await expect(error).toContainText('unknown key "bogus"; allowed: rules');
  await expect(editor.locator(".squiggly-error").first()).toBeAttached();
  await expect(page.getByTestId("policy-save")).toBeDisabled();

  // Discarding the edit brings back the saved text.
  await page.getByTestId("policy-revert").click();
  await expect(validation).toContainText("Valid · 11 rules");
  await expect(page.getByTestId("policy-dirty")).toHaveCount(0);

  // Preview: a git push through the shell is asked about (the default form is that call).
  await expect(page.getByTestId("preview-tool")).toHaveValue("shell");
  await page.getByTestId("preview-args").fill('{ "command": "git push origin main" }');
  await page.getByTestId("preview-submit").click();
  const verdict = page.getByTestId("policy-verdict");
  await expect(verdict.getByTestId("verdict-effect")).toHaveText("ask");
  await expect(verdict.getByTestId("verdict-level")).toHaveText("tool");
  await expect(verdict.getByTestId("verdict-reason")).toContainText(
    '"deploys, pushes and forced deletes need approval" (tool level) asks for approval',
  );
  // And an ordinary command is allowed.
  await page.getByTestId("preview-args").fill('{ "command": "ls -la" }');
  await page.getByTestId("preview-submit").click();
  await expect(verdict.getByTestId("verdict-effect")).toHaveText("allow");

  // A valid change, saved with a comment by Ctrl+S from the comment field.
  await lines.click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("# reviewed by the e2e test");
  await expect(validation).toContainText("Valid · 11 rules");
  await expect(page.getByTestId("policy-save")).toBeEnabled();
  const comment = `e2e change ${Date.now().toString(36)}`;
  await page.getByTestId("policy-comment").fill(comment);
  await page.getByTestId("policy-comment").press("Control+s");
  await expect(page.getByTestId("policy-saved")).toContainText(/Saved as version \d+/);
  const saved = Number((await page.getByTestId("policy-saved").textContent())!.match(/version (\d+)/)![1]);
  await expect(page.getByTestId("policy-dirty")).toHaveCount(0);
  await expect(page.getByTestId("policy-comment")).toHaveValue("");

  // The history lists it first, active, with the comment; opening it shows the saved text.
  const newest = page.getByTestId("policy-version").first();
  await expect(newest).toHaveAttribute("data-version", String(saved));
  await expect(newest).toContainText("active");
  await expect(newest).toContainText(comment);
  await newest.click();
  await expect(page.getByTestId("policy-version-source")).toContainText("# reviewed by the e2e test");
  await page.getByTestId("policy-version-dialog").getByRole("button", { name: "Close" }).click();

  // The audit log (top navigation, admins) has the policy.updated entry.
  await navTo(page, "audit");
  await expect(page).toHaveURL(/\/audit$/);
  const row = page
    .getByTestId("audit-row")
    .filter({ hasText: `v${saved}` })
    .first();
  await expect(row).toHaveAttribute("data-kind", "policy.updated");
  await expect(row).toContainText("admin");
  await row.getByTestId("audit-detail-toggle").click();
  await expect(page.getByTestId("audit-detail").first()).toContainText(comment);

  // Filtering by kind keeps it; another kind hides it.
  await page.getByTestId("audit-kind").fill("policy.updated");
  await page.getByTestId("audit-kind").press("Enter");
  await expect(page).toHaveURL(/kind=policy\.updated/);
  await expect(page.getByTestId("audit-row").first()).toHaveAttribute("data-kind", "policy.updated");
  await page.getByTestId("audit-kind").fill("no.such.kind");
  await page.getByTestId("audit-kind").press("Enter");
  await expect(page.getByTestId("empty-state")).toContainText("No entries match these filters");

  // Export downloads the filtered entries.
  await page.getByTestId("audit-clear").click();
  await expect(page.getByTestId("audit-row").first()).toBeVisible();
  const download = page.waitForEvent("download");
  await page.getByTestId("audit-export-csv").click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^rein-audit-\d{8}-\d{6}\.csv$/);
});

test("a rule that can never match gets a warning while typing; the history shows what a save changed", async ({ page }) => {
  test.setTimeout(120_000);
  await login(page);
  await page.goto("/settings/policy");
  await page.getByTestId("policy-view-yaml").click();
  const editor = page.getByTestId("policy-editor").locator(".monaco-editor").first();
  const lines = editor.locator(".view-lines");
  // When this test runs alone it is the first to load Monaco's code: give it longer.
  await expect(lines).toContainText("# Rein tool policy", { timeout: 60_000 });
  const validation = page.getByTestId("policy-validation");
  await expect(validation).toHaveAttribute("data-status", "ok");
  await expect(page.getByTestId("policy-warning")).toHaveCount(0);

  // read_file is already allowed by "built-in workspace tools", checked first: this rule never decides.
  await lines.click();
  // At the very end, on a line of its own whether or not the saved text ends with a line break
  // (the first test saves one that ends in a comment).
  await page.keyboard.press("Control+End");
  await page.keyboard.insertText("\n  - { name: never read, tool: read_file, decision: deny }");
  const warning = page.getByTestId("policy-warning");
  // Checked on the server a moment after typing stops; a busy machine answers slowly.
  await expect(warning).toHaveCount(1, { timeout: 30_000 });
  await expect(warning).toContainText('"never read" can never match');
  await expect(warning).toContainText('"built-in workspace tools" matches every call it matches and comes before it');
  // A warning does not block saving (the rule changes nothing).
  await expect(page.getByTestId("policy-save")).toBeEnabled();
  await page.getByTestId("policy-comment").fill("a rule that never decides");
  await page.getByTestId("policy-save").click();
  await expect(page.getByTestId("policy-saved")).toContainText(/Saved as version \d+/);
  const saved = /Saved as version (\d+)/.exec((await page.getByTestId("policy-saved").textContent()) ?? "")![1];

  // Compare with previous: exactly that line, added. The history may show the new version a moment
  // after the note does: open the version that was saved, not whichever is first yet.
  await page.locator(`[data-testid="policy-version"][data-version="${saved}"]`).click();
  await page.getByTestId("policy-version-compare-previous").click();
  const dialog = page.getByTestId("policy-compare-dialog");
  await expect(dialog.getByTestId("policy-compare-summary")).toContainText("1 line added, 0 lines removed");
  await expect(dialog.getByTestId("policy-diff-added")).toHaveCount(1);
  await expect(dialog.getByTestId("policy-diff-added")).toContainText("- { name: never read, tool: read_file, decision: deny }");
  await expect(dialog.getByTestId("policy-diff-removed")).toHaveCount(0);
  // Choosing the same version twice says so instead of an empty diff.
  const to = await dialog.getByTestId("policy-compare-to").inputValue();
  await dialog.getByTestId("policy-compare-from").selectOption(to);
  await expect(dialog.getByTestId("policy-compare-same")).toContainText("Choose two different versions");
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(dialog).toBeHidden();
});
