// npm run bench:pages — how fast pages are drawn in a real headless Chromium
// against the built app (npm run build first): (a) the Trace tab of a run with
// 10,000 spans until its first rows show, (b) the Costs page on a fresh install
// until its charts or their empty states show, and (c) the Runs list as the
// baseline, in the same run; (d) the run page of a run with 10,000 events until
// its header and latest timeline entries show, against the run page of the
// same run before its log was grown (docs/runs.md#long-runs); (e) a live run
// with about 10,000 events already in its log while about 50 more arrive each
// second: how long the page takes to answer (the next frame after a request,
// sampled every 200 ms) and its long tasks, against the same page once the run
// has ended and nothing arrives. Then the trace queries on the server: the
// first page of the span tree against the whole trace. Prints p50s; asserts
// nothing.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type BrowserContextOptions, type Page } from "playwright-core";
import { openDb, openNativeSqlite } from "@/server/db";
import { listRunSpans, runSpanPage, spanIdOf, traceIdOf } from "@/server/telemetry";
import { freePort } from "@/test/helpers/server-process";
import { CHROMIUM, QUIET_CHROMIUM_ARGS } from "@/test/helpers/chromium";

const LOADS = 5;
const TRACE_SPANS = 10_000;
const QUERY_ROUNDS = 15;
const ADMIN = { email: "admin@rein.bench", password: "rein-bench-password" };
let CONTEXT: BrowserContextOptions = {};

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const ms = (n: number) => `${n.toFixed(0).padStart(6)} ms`;

async function startServer(dataDir: string, url: string, port: number): Promise<ChildProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith("REIN_") || key === "DATABASE_URL" || key === "NEXTAUTH_SECRET") delete env[key];
  Object.assign(env, {
    NODE_ENV: "production",
    PORT: String(port),
    REIN_DATA_DIR: dataDir,
    DATABASE_URL: url,
    REIN_ADMIN_EMAIL: ADMIN.email,
    REIN_ADMIN_PASSWORD: ADMIN.password,
    REIN_SCRIPTED_DELAY_MS: "5",
    REIN_UI: "on",
    NEXTAUTH_URL: `http://localhost:${port}`,
    NEXT_TELEMETRY_DISABLED: "1",
  });
  const child = spawn(process.execPath, [path.join("dist", "server.mjs")], { env, stdio: ["ignore", "ignore", "inherit"] });
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode})`);
    const up = await fetch(`http://localhost:${port}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return child;
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill("SIGTERM");
  throw new Error("the server did not answer /api/health within 120 s");
}

/** Milliseconds from the navigation's start until `drawn` holds in the page (checked every frame). */
async function timeToDrawn(page: Page, url: string, drawn: string): Promise<number> {
  await page.goto(url, { waitUntil: "commit" });
  const handle = await page.waitForFunction(`(${drawn}) && performance.now()`, undefined, { polling: "raf", timeout: 60_000 });
  return Number(await handle.jsonValue());
}

/** Kilobytes of JavaScript the page has loaded so far. */
const jsKb = (page: Page) =>
  page.evaluate(
    () =>
      performance
        .getEntriesByType("resource")
        .filter((e) => e.name.endsWith(".js"))
        .reduce((n, e) => n + (e as PerformanceResourceTiming).decodedBodySize, 0) / 1024,
  );

/** p50 of loads in one tab after a warm-up (the page's code cached), and of loads each in a new, empty browser context. */
async function p50Of(page: Page, url: string, drawn: string): Promise<{ warm: number; cold: number; js: number }> {
  await timeToDrawn(page, url, drawn);
  const warm: number[] = [];
  for (let i = 0; i < LOADS; i++) warm.push(await timeToDrawn(page, url, drawn));
  const storageState = await page.context().storageState();
  const cold: number[] = [];
  let js = 0;
  for (let i = 0; i < LOADS; i++) {
    const context = await page
      .context()
      .browser()!
      .newContext({ ...CONTEXT, storageState });
    const fresh = await context.newPage();
    cold.push(await timeToDrawn(fresh, url, drawn));
    js = await jsKb(fresh);
    await context.close();
  }
  return { warm: p50(warm), cold: p50(cold), js };
}

