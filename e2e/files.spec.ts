// The run page's Files tab: Monaco loaded from the app itself (never a CDN),
// editing and saving a file, the diff since the run started, the edit in the
// timeline, and the workspace archive.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { baseUrl, login } from "./fixtures";

/** Starts a demo-coder run through the New run dialog, waits for it to succeed, returns its id. */
async function finishedDemoCoderRun(page: Page): Promise<string> {
  await page.goto("/runs");
  await page.getByTestId("new-run-button").click();
  await page.getByTestId("agent-select").selectOption("demo-coder");
  await expect(page.getByTestId("goal-input")).not.toHaveValue("");
  await page.getByTestId("start-run").click();
  await page.waitForURL(/\/runs\/[^/?#]+$/);
  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 60_000 });
  return new URL(page.url()).pathname.split("/").pop()!;
}

/** Every host the page talked to, and what the console said about web workers. */
function watch(page: Page) {
  const hosts = new Set<string>();
  const workerComplaints: string[] = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (url.protocol === "http:" || url.protocol === "https:" || url.protocol.startsWith("ws")) hosts.add(url.host);
  });
  page.on("console", (m) => {
    if ((m.type() === "warning" || m.type() === "error") && /worker/i.test(m.text())) workerComplaints.push(m.text());
  });
  return { hosts, workerComplaints };
}

const editorOf = (page: Page) => page.getByTestId("file-editor").locator(".monaco-editor").first();
/** Monaco is several MB of code; the first load on a busy 2-core machine can take a while. */
const MONACO_LOAD = { timeout: 30_000 };

test("open a file in Monaco, edit it, save with Ctrl+S, see the diff, the timeline entry and download the workspace", async ({ page }) => {
  test.setTimeout(120_000);
  const seen = watch(page);
  await login(page);
  const id = await finishedDemoCoderRun(page);

  // Keyboard: g then f opens the Files tab; the tab is in the URL.
  await expect(page.getByTestId("tab-files")).toHaveAttribute("title", "Files (press g then f)");
  await page.locator("body").press("g");
  await page.locator("body").press("f");
  await expect(page).toHaveURL(/[?&]tab=files/);
  await expect(page.getByTestId("tab-files")).toHaveAttribute("aria-selected", "true");
  const tree = page.getByTestId("file-tree");
  await expect(tree.locator('[data-path="src/fizzbuzz.mjs"]')).toBeVisible();
  await expect(tree.locator('[data-path="test/fizzbuzz.test.mjs"]')).toBeVisible();
  await expect(page.getByTestId("files-summary")).toHaveText("2 files · 2 files changed since the run started");

  await tree.locator('[data-path="src/fizzbuzz.mjs"]').click();
  await expect(page).toHaveURL(/[?&]file=src%2Ffizzbuzz\.mjs/);
  const editor = editorOf(page);
  await expect(editor.locator(".view-lines")).toContainText("export function fizzbuzz(n)", MONACO_LOAD);
  await expect(page.getByTestId("save-file")).toBeDisabled();

  // Type into Monaco at the end of the file; the page's own shortcuts ("n", "g then t") stay quiet meanwhile.
  await editor.locator(".view-lines").click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("// Edited in Rein by a person: gt n");
  await expect(page.getByTestId("new-run-dialog")).not.toBeVisible();
  await expect(page.getByTestId("tab-files")).toHaveAttribute("aria-selected", "true");
  await expect(page.getByTestId("dirty-indicator")).toBeVisible();
  await expect(page.getByTestId("save-file")).toBeEnabled();
  await page.keyboard.press("Control+S");
  await expect(page.getByTestId("saved-note")).toBeVisible();
  await expect(page.getByTestId("dirty-indicator")).toHaveCount(0);
  await expect(page.getByTestId("save-file")).toBeDisabled();

  // Changes lists the file; its diff editor shows the new text on the right.
  await page.getByTestId("files-side-changes").click();
  const change = page.getByTestId("changes-list").locator('[data-path="src/fizzbuzz.mjs"]');
  await expect(change).toHaveAttribute("data-status", "A");
  await change.click();
  await expect(page).toHaveURL(/[?&]change=src%2Ffizzbuzz\.mjs/);
  const diff = page.getByTestId("diff-view").locator(".monaco-diff-editor");
  await expect(diff).toBeVisible(MONACO_LOAD);
  await expect(diff.locator(".editor.modified .view-lines")).toContainText("// Edited in Rein by a person: gt n");
  await expect(diff.locator(".editor.modified .view-lines")).toContainText("export function fizzbuzz(n)");

  // The save is in the timeline, by the person who made it.
  await page.getByTestId("tab-timeline").click();
  await expect(page).not.toHaveURL(/[?&]tab=/);
  const edit = page.locator('[data-testid="timeline-event"][data-type="workspace.edit"]');
  await expect(edit).toHaveCount(1);
  await expect(edit.getByTestId("workspace-edit-event")).toContainText("Admin edited src/fizzbuzz.mjs");

  // Back on Files (g then f), the editor kept its place; download the archive.
  await page.locator("body").press("g");
  await page.locator("body").press("f");
  await expect(page.getByTestId("diff-view")).toBeVisible();
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("download-workspace").click()]);
  expect(download.suggestedFilename()).toBe(`rein-${id}.tar.gz`);
  const archive = (await download.path())!;
  expect([...fs.readFileSync(archive).subarray(0, 2)]).toEqual([0x1f, 0x8b]);
  const names = execFileSync("tar", ["-tzf", archive], { encoding: "utf8" }).split("\n");
  expect(names).toContain("./src/fizzbuzz.mjs");
  expect(names.filter((n) => n.includes(".git"))).toEqual([]);
  expect(execFileSync("tar", ["-xzOf", archive, "./src/fizzbuzz.mjs"], { encoding: "utf8" })).toContain(
    "// Edited in Rein by a person: gt n",
  );

  // Monaco and its workers came from this server: no other host, no worker fallback.
  expect([...seen.hosts]).toEqual([new URL(baseUrl()).host]);
  expect(seen.workerComplaints).toEqual([]);
});

