// The keyboard (issue 23 item 13): the Ctrl+K command palette, "?" listing the
// shortcuts of the page on screen, j/k/Enter on lists, the run tabs' keys in their tooltips.
import { expect, test, type Page } from "@playwright/test";
import { login } from "./fixtures";

const stamp = Date.now().toString(36);

// Each test walks several pages; a busy machine needs more than the default minute.
test.describe.configure({ timeout: 180_000 });

/** Starts a run through the REST API with the page's session; returns its id. */
async function createRun(page: Page, goal: string): Promise<string> {
  const res = await page.request.post("/api/v1/runs", { data: { agent: "demo-coder", goal } });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function openPalette(page: Page) {
  await page.keyboard.press("Control+k");
  const palette = page.getByRole("dialog", { name: "Command palette" });
  await expect(palette).toBeVisible();
  await expect(page.getByTestId("palette-input")).toBeFocused();
  return palette;
}

test("Ctrl+K opens the palette: a page by name, a Settings section, a run by goal or id, New run, dark mode", async ({ page }) => {
  await login(page);
  const goal = `Palette zebra quokka ${stamp}`;
  const runId = await createRun(page, goal);

  // A page by name.
  await openPalette(page);
  await page.getByTestId("palette-input").fill("costs");
  await expect(page.getByTestId("palette-option").first()).toHaveAttribute("data-entry", "page:/costs");
  await expect(page.getByTestId("palette-option").first()).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/costs$/, { timeout: 20_000 });
  await expect(page.getByTestId("command-palette")).toBeHidden();

  // A Settings section, picked with the arrow keys; the input names the highlighted option.
  await openPalette(page);
  const input = page.getByTestId("palette-input");
  await input.fill("set");
  const options = page.getByTestId("palette-option");
  await expect(options.filter({ hasText: "Settings: Teams" })).toBeVisible();
  const teamsIndex = await options.evaluateAll((els) => els.findIndex((el) => el.textContent?.includes("Settings: Teams")));
  for (let i = 0; i < teamsIndex; i++) await page.keyboard.press("ArrowDown");
  await expect(input).toHaveAttribute("aria-activedescendant", `palette-option-${teamsIndex}`);
  await expect(options.nth(teamsIndex)).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/settings\/teams$/, { timeout: 20_000 });

  // A run by words of its goal.
  await openPalette(page);
  await input.fill("zebra quokka");
  const runOption = page.locator(`[data-entry="run:${runId}"]`);
  await expect(runOption).toBeVisible();
  await expect(runOption).toContainText(goal);
  await expect(options).toHaveCount(1);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/runs/${runId}$`), { timeout: 20_000 });
  await expect(page.getByTestId("run-goal")).toHaveText(goal);

  // ... and by its id.
  await openPalette(page);
  await input.fill(runId);
  await expect(runOption).toBeVisible();
  await runOption.click();
  await expect(page).toHaveURL(new RegExp(`/runs/${runId}$`), { timeout: 20_000 });

  // Nothing matches: the palette says so.
  await openPalette(page);
  await input.fill("qqqxxzzq");
  await expect(page.getByTestId("palette-status")).toContainText("Nothing matches “qqqxxzzq”");
  await expect(options).toHaveCount(0);

  // New run opens the dialog.
  await input.fill("new run");
  await expect(options.first()).toHaveAttribute("data-entry", "action:new-run");
  await expect(options.first()).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("new-run-dialog")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("new-run-dialog")).toBeHidden();

  // Toggle dark mode switches the page to the other theme and remembers it.
  const themeNow = () => page.evaluate(() => getComputedStyle(document.documentElement).colorScheme);
  const before = await themeNow();
  await openPalette(page);
  await input.fill("dark");
  await expect(options.first()).toHaveAttribute("data-entry", "action:toggle-theme");
  await page.keyboard.press("Enter");
  await expect.poll(themeNow).toBe(before === "dark" ? "light" : "dark");
  await page.reload();
  await expect.poll(themeNow).toBe(before === "dark" ? "light" : "dark");
});

test("Escape closes the palette and the focus goes back, even from inside a field that keeps its text", async ({ page }) => {
  await login(page);
  const button = page.getByTestId("new-run-button").first();
  // It is disabled until the page knows the person may start runs.
  await expect(button).toBeEnabled();
  await button.focus();
  await expect(button).toBeFocused();
  const palette = await openPalette(page);
  await page.keyboard.press("Escape");
  await expect(palette).toBeHidden();
  await expect(button).toBeFocused();

  // Ctrl+K works while typing in a field; Ctrl+K again closes it.
  const search = page.getByLabel("Search goals");
  await search.fill("half typed");
  await expect(page).toHaveURL(/q=half/, { timeout: 20_000 });
  await openPalette(page);
  await page.keyboard.press("Control+k");
  await expect(palette).toBeHidden();
  await expect(search).toBeFocused();
  await expect(search).toHaveValue("half typed");
});

test("? shows the shortcuts of the page on screen: the list's on Runs, the run's on a run, the Inbox's there", async ({ page }) => {
  await login(page);
  const runId = await createRun(page, `Shortcuts list ${stamp}`);
  await page.goto("/runs");
  await expect(page.locator(`[data-run-id="${runId}"]`)).toBeVisible();

  const dialog = page.getByTestId("shortcuts-dialog");
  const group = (title: string) => dialog.locator(`[data-testid="shortcuts-group"][data-title="${title}"]`);
  await page.keyboard.press("?");
  await expect(dialog).toBeVisible();
  await expect(group("Everywhere")).toContainText("Open the command palette");
  await expect(group("This list")).toContainText("Next row");
  await expect(group("This list")).toContainText("Open the selected row");
  await expect(group("This run")).toHaveCount(0);
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();

  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId("run-goal")).toBeVisible();
  await page.keyboard.press("?");
  await expect(group("This run")).toContainText("Open the Files tab");
  await expect(group("This list")).toHaveCount(0);
  await page.keyboard.press("Escape");

  // Each tab's tooltip names its key.
  await expect(page.getByTestId("tab-files")).toHaveAttribute("title", "Files (press g then f)");
  await expect(page.getByTestId("tab-terminal")).toHaveAttribute("title", "Terminal (press g then s)");

  await page.goto("/inbox");
  await expect(page.getByRole("heading", { name: "Inbox" })).toBeVisible();
  await page.keyboard.press("?");
  await expect(group("Inbox")).toContainText("Approve");
  await expect(group("This run")).toHaveCount(0);
  await dialog.getByRole("button", { name: "Close" }).click();
  await page.getByTestId("show-shortcuts").click();
  await expect(group("Inbox")).toBeVisible();
});

test("j and k move the selection over the runs list and Enter opens the selected run", async ({ page }) => {
  await login(page);
  await createRun(page, `List keys one ${stamp}`);
  await createRun(page, `List keys two ${stamp}`);
  await page.goto("/runs");
  const rows = page.getByTestId("run-row");
  await expect(rows.nth(1)).toBeVisible();
  const ids = await rows.evaluateAll((els) => els.slice(0, 2).map((el) => el.getAttribute("data-run-id")!));

  await page.keyboard.press("j");
  await expect(rows.nth(0)).toHaveAttribute("data-list-current", "");
  await expect(rows.nth(0)).toBeFocused();
  await page.keyboard.press("j");
  await expect(rows.nth(1)).toHaveAttribute("data-list-current", "");
  await expect(rows.nth(0)).not.toHaveAttribute("data-list-current");
  await page.keyboard.press("k");
  await page.keyboard.press("k"); // stays on the first row
  await expect(rows.nth(0)).toHaveAttribute("data-list-current", "");
  await page.keyboard.press("ArrowDown");
  await expect(rows.nth(1)).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/runs/${ids[1]}$`), { timeout: 20_000 });
});