const has = (testId: string) => `document.querySelector('[data-testid="${testId}"]')`;
/** Costs: the totals (or the summary's empty state) and all four health cards have content, not skeletons. */
const COSTS_DRAWN = [
  has("total-cost"),
  has("human-requests"),
  `${has("health-latency")}?.querySelector(".card-body > *")`,
  `${has("health-budgets")}?.querySelector(".card-body > *")`,
].join(" && ");
const RUNS_DRAWN = `(${has("runs-table")} || document.querySelector(".page .card [data-testid='empty-state']"))`;
const TRACE_DRAWN = has("span-row");
const LONG_RUN_EVENTS = 10_000;
/** The run page's first screen: the header's status and the timeline's entries. */
const RUN_DRAWN = `${has("run-status")} && document.querySelector('[data-testid="timeline"] > li')`;

/**
 * A finished run's event log grown to about `n` events: its model turns and tool calls repeated
 * (steps and call ids renumbered, as a long run writes them), between its first and last events.
 */
function growEvents(dbFile: string, runId: string, n: number): number {
  const native = openNativeSqlite(`file:${dbFile}`);
  type Row = { seq: number; type: string; actor: string | null; payload: string; createdAt: string };
  const rows = native
    .prepare(`SELECT seq, type, actor, payload, createdAt FROM "RunEvent" WHERE runId = ? ORDER BY seq`)
    .all(runId) as Row[];
  const isBody = (r: Row) => ["model.turn", "tool.call", "tool.result"].includes(r.type);
  const first = rows.findIndex(isBody);
  const last = rows.length - 1 - [...rows].reverse().findIndex(isBody);
  const [head, body, tail] = [rows.slice(0, first), rows.slice(first, last + 1), rows.slice(last + 1)];
  const maxStep = Math.max(1, ...body.map((r) => Number((JSON.parse(r.payload) as { step?: number }).step ?? 0)));
  const renumber = (v: unknown, copy: number): unknown => {
    if (Array.isArray(v)) return v.map((x) => renumber(x, copy));
    if (!v || typeof v !== "object") return v;
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [
        k,
        k === "step" && typeof x === "number"
          ? x + copy * maxStep
          : k === "toolCallId" && typeof x === "string"
            ? `${x}-${copy}`
            : renumber(x, copy),
      ]),
    );
  };
  const copies = Math.max(1, Math.floor((n - head.length - tail.length) / body.length));
  const grown = [
    ...head,
    ...Array.from({ length: copies }, (_, c) =>
      body.map((r) => ({ ...r, payload: JSON.stringify(renumber(JSON.parse(r.payload), c)) })),
    ).flat(),
    ...tail,
  ];
  const insert = native.prepare(
    `INSERT INTO "RunEvent" (runId, seq, type, key, actor, payload, createdAt) VALUES (?, ?, ?, NULL, ?, ?, ?)`,
  );
  native.transaction(() => {
    native.prepare(`DELETE FROM "RunEvent" WHERE runId = ?`).run(runId);
    grown.forEach((r, i) => insert.run(runId, i + 1, r.type, r.actor, r.payload, r.createdAt));
  })();
  native.close();
  return grown.length;
}

/** A live run's scenario: fast turns of many task-list updates (its history), then turns paced by a short sleep (the stream). */
const STREAM = { fastTurns: 349, callsPerFastTurn: 15, pacedTurns: 150, sleepS: 0.1 };
const tasks = (i: number) => [{ title: `step ${i}`, status: "doing" as const }];
function streamingScenario() {
  const fast = Array.from({ length: STREAM.fastTurns }, (_, i) => ({
    toolCalls: Array.from({ length: STREAM.callsPerFastTurn }, (_, c) => ({ tool: "update_tasks", args: { tasks: tasks(i * 100 + c) } })),
  }));
  const paced = Array.from({ length: STREAM.pacedTurns }, (_, i) => ({
    text: `Paced step ${i}`,
    toolCalls: [
      { tool: "update_tasks", args: { tasks: tasks(100_000 + i) } },
      { tool: "update_tasks", args: { tasks: tasks(200_000 + i) } },
      { tool: "shell", args: { command: `sleep ${STREAM.sleepS}` } },
    ],
  }));
  return [...fast, ...paced, { text: "Done." }];
}

interface Responsiveness {
  /** Milliseconds from a request to the page until its next frame, sampled every 200 ms. */
  frame: { p50: number; p95: number; max: number; n: number };
  longTasks: { count: number; totalMs: number; maxMs: number };
  /** Events the run logged during the window, per second. */
  eventsPerS: number;
}