test("a change made elsewhere reloads a clean editor; over unsaved edits, saving is refused until Reload", async ({ page }) => {
  test.setTimeout(120_000);
  await login(page);
  const id = await finishedDemoCoderRun(page);
  await page.goto(`/runs/${id}?tab=files&file=test%2Ffizzbuzz.test.mjs`);
  const editor = editorOf(page);
  const lines = editor.locator(".view-lines");
  await expect(lines).toContainText("multiples of 3 are Fizz", MONACO_LOAD);
  /** Somebody else saves the file (the browser's session calls tRPC directly). */
  const saveElsewhere = async (content: string) => {
    const res = await page.request.post("/api/trpc/files.save", { data: { json: { runId: id, path: "test/fizzbuzz.test.mjs", content } } });
    expect(res.status()).toBe(200);
  };

  // Without unsaved edits, the editor follows the workspace (its workspace.edit event arrives over the socket).
  await saveElsewhere("// First rewrite elsewhere\n");
  await expect(lines).toContainText("// First rewrite elsewhere");
  await expect(lines).not.toContainText("multiples of 3 are Fizz");
  await expect(page.getByTestId("dirty-indicator")).toHaveCount(0);

  // With unsaved edits, the editor keeps them and says the file changed; saving is a conflict.
  await lines.click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("// my edit");
  await expect(page.getByTestId("dirty-indicator")).toBeVisible();
  await saveElsewhere("// Second rewrite elsewhere\n");
  await expect(page.getByTestId("changed-on-disk")).toContainText("This file changed in the workspace while you were editing it.");
  await expect(lines).toContainText("// my edit");
  await page.getByTestId("save-file").click();
  await expect(page.getByTestId("save-conflict")).toContainText("test/fizzbuzz.test.mjs changed since you opened it");
  await expect(page.getByTestId("dirty-indicator")).toBeVisible();
  await page.getByTestId("conflict-reload").click();
  await expect(page.getByTestId("save-conflict")).toHaveCount(0);
  await expect(lines).toContainText("// Second rewrite elsewhere");
  await expect(lines).not.toContainText("// my edit");
  await expect(page.getByTestId("dirty-indicator")).toHaveCount(0);
});

test("the tree is keyboard navigable and a binary or missing file says why it cannot open", async ({ page }) => {
  test.setTimeout(120_000);
  await login(page);
  const id = await finishedDemoCoderRun(page);
  await page.getByTestId("tab-files").click();
  const tree = page.getByTestId("file-tree");
  const src = tree.locator('[data-path="src"]');
  await expect(src).toHaveAttribute("aria-expanded", "true");
  await src.focus();
  await page.keyboard.press("ArrowLeft");
  await expect(src).toHaveAttribute("aria-expanded", "false");
  await expect(tree.locator('[data-path="src/fizzbuzz.mjs"]')).toHaveCount(0);
  await page.keyboard.press("ArrowRight");
  await expect(tree.locator('[data-path="src/fizzbuzz.mjs"]')).toBeVisible();
  await page.keyboard.press("ArrowRight");
  await expect(tree.locator('[data-path="src/fizzbuzz.mjs"]')).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/[?&]file=src%2Ffizzbuzz\.mjs/);
  await expect(editorOf(page).locator(".view-lines")).toContainText("export function fizzbuzz(n)", MONACO_LOAD);

  const res = await page.request.post("/api/trpc/files.save", {
    data: { json: { runId: id, path: "logo.bin", content: "\u0000\u0001binary" } },
  });
  expect(res.status()).toBe(200);
  await page.goto(`/runs/${id}?tab=files&file=logo.bin`);
  await expect(page.getByTestId("file-editor").getByTestId("error-state")).toContainText(
    "logo.bin is a binary file; only text files open here. Download the workspace to see it.",
  );

  await page.goto(`/runs/${id}?tab=files&file=no%2Fsuch.txt`);
  await expect(page.getByTestId("file-editor").getByTestId("error-state")).toContainText("no/such.txt does not exist in the workspace");
});