test("the top bar groups its pages: a group's menu opens from the keyboard, names the page open in it, and Escape closes it", async ({
  page,
}) => {
  await login(page);
  const nav = page.getByRole("navigation", { name: "Main" });
  // Daily work in sight; the rest in three groups; Settings last.
  await expect(nav.locator(":scope > a, :scope > div > button")).toHaveText([
    /^Runs/,
    /^Inbox/,
    /^Build/,
    /^Improve/,
    /^Observe/,
    "Settings",
  ]);

  const observe = page.getByTestId("nav-group-observe");
  await observe.focus();
  await page.keyboard.press("Enter");
  await expect(observe).toHaveAttribute("aria-expanded", "true");
  const menu = page.getByTestId("nav-menu-observe");
  await expect(menu.getByRole("link")).toHaveText([/^Traces/, /^Costs/, /^Audit/]);
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  await expect(menu.getByTestId("nav-costs")).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(menu).toHaveCount(0);
  await expect(observe).toBeFocused();

  await observe.click();
  await menu.getByTestId("nav-costs").click();
  await expect(page).toHaveURL(/\/costs$/);
  await expect(menu).toHaveCount(0);
  await expect(observe).toHaveAttribute("aria-current", "page");
  await expect(observe.getByTestId("nav-group-current")).toHaveText("· Costs");
  await expect(page.getByTestId("nav-group-build")).not.toHaveAttribute("aria-current", "page");
});