/** Samples how soon the open page draws its next frame, and its long tasks, for `ms`; `seq` reads the run's last event number. */
async function responsiveness(page: Page, ms: number, seq: () => number): Promise<Responsiveness> {
  await page.evaluate(() => {
    const w = window as unknown as { __long: number[] };
    w.__long = [];
    new PerformanceObserver((list) => list.getEntries().forEach((e) => w.__long.push(e.duration))).observe({ type: "longtask" });
  });
  const frames: number[] = [];
  const firstSeq = seq();
  const start = performance.now();
  while (performance.now() - start < ms) {
    const t = performance.now();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(0))));
    frames.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 200));
  }
  const elapsedS = (performance.now() - start) / 1000;
  const long = (await page.evaluate(() => (window as unknown as { __long: number[] }).__long)) as number[];
  const sorted = [...frames].sort((a, b) => a - b);
  return {
    frame: {
      p50: sorted[Math.floor(sorted.length / 2)],
      p95: sorted[Math.floor(sorted.length * 0.95)],
      max: sorted[sorted.length - 1],
      n: sorted.length,
    },
    longTasks: { count: long.length, totalMs: long.reduce((a, b) => a + b, 0), maxMs: Math.max(0, ...long) },
    eventsPerS: (seq() - firstSeq) / elapsedS,
  };
}

