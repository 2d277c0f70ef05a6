// Settings › Policy's rule form and its YAML edit the same document
// (docs/human-requests-and-policy.md#the-rule-form): a rule added in the form
// shows in the YAML, a YAML edit shows in the form, YAML that does not parse
// leaves the form on its last rules, reordering changes what the preview
// decides, and the saved order is there after a reload. The rule is deleted
// and saved again at the end, so the specs after this one meet the policy as it was.
import { expect, test } from "@playwright/test";
import { login } from "./fixtures";

const MARKER = "e2e-rule-form-check";
const NAME = "block the e2e marker";

test("add a rule in the form, edit it in the YAML, reorder it, preview, save and reload", async ({ page }) => {
  test.setTimeout(150_000);
  await login(page);
  await page.goto("/settings/policy");

  // The rule list is the default view.
  const rules = page.getByTestId("policy-rule");
  await expect(page.getByTestId("policy-view-rules")).toHaveAttribute("aria-selected", "true");
  await expect(rules.first()).toBeVisible({ timeout: 30_000 });
  const count = await rules.count();
  await expect(page.getByTestId("policy-validation")).toHaveAttribute("data-status", "ok");

  // Add a rule: it opens at the end with its form.
  await page.getByTestId("rule-add").click();
  await expect(rules).toHaveCount(count + 1);
  const added = rules.nth(count);
  const form = added.getByTestId("rule-form");
  await expect(form).toBeVisible();
  await form.getByLabel("Name").fill(NAME);
  await form.getByLabel("Tool").fill("shell");
  await form.getByTestId("rule-arg-add").click();
  await form.getByTestId("rule-arg-name").fill("command");
  await form.getByTestId("rule-arg-kind").selectOption("prefix");
  await form.getByTestId("rule-arg-value").fill(MARKER);
  await form.getByLabel(/^Decision/).selectOption("deny");
  await expect(added.getByTestId("rule-title")).toHaveText(NAME);
  await expect(added.getByTestId("rule-decision-badge")).toHaveText("deny");
  // Checked after the general shell allow, it can never decide: the checker says so on the rule.
  await expect(added.getByTestId("rule-warning")).toContainText("can never match", { timeout: 30_000 });

  // The YAML has it, at the end.
  await page.getByTestId("policy-view-yaml").click();
  const editor = page.getByTestId("policy-editor").locator(".monaco-editor").first();
  const lines = editor.locator(".view-lines");
  await expect(lines).toContainText("# Rein tool policy", { timeout: 60_000 });
  await lines.click();
  await page.keyboard.press("Control+End");
  await expect(lines).toContainText(`- name: ${NAME}`);
  await expect(lines).toContainText(`command: { prefix: ${MARKER} }`);
  await expect(lines).toContainText("decision: deny");

  // Edit the YAML: the decision becomes ask, and the form follows.
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("End");
  await page.keyboard.press("Shift+Home");
  await page.keyboard.type("decision: ask");
  await expect(lines).toContainText("decision: ask");
  await page.getByTestId("policy-view-rules").click();
  await expect(added.getByTestId("rule-decision-badge")).toHaveText("ask");
  await expect(added.getByLabel(/^Decision/)).toHaveValue("ask");
  await expect(added.getByLabel("Who may approve")).toHaveValue("");

  // YAML that does not parse: the form keeps its last rules, read-only, and the text is kept.
  await page.getByTestId("policy-view-yaml").click();
  await lines.click();
  await page.keyboard.press("Control+End");
  // A second rules: key (YAML refuses duplicate keys), on a line of its own at the end.
  await page.keyboard.insertText("\nrules: 1");
  await page.getByTestId("policy-view-rules").click();
  await expect(page.getByTestId("policy-rules-unreadable")).toContainText("The YAML does not parse");
  await expect(rules).toHaveCount(count + 1);
  await expect(page.getByTestId("rule-add")).toBeDisabled();
  await page.getByTestId("policy-view-yaml").click();
  await lines.click();
  await page.keyboard.press("Control+End");
  await expect(lines).toContainText("rules: 1");
  await page.keyboard.press("Shift+Home");
  await page.keyboard.press("Backspace");
  await page.keyboard.press("Backspace");
  await expect(lines).not.toContainText("rules: 1");
  await page.getByTestId("policy-view-rules").click();
  await expect(page.getByTestId("policy-rules-unreadable")).toHaveCount(0);

  // The preview beside the list: the general shell allow decides first.
  await page.getByTestId("preview-args").fill(`{ "command": "${MARKER} now" }`);
  await page.getByTestId("preview-submit").click();
  const verdict = page.getByTestId("policy-verdict");
  await expect(verdict.getByTestId("verdict-effect")).toHaveText("allow");

  // Reorder by keyboard: one up, then to the top.
  await added.getByTestId("rule-toggle").focus();
  await page.keyboard.press("Alt+ArrowUp");
  await expect(rules.nth(count - 1).getByTestId("rule-title")).toHaveText(NAME);
  await expect(rules.nth(count - 1).getByTestId("rule-toggle")).toBeFocused();
  await page.keyboard.press("Alt+Home");
  const first = rules.first();
  await expect(first.getByTestId("rule-title")).toHaveText(NAME);
  await expect(page.getByTestId("policy-rules-notice")).toContainText(`is now rule 1`);
  // And back down one with the button, then up again.
  await first.getByTestId("rule-move-down").click();
  await expect(rules.nth(1).getByTestId("rule-title")).toHaveText(NAME);
  await rules.nth(1).getByTestId("rule-move-up").click();
  await expect(first.getByTestId("rule-title")).toHaveText(NAME);

  // Now it decides: ask, then deny once the form says so.
  await page.getByTestId("preview-submit").click();
  await expect(verdict.getByTestId("verdict-effect")).toHaveText("ask");
  await expect(verdict.getByTestId("verdict-rule")).toContainText(`#1 · ${NAME}`);
  await first.getByLabel(/^Decision/).selectOption("deny");
  await page.getByTestId("preview-submit").click();
  await expect(verdict.getByTestId("verdict-effect")).toHaveText("deny");

  // Save, reload: the rule is first, denying.
  await expect(page.getByTestId("policy-validation")).toHaveAttribute("data-status", "ok", { timeout: 30_000 });
  await page.getByTestId("policy-comment").fill("a rule made in the form");
  await page.getByTestId("policy-save").click();
  await expect(page.getByTestId("policy-saved")).toContainText(/Saved as version \d+/);
  await page.reload();
  await expect(rules).toHaveCount(count + 1, { timeout: 30_000 });
  await expect(rules.first().getByTestId("rule-title")).toHaveText(NAME);
  await expect(rules.first().getByTestId("rule-decision-badge")).toHaveText("deny");
  await expect(page.getByTestId("policy-dirty")).toHaveCount(0);

  // Delete it again (the specs after this one expect the default policy): the text is as before.
  await rules.first().getByTestId("rule-delete").click();
  await expect(rules).toHaveCount(count);
  await expect(page.getByTestId("policy-rules-notice")).toContainText(`Deleted rule 1 “${NAME}”`);
  await expect(page.getByTestId("policy-validation")).toContainText(`Valid · ${count} rules`, { timeout: 30_000 });
  await page.getByTestId("policy-comment").fill("the rule made in the form, removed");
  await page.getByTestId("policy-save").click();
  await expect(page.getByTestId("policy-saved")).toContainText(/Saved as version \d+/);
});
