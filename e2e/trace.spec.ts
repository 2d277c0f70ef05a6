// The run page's Trace tab: the span tree and waterfall of a finished run,
// expanding and collapsing (mouse and keyboard), a tool span's attributes and
// output; a 10,000-span trace read a page at a time that renders only the
// rows in view; a link to a span beyond the first page; and a live run's
// trace kept current by its changes alone (a request that opens, then ends).
import { expect, test, type Page } from "@playwright/test";
import superjson from "superjson";
import { login, trpcPost } from "./fixtures";

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

const rowsOf = (page: Page, kind?: string) =>
  page.getByTestId("span-tree").locator(`[data-testid="span-row"]${kind ? `[data-kind="${kind}"]` : ""}`);

test("a finished run's trace: run, agent, model and tool spans; collapse and expand; a tool span's attributes and output", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await login(page);
  const id = await finishedDemoCoderRun(page);
  // The scripted model is free: the header's cost says so.
  await expect(page.getByTestId("run-cost")).toHaveText("$0");

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
  await expect(page.getByTestId("trace-cost")).toHaveText("$0");
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
  await expect(page.getByTestId("span-detail")).toHaveAttribute(
    "data-span-id",
    (await rowsOf(page, "chat").first().getAttribute("data-span-id"))!,
  );
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
  const spans: Array<Record<string, unknown>> = [
    {
      ...base,
      spanId: "root",
      parentSpanId: null,
      kind: "run",
      name: "run big",
      startTime: at(0),
      endTime: null,
      status: "unset",
      inputTokens: n,
      outputTokens: n,
      costUsd: 1.5,
    },
  ];
  let agent = "root";
  for (let i = 1; i < n; i++) {
    if (i % 100 === 1) {
      agent = `agent-${i}`;
      spans.push({
        ...base,
        spanId: agent,
        parentSpanId: "root",
        kind: "invoke_agent",
        name: `invoke_agent a${i}`,
        startTime: at(i * 50),
        endTime: at(i * 50 + 5000),
        status: "ok",
      });
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

/** The synthetic trace a page at a time, as traces.page answers (the cursor is an offset here). */
function fakePage(trace: ReturnType<typeof bigTrace>, input: { cursor?: string; limit?: number }) {
  const from = input.cursor ? Number(input.cursor) : 0;
  const to = Math.min(trace.spans.length, from + (input.limit ?? 500));
  return {
    run: trace.run,
    traceId: trace.traceId,
    spans: trace.spans.slice(from, to),
    next: to < trace.spans.length ? String(to) : null,
    total: trace.spans.length,
    watermark: 0,
  };
}

test("a 10,000-span trace: the first page drawn, more as it scrolls, End reads the rest; only the rows in view are rendered", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await login(page);
  const id = await finishedDemoCoderRun(page);
  const N = 10_000;
  const trace = bigTrace(id, N);
  // The server's answers for this run's trace are swapped for the synthetic one, in whatever batch they come.
  await page.route(/\/api\/trpc\/[^?]*traces\.(page|changes)/, async (route) => {
    const url = new URL(route.request().url());
    const procedures = url.pathname.replace("/api/trpc/", "").split(",");
    const inputs = JSON.parse(url.searchParams.get("input") ?? "{}") as Record<string, { json: { cursor?: string; limit?: number } }>;
    const response = await route.fetch();
    const results = (await response.json()) as unknown[];
    procedures.forEach((p, i) => {
      if (p === "traces.page") results[i] = { result: { data: superjson.serialize(fakePage(trace, inputs[i].json)) } };
      if (p === "traces.changes")
        results[i] = { result: { data: superjson.serialize({ reset: false, spans: [], total: N, watermark: 0 }) } };
    });
    await route.fulfill({ response, json: results });
  });
  await page.goto(`/runs/${id}?tab=trace`);

  const tree = page.getByTestId("span-tree");
  await expect(page.getByTestId("trace-span-count")).toHaveText("10,000 spans");
  await expect(page.getByTestId("trace-cost")).toHaveText("$1.50");
  // The first page is drawn; the rest waits.
  await expect(tree).toHaveAttribute("data-rows", "500");
  await expect(page.getByTestId("trace-loaded-count")).toHaveText("(500 loaded)");
  const rendered = await rowsOf(page).count();
  expect(rendered).toBeGreaterThan(5);
  expect(rendered).toBeLessThan(120);

  // Scrolled to the bottom, the next page is read; "Load more" reads another.
  await tree.evaluate((el) => (el.scrollTop = el.scrollHeight));
  await expect(tree).toHaveAttribute("data-rows", "1500");
  await page.getByTestId("trace-load-more").click();
  await expect(tree).toHaveAttribute("data-rows", "2500");
  await expect(page.getByTestId("trace-loaded")).toHaveText("2,500 of 10,000 spans loaded");
  await expect(page.getByTestId("trace-loaded-count")).toHaveText("(2,500 loaded)");

  // End reads the rest and goes to the last span, which is still open.
  await tree.focus();
  await page.keyboard.press("End");
  await expect(tree).toHaveAttribute("data-rows", String(N));
  await expect(page.getByTestId("trace-more")).toHaveCount(0);
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

test("a link to a span not in the first page reads on until it is there, and opens it", async ({ page }) => {
  test.setTimeout(120_000);
  await login(page);
  const id = await finishedDemoCoderRun(page);
  const trace = bigTrace(id, 3000);
  await page.route(/\/api\/trpc\/[^?]*traces\.(page|changes)/, async (route) => {
    const url = new URL(route.request().url());
    const procedures = url.pathname.replace("/api/trpc/", "").split(",");
    const inputs = JSON.parse(url.searchParams.get("input") ?? "{}") as Record<string, { json: { cursor?: string; limit?: number } }>;
    const response = await route.fetch();
    const results = (await response.json()) as unknown[];
    procedures.forEach((p, i) => {
      if (p === "traces.page") results[i] = { result: { data: superjson.serialize(fakePage(trace, inputs[i].json)) } };
      if (p === "traces.changes")
        results[i] = { result: { data: superjson.serialize({ reset: false, spans: [], total: 3000, watermark: 0 }) } };
    });
    await route.fulfill({ response, json: results });
  });
  await page.goto(`/runs/${id}?tab=trace&span=s-2500`);
  await expect(page.getByTestId("span-detail")).toHaveAttribute("data-span-id", "s-2500");
  await expect(page.getByTestId("span-tree").locator('[data-span-id="s-2500"]')).toHaveAttribute("aria-selected", "true");
});

test("a live run's trace takes in what changed without reading the trace again: a request opens, then ends", async ({ page }) => {
  test.setTimeout(120_000);
  await login(page);
  const res = await page.request.post("/api/v1/runs", {
    data: { agent: "demo-deploy", goal: `Deploy 1.4.0 (approve) trace ${Date.now().toString(36)}` },
  });
  expect(res.status(), await res.text()).toBe(201);
  const id = ((await res.json()) as { id: string }).id;
  const reads: string[] = [];
  page.on("request", (r) => {
    const m = /\/api\/trpc\/([^?]+)/.exec(r.url());
    if (m) reads.push(...m[1].split(",").filter((p) => p.startsWith("traces.")));
  });
  await page.goto(`/runs/${id}?tab=trace`);
  await expect(page.getByTestId("run-status")).toHaveText("waiting for human", { timeout: 30_000 });

  // The request shows as an open span; the run is still open.
  const request = rowsOf(page, "human_request");
  await expect(request).toHaveCount(1, { timeout: 15_000 });
  await expect(request).toHaveAttribute("data-state", "open");
  await expect(rowsOf(page, "run")).toHaveAttribute("data-state", "open");
  await request.click();
  const requestId = (await page.getByTestId("span-attributes").locator('[data-key="rein.human_request.id"] td').nth(1).textContent())!;

  await trpcPost(page, "humanRequests.decide", { id: requestId, decision: "approve" });
  // The same rows change in place: the request ends, the run ends.
  await expect(request).toHaveAttribute("data-state", "ok", { timeout: 30_000 });
  await expect(page.getByTestId("span-detail-status")).toHaveText("ok");
  await expect(rowsOf(page, "run")).toHaveAttribute("data-state", "ok", { timeout: 30_000 });
  // One first page; after it, only the changes were asked for.
  expect(reads.filter((p) => p === "traces.page")).toHaveLength(1);
  expect(reads.filter((p) => p === "traces.changes").length).toBeGreaterThan(0);
});
