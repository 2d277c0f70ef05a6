// The run page's Trace tab: the span tree and waterfall of a finished run,
// expanding and collapsing (mouse and keyboard), a tool span's attributes and
// output; and a 10,000-span trace that renders only the rows in view.
import { expect, test, type Page } from "@playwright/test";
import superjson from "superjson";
import { login } from "./fixtures";

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

const rowsOf = (page: Page, kind?: string) => page.getByTestId("span-tree").locator(`[data-testid="span-row"]${kind ? `[data-kind="${kind}"]` : ""}`);

test("a finished run's trace: run, agent, model and tool spans; collapse and expand; a tool span's attributes and output", async ({ page }) => {
  test.setTimeout(120_000);
  await login(page);
  const id = await finishedDemoCoderRun(page);
  // The scripted model is free: the header's cost says so.
  await expect(page.getByTestId("run-cost")).toHaveText("$0.00");

  // g then r opens the Trace tab; the other shortcuts still work.
  await expect(page.getByTestId("tab-trace")).toHaveAttribute("title", "Trace (press g then r)");
  await page.locator("body").press("g");
  await page.locator("body").press("r");
  await expect(page).toHaveURL(/[?&]tab=trace/);
  await expect(page.getByTestId("tab-trace")).toHaveAttribute("aria-selected", "true");

  // The run span is the root and has ended; the agent's model calls and tool calls sit under it.
  const run = rowsOf(page, "run");
  await expect(run).toHaveCount(1);
  await expect(run).toHaveAttribute("aria-level", "1");
  await expect(run).toHaveAttribute("data-state", "ok");
  const agent = rowsOf(page, "invoke_agent").first();
  await expect(agent).toHaveAttribute("aria-level", "2");
  await expect(rowsOf(page, "chat")).toHaveCount(6);
  await expect(rowsOf(page, "execute_tool")).toHaveCount(7);
  await expect(rowsOf(page, "chat").first()).toHaveAttribute("aria-level", "3");
  await expect(rowsOf(page, "chat").first()).toContainText("scripted/");
  const total = await rowsOf(page).count();
  await expect(page.getByTestId("trace-span-count")).toHaveText(`${total} spans`);
  await expect(page.getByTestId("trace-cost")).toHaveText("$0.00");
  await expect(page.getByTestId("trace-id")).toHaveText(/^[0-9a-f]{32}$/);
  // The run's bar starts the waterfall.
  await expect(run.getByTestId("span-bar")).toHaveAttribute("style", /left: 0%/);

  // Collapse and expand the agent with the mouse.
  await agent.getByTestId("span-toggle").click();
  await expect(agent).toHaveAttribute("aria-expanded", "false");
  await expect(rowsOf(page, "chat")).toHaveCount(0);
  await expect(rowsOf(page, "execute_tool")).toHaveCount(0);
  await agent.getByTestId("span-toggle").click();
  await expect(agent).toHaveAttribute("aria-expanded", "true");
  await expect(rowsOf(page, "chat")).toHaveCount(6);

  // And with the keyboard: the toggle selected the agent; ← collapses, → expands, ↓ moves down.
  await expect(agent).toHaveAttribute("aria-selected", "true");
  await page.getByTestId("span-tree").focus();
  await page.keyboard.press("ArrowLeft");
  await expect(agent).toHaveAttribute("aria-expanded", "false");
  await page.keyboard.press("ArrowLeft");
  await expect(run).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowRight");
  await expect(agent).toHaveAttribute("aria-expanded", "true");
  await page.keyboard.press("ArrowDown");
  await expect(rowsOf(page, "chat").first()).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("span-detail")).toHaveAttribute("data-span-id", (await rowsOf(page, "chat").first().getAttribute("data-span-id"))!);
  await expect(page.getByTestId("span-detail-tokens")).toContainText("cached");

  // Collapse all leaves the run; expand all brings everything back.
  await page.getByTestId("trace-collapse-all").click();
  await expect(rowsOf(page)).toHaveCount(1);
  await page.getByTestId("trace-expand-all").click();
  await expect(rowsOf(page)).toHaveCount(total);

  // The tool span that ran the tests: its attributes, input and output.
  const shell = rowsOf(page, "execute_tool").filter({ hasText: "shell" }).first();
  await shell.click();
  const detail = page.getByTestId("span-detail");
  await expect(detail.getByTestId("span-detail-name")).toHaveText("shell");
  await expect(detail.getByTestId("span-detail-status")).toHaveText("ok");
  await expect(detail.getByTestId("span-detail-tool")).toHaveText("shell");
  const attrs = detail.getByTestId("span-attributes");
  await expect(attrs.locator('[data-key="gen_ai.tool.name"] td').nth(1)).toHaveText("shell");
  await expect(attrs.locator('[data-key="gen_ai.operation.name"] td').nth(1)).toHaveText("execute_tool");
  await expect(attrs.locator('[data-key="rein.run_id"] td').nth(1)).toHaveText(id);
  await expect(attrs.locator('tbody[data-group="gen_ai"] [data-key="gen_ai.tool.name"]')).toHaveCount(1);
  await expect(detail.getByTestId("span-input")).toContainText("node --test test/fizzbuzz.test.mjs");
  await expect(detail.getByTestId("span-output")).toContainText('"exitCode": 0');
  await expect(detail.getByTestId("span-output")).toContainText("pass 5");

  // The open span is in the URL: a reload comes back to it.
  const spanId = (await shell.getAttribute("data-span-id"))!;
  await expect(page).toHaveURL(new RegExp(`[?&]span=${spanId}`));
  await page.reload();
  await expect(page.getByTestId("span-detail")).toHaveAttribute("data-span-id", spanId);
  await expect(page.getByTestId("span-detail").getByTestId("span-output")).toContainText("pass 5");

  // g then t goes back to the timeline.
  await page.getByTestId("span-tree").blur();
  await page.locator("body").press("g");
  await page.locator("body").press("t");
  await expect(page.getByTestId("tab-timeline")).toHaveAttribute("aria-selected", "true");
});