/** A finished run's trace replaced by a synthetic one: a run span, 99 agents, model and tool calls under them. */
function seedTrace(dbFile: string, runId: string, n: number) {
  const native = openNativeSqlite(`file:${dbFile}`);
  const iso = (t: number) => new Date(t).toISOString().replace("Z", "+00:00");
  const t0 = Date.now() - 3_600_000;
  const traceId = traceIdOf(runId);
  const root = spanIdOf(runId, "run");
  const insert = native.prepare(
    `INSERT INTO "Span" ("spanId", "traceId", "parentSpanId", "runId", "kind", "name", "startTime", "endTime", "status", "teamId", "workflowId", "userId",
       "model", "tool", "inputTokens", "outputTokens", "cachedInputTokens", "costUsd", "attributes", "detail")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 'demo-coder', NULL, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const attrs = (extra: Record<string, unknown>) =>
    JSON.stringify({
      "rein.run_id": runId,
      "rein.team_id": "",
      "rein.workflow_id": "demo-coder",
      "rein.user_id": "bench",
      "rein.tier": "T1",
      "gen_ai.conversation.id": runId,
      ...extra,
    });
  native.transaction(() => {
    native.prepare(`DELETE FROM "Span" WHERE "runId" = ?`).run(runId);
    insert.run(
      root,
      traceId,
      null,
      runId,
      "run",
      "run demo-coder",
      iso(t0),
      iso(t0 + n * 50 + 1000),
      "ok",
      null,
      null,
      n,
      n,
      0,
      1.5,
      attrs({ "rein.cost_usd": 1.5 }),
      null,
    );
    let agent = root;
    for (let i = 1; i < n; i++) {
      const at = t0 + i * 50;
      if (i % 100 === 1) {
        agent = spanIdOf(runId, "agent", String(i));
        insert.run(
          agent,
          traceId,
          root,
          runId,
          "invoke_agent",
          "invoke_agent coder",
          iso(at),
          iso(at + 4990),
          "ok",
          null,
          null,
          0,
          0,
          0,
          0,
          attrs({ "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "coder" }),
          null,
        );
        continue;
      }
      const chat = i % 2 === 0;
      const detail = JSON.stringify({ input: { text: "x".repeat(400) }, output: { text: "y".repeat(600) } });
      if (chat) {
        insert.run(
          spanIdOf(runId, "chat", String(i)),
          traceId,
          agent,
          runId,
          "chat",
          "chat scripted/demo-coder",
          iso(at),
          iso(at + 40),
          "ok",
          "scripted/demo-coder",
          null,
          1,
          1,
          0,
          0.0003,
          attrs({
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "scripted",
            "gen_ai.request.model": "scripted/demo-coder",
            "gen_ai.usage.input_tokens": 1,
            "gen_ai.usage.output_tokens": 1,
            "rein.step": i,
          }),
          detail,
        );
      } else {
        insert.run(
          spanIdOf(runId, "tool", String(i)),
          traceId,
          agent,
          runId,
          "execute_tool",
          "execute_tool shell",
          iso(at),
          iso(at + 40),
          i % 97 === 0 ? "error" : "ok",
          null,
          "shell",
          0,
          0,
          0,
          0,
          attrs({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "shell", "gen_ai.tool.call.id": `call-${i}` }),
          detail,
        );
      }
    }
  })();
  native.close();
}

async function main() {
  if (!fs.existsSync("dist/server.mjs")) throw new Error("dist/server.mjs is missing: run npm run build first");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-pages-"));
  const dbFile = path.join(dataDir, "rein.db");
  const url = `file:${dbFile}`;
  execFileSync("bash", ["scripts/prisma.sh", "migrate", "deploy"], { env: { ...process.env, DATABASE_URL: url }, stdio: "pipe" });
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const server = await startServer(dataDir, url, port);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: QUIET_CHROMIUM_ARGS,
  });
  try {
    CONTEXT = { baseURL: base, extraHTTPHeaders: { origin: base }, viewport: { width: 1440, height: 900 } };
    const context = await browser.newContext(CONTEXT);
    const page = await context.newPage();
    await page.goto("/login");
    await page.getByLabel("Email").fill(ADMIN.email);
    await page.getByLabel("Password").fill(ADMIN.password);
    await page.getByTestId("login-submit").click();
    await page.waitForURL(/\/runs$/);

    // A fresh install: no runs, no spans, no rollups.
    const costsFresh = await p50Of(page, "/costs", COSTS_DRAWN);
    const runsFresh = await p50Of(page, "/runs", RUNS_DRAWN);

    // One finished demo-coder run, its trace swapped for 10,000 spans.
    const created = await page.request.post("/api/trpc/runs.create", {
      data: { json: { goal: "Write fizzbuzz with tests", agent: "demo-coder" } },
    });
    if (!created.ok()) throw new Error(`runs.create: ${await created.text()}`);
    const runId = ((await created.json()) as { result: { data: { json: { id: string } } } }).result.data.json.id;
    for (let status = ""; !["succeeded", "failed", "canceled"].includes(status); await new Promise((r) => setTimeout(r, 300))) {
      const got = await page.request.get(`/api/trpc/runs.get?input=${encodeURIComponent(JSON.stringify({ json: { id: runId } }))}`);
      status = ((await got.json()) as { result: { data: { json: { status: string } } } }).result.data.json.status;
    }
    await new Promise((r) => setTimeout(r, 1500)); // its own spans are written a moment later; then replaced
    // The run page as the run ended, then with its event log grown to 10,000 events.
    const runPage = await p50Of(page, `/runs/${runId}`, RUN_DRAWN);
    const grownTo = growEvents(dbFile, runId, LONG_RUN_EVENTS);
    const longRunPage = await p50Of(page, `/runs/${runId}`, RUN_DRAWN);
    seedTrace(dbFile, runId, TRACE_SPANS);

    // A live run: its history written fast, then opened while its paced turns stream in.
    const live = await page.request.post("/api/trpc/runs.create", {
      data: {
        json: { goal: "A long run, watched live", agent: "demo-coder", scenario: streamingScenario(), maxSteps: 500, budgetUsd: 100 },
      },
    });
    if (!live.ok()) throw new Error(`runs.create (live run): ${await live.text()}`);
    const liveId = ((await live.json()) as { result: { data: { json: { id: string } } } }).result.data.json.id;
    const reader = openNativeSqlite(`file:${dbFile}`);
    const runRow = reader.prepare(`SELECT lastSeq, status FROM "Run" WHERE id = ?`);
    const liveRow = () => runRow.get(liveId) as { lastSeq: number; status: string };
    const historyEvents = STREAM.fastTurns * (1 + 2 * STREAM.callsPerFastTurn);
    for (const t0 = Date.now(); liveRow().lastSeq < historyEvents; await new Promise((r) => setTimeout(r, 250))) {
      if (["succeeded", "failed", "canceled"].includes(liveRow().status))
        throw new Error(`the live run ended (${liveRow().status}) after ${liveRow().lastSeq} events, before its history was written`);
      if (Date.now() - t0 > 600_000) throw new Error(`the live run wrote ${liveRow().lastSeq} events in 10 minutes`);
    }
    const opened = await timeToDrawn(page, `/runs/${liveId}`, RUN_DRAWN);
    const atOpen = liveRow().lastSeq;
    const streamingWindow = await responsiveness(page, 10_000, () => liveRow().lastSeq);
    for (
      const t0 = Date.now();
      !["succeeded", "failed", "canceled"].includes(liveRow().status);
      await new Promise((r) => setTimeout(r, 500))
    )
      if (Date.now() - t0 > 300_000) throw new Error(`the live run did not end within 5 minutes (${liveRow().status})`);
    if (liveRow().status !== "succeeded") throw new Error(`the live run ended ${liveRow().status}`);
    // The page follows to the end: the header says so without a reload.
    await page.waitForFunction(`${has("run-status")}?.textContent?.toLowerCase().includes("succeeded")`, undefined, { timeout: 60_000 });
    const idleWindow = await responsiveness(page, 10_000, () => liveRow().lastSeq);
    const liveTotal = liveRow().lastSeq;
    reader.close();

    const trace = await p50Of(page, `/runs/${runId}?tab=trace`, TRACE_DRAWN);
    const runs = await p50Of(page, "/runs", RUNS_DRAWN);
    await context.close();

    // The trace queries, in this process on the same database.
    const db = await openDb(url);
    const whole: number[] = [];
    const first: number[] = [];
    for (let i = 0; i < QUERY_ROUNDS; i++) {
      let s = performance.now();
      const all = await listRunSpans(db, runId);
      whole.push(performance.now() - s);
      s = performance.now();
      const page1 = await runSpanPage(db, { runId });
      first.push(performance.now() - s);
      if (all.spans.length !== TRACE_SPANS || page1.spans.length === 0)
        throw new Error(`unexpected trace: ${all.spans.length} spans, first page ${page1.spans.length}`);
    }
    const firstRows = (await runSpanPage(db, { runId })).spans.length;
    await db.$disconnect();

    type Timing = { warm: number; cold: number; js: number };
    const ratio = (a: number, b?: number) => (b ? `  ${(a / b).toFixed(2)}x` : "       ");
    const row = (name: string, t: Timing, base?: Timing) =>
      console.log(
        `  ${name.padEnd(38)}${ms(t.warm)}${ratio(t.warm, base?.warm)}   ${ms(t.cold)}${ratio(t.cold, base?.cold)}   ${t.js.toFixed(0).padStart(6)} KB`,
      );
    console.log(`bench:pages — p50 of ${LOADS} loads, headless Chromium against the built app; time from navigation until drawn`);
    console.log(
      `  ${"".padEnd(38)}${"cached".padStart(9)}${"".padEnd(7)}   ${"new browser".padStart(11)}${"".padEnd(4)}   JS by then  (x the runs list)`,
    );
    row("runs list, fresh install (baseline)", runsFresh);
    row("costs page, fresh install", costsFresh, runsFresh);
    row("runs list, one run (baseline)", runs);
    row(`trace tab, ${TRACE_SPANS.toLocaleString("en")} spans: first rows`, trace, runs);
    row("run page, the run as it ended (baseline)", runPage);
    row(`run page, ${grownTo.toLocaleString("en")} events: first screen`, longRunPage, runPage);
    const resp = (name: string, r: Responsiveness) =>
      console.log(
        `  ${name.padEnd(38)}${ms(r.frame.p50)} ${ms(r.frame.p95)} ${ms(r.frame.max)}   ${String(r.longTasks.count).padStart(4)} long tasks, ` +
          `${r.longTasks.totalMs.toFixed(0)} ms in all, longest ${r.longTasks.maxMs.toFixed(0)} ms; ${r.eventsPerS.toFixed(1)} events/s arriving`,
      );
    console.log(
      `a live run's page, opened at ${atOpen.toLocaleString("en")} events (first screen in ${opened.toFixed(0)} ms), ${liveTotal.toLocaleString("en")} at its end; ` +
        `10 s each, the next frame after a request every 200 ms:`,
    );
    console.log(`  ${"".padEnd(38)}${"p50".padStart(9)} ${"p95".padStart(9)} ${"max".padStart(9)}`);
    resp("ended, nothing arriving (baseline)", idleWindow);
    resp("while the run streams", streamingWindow);
    console.log(`server-side trace query, p50 of ${QUERY_ROUNDS}`);
    console.log(`  whole trace (${TRACE_SPANS.toLocaleString("en")} spans)            ${ms(p50(whole))}`);
    console.log(`  first page (${firstRows} spans)                ${ms(p50(first))}   ${(p50(whole) / p50(first)).toFixed(1)}x faster`);
  } finally {
    await browser.close();
    server.kill("SIGTERM");
    await new Promise((r) => server.once("exit", r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