/** A synthetic trace: a run span, 99 agents, each with model and tool calls; the last one still open. */
function bigTrace(runId: string, n: number) {
  const t0 = Date.now() - 600_000;
  const at = (ms: number) => new Date(t0 + ms);
  const base = { model: null, tool: null, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, costUsd: 0, attributes: {} };
  const spans: Array<Record<string, unknown>> = [{ ...base, spanId: "root", parentSpanId: null, kind: "run", name: "run big", startTime: at(0), endTime: null, status: "unset", inputTokens: n, outputTokens: n, costUsd: 1.5 }];
  let agent = "root";
  for (let i = 1; i < n; i++) {
    if (i % 100 === 1) {
      agent = `agent-${i}`;
      spans.push({ ...base, spanId: agent, parentSpanId: "root", kind: "invoke_agent", name: `invoke_agent a${i}`, startTime: at(i * 50), endTime: at(i * 50 + 5000), status: "ok" });
      continue;
    }
    const chat = i % 2 === 0;
    spans.push({
      ...base,
      spanId: `s-${i}`,
      parentSpanId: agent,
      kind: chat ? "chat" : "execute_tool",
      name: chat ? "chat m/x" : `execute_tool tool-${i}`,
      startTime: at(i * 50),
      endTime: i === n - 1 ? null : at(i * 50 + 40),
      status: i === n - 1 ? "unset" : i % 97 === 0 ? "error" : "ok",
      ...(chat ? { model: "m/x", inputTokens: 1, outputTokens: 1, costUsd: 0.0003 } : { tool: `tool-${i}` }),
    });
  }
  return { run: { id: runId, status: "running" }, traceId: "f".repeat(32), spans, truncated: false };
}

test("a 10,000-span trace renders only the rows in view and scrolls to its last span", async ({ page }) => {
  test.setTimeout(120_000);
  await login(page);
  const id = await finishedDemoCoderRun(page);
  const N = 10_000;
  const fake = { result: { data: superjson.serialize(bigTrace(id, N)) } };
  // The server's answer for this run's trace is swapped for the synthetic one, in whatever batch it comes.
  await page.route(/\/api\/trpc\/[^?]*traces\.spans/, async (route) => {
    const procedures = new URL(route.request().url()).pathname.replace("/api/trpc/", "").split(",");
    const response = await route.fetch();
    const results = (await response.json()) as unknown[];
    procedures.forEach((p, i) => p === "traces.spans" && (results[i] = fake));
    await route.fulfill({ response, json: results });
  });
  await page.goto(`/runs/${id}?tab=trace`);

  const tree = page.getByTestId("span-tree");
  await expect(page.getByTestId("trace-span-count")).toHaveText("10,000 spans");
  await expect(page.getByTestId("trace-cost")).toHaveText("$1.50");
  await expect(tree).toHaveAttribute("data-rows", String(N));
  const rendered = await rowsOf(page).count();
  expect(rendered).toBeGreaterThan(5);
  expect(rendered).toBeLessThan(120);

  // End jumps to the last span, which is still open: its bar is hatched and reaches the axis end.
  await tree.focus();
  await page.keyboard.press("End");
  const last = tree.locator(`[data-span-id="s-${N - 1}"]`);
  await expect(last).toBeVisible();
  await expect(last).toHaveAttribute("aria-selected", "true");
  await expect(last).toHaveAttribute("data-state", "open");
  await expect(tree.locator('[data-span-id="root"]')).toHaveCount(0);
  expect(await rowsOf(page).count()).toBeLessThan(120);

  // Collapse all: the run and nothing else; Home, → and ↓ reach the first agent.
  await page.getByTestId("trace-collapse-all").click();
  await expect(rowsOf(page)).toHaveCount(1);
  await tree.focus();
  await page.keyboard.press("Home");
  await page.keyboard.press("ArrowRight");
  await expect(rowsOf(page, "invoke_agent")).not.toHaveCount(0);
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("span-detail")).toHaveAttribute("data-span-id", "agent-1");
});
