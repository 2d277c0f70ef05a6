// What the main pages look like, light and dark, at 1440 and 1024 pixels, compared
// with the baselines in e2e/screens/ (a small tolerance: maxDiffPixelRatio in
// playwright.config.ts). The content is made the same each time: one scripted
// demo-coder run that has ended, and every time, id, duration, token count and
// latency masked. The baselines hold only on a fresh server, so the spec starts
// its own (what the other specs leave on the shared one would show); to accept
// a new look, see docs/development.md ("Screenshot baselines"). Last, every page
// the navigation reaches is opened at 1024 pixels in the dark theme and checked
// for overflow, clipped tables and light patches.
import { spawn, type ChildProcess } from "node:child_process";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { login, trpcGet } from "./fixtures";

// Its own server, beside the shared one (the shared one's port + 20), on a fresh data directory.
const SCREENS_PORT = (Number(process.env.REIN_E2E_PORT) || 3100) + 20;
const SCREENS_URL = `http://localhost:${SCREENS_PORT}`;
let server: ChildProcess | null = null;
let serverOutput = "";

async function startServer() {
  server = spawn(process.execPath, ["scripts/e2e-server.mjs"], {
    env: { ...process.env, REIN_E2E_PORT: String(SCREENS_PORT) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const keep = (chunk: Buffer) => (serverOutput = (serverOutput + chunk.toString()).slice(-4000));
  server.stdout!.on("data", keep);
  server.stderr!.on("data", keep);
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`The screenshots' server exited (${server.exitCode}):\n${serverOutput}`);
    const up = await fetch(`${SCREENS_URL}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`The screenshots' server did not answer within 2 minutes:\n${serverOutput}`);
}

test.use({ baseURL: SCREENS_URL, extraHTTPHeaders: { origin: SCREENS_URL } });

const WIDTHS = [1440, 1024] as const;
const THEMES = ["light", "dark"] as const;
const GOAL = "Write a small FizzBuzz program and run its tests";

/** Whatever reads a clock or an id: relative times, clock times, durations, long ids. */
function volatile(page: Page): Locator[] {
  return [
    page.locator("time"),
    page.getByText(/^(just now|\d+ (s|min|h) ago|yesterday|\d+ days ago)$/),
    page.getByText(/^\d+(\.\d+)? (ms|s)$|^\d+m \d\ds$|^\d+h \d\dm$/),
    page.getByText(/\b\d{1,2}:\d\d(:\d\d)?\b/),
    // A run id, alone in its element: an unanchored pattern would match the text of a whole row or card.
    page.getByText(/^c[a-z0-9]{24}$/),
    page.locator("[data-testid=run-duration], .recharts-xAxis .recharts-cartesian-axis-tick-value, .skeleton"),
    // Token counts: the scripted model counts the words of tool outputs, which name times and paths.
    page.getByText(/^[\d,.]+k? \/ [\d,.]+k?$|^[\d,.]+k? in\b|^\d+(\.\d)?k$/),
    // Latency percentiles and their bars: how long each call took this time.
    page.locator("[data-testid=latency-row] td:nth-child(n+3)"),
    page.getByText(/\b\d{4}-\d\d\b/),
  ];
}

/** The page is settled: data loaded, no skeletons or spinners, fonts ready. */
async function settle(page: Page) {
  await page.waitForLoadState("networkidle");
  await patient(page.locator(".skeleton")).toHaveCount(0);
  await patient(page.locator('[aria-busy="true"]')).toHaveCount(0);
  await page.evaluate(() => document.fonts.ready);
  // Panels that scroll (the timeline) start at their top, wherever following the run left them.
  await page.evaluate(() => {
    for (const el of Array.from(document.querySelectorAll("*"))) if (el.scrollTop > 0) el.scrollTop = 0;
  });
}

let runId = "";
// The pages read the time as if two hours had passed since the run: "2 h ago" everywhere, so a
// relative time never changes width between runs and shifts the layout (masks hide pixels, not that).
let shownAt = 0;
// The machines running the suite are shared and slow: pages get longer to load their data.
const patient = expect.configure({ timeout: 20_000 });
// One login for all the screens (written by beforeAll, read by each test's browser context).
const SESSION = "test-results/playwright/screens-session.json";

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(240_000);
  await startServer();
  const context = await browser.newContext({
    baseURL: SCREENS_URL,
    extraHTTPHeaders: { origin: SCREENS_URL },
    storageState: { cookies: [], origins: [] },
  });
  const page = await context.newPage();
  await login(page, SCREENS_URL);
  const { runs } = await trpcGet<{ runs: Array<{ id: string }> }>(page, "runs.list", {});
  expect(runs, "the screenshots' own server starts with no runs").toEqual([]);
  await page.goto("/runs");
  await page.getByTestId("new-run-button").click();
  await page.getByTestId("agent-select").selectOption("demo-coder");
  await expect(page.getByTestId("goal-input")).toHaveValue(GOAL);
  await page.getByTestId("start-run").click();
  await page.waitForURL(/\/runs\/[^/?#]+$/);
  runId = new URL(page.url()).pathname.split("/").pop()!;
  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 60_000 });
  // Spans are written in batches: wait until the run's trace has them all (the count holds still).
  let last = -1;
  await expect
    .poll(
      async () => {
        const count = (await trpcGet<{ spans: unknown[] }>(page, "traces.search", {})).spans.length;
        const still = count > 0 && count === last;
        last = count;
        return still;
      },
      { timeout: 30_000, intervals: [1_000] },
    )
    .toBe(true);
  const created = (await trpcGet<{ runs: Array<{ id: string; createdAt: string }> }>(page, "runs.list", {})).runs.find(
    (r) => r.id === runId,
  )!.createdAt;
  shownAt = new Date(created).getTime() + 2 * 3600_000;
  await context.storageState({ path: SESSION });
  await context.close();
});

test.afterAll(async () => {
  if (!server || server.exitCode !== null) return;
  const exited = new Promise((r) => server!.once("exit", r));
  server.kill("SIGTERM");
  await exited;
});

const PAGES: Array<{ name: string; path: () => string; ready: (page: Page) => Promise<void> }> = [
  { name: "runs", path: () => "/runs", ready: (p) => patient(p.getByTestId("run-row")).toHaveCount(1) },
  {
    name: "run",
    path: () => `/runs/${runId}`,
    ready: async (p) => {
      await patient(p.getByTestId("run-status")).toHaveText("succeeded");
      await patient(p.getByTestId("streaming-turn")).toHaveCount(0);
    },
  },
  { name: "inbox", path: () => "/inbox", ready: (p) => patient(p.getByRole("heading", { name: "Inbox" })).toBeVisible() },
  { name: "traces", path: () => "/traces", ready: (p) => patient(p.getByTestId("trace-row")).toHaveCount(1) },
  { name: "costs", path: () => "/costs", ready: (p) => patient(p.locator(".recharts-surface").first()).toBeVisible() },
  { name: "settings", path: () => "/settings/tokens", ready: (p) => patient(p.getByTestId("settings-nav")).toBeVisible() },
];

for (const theme of THEMES) {
  for (const width of WIDTHS) {
    test.describe(`${theme} at ${width} px`, () => {
      test.use({ viewport: { width, height: 900 }, colorScheme: theme, storageState: SESSION });

      for (const screen of PAGES) {
        test(screen.name, async ({ page }) => {
          await page.clock.setFixedTime(shownAt);
          await page.goto(screen.path());
          await patient(page.locator("html")).toHaveCSS("color-scheme", theme);
          await screen.ready(page);
          await settle(page);
          // Nothing is clipped at either width: wide tables scroll inside their card, never the page.
          expect(
            await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
            "the page is wider than the window",
          ).toBeLessThanOrEqual(0);
          await expect(page).toHaveScreenshot(`${screen.name}-${theme}-${width}.png`, {
            fullPage: true,
            mask: volatile(page),
            timeout: 30_000,
          });
        });
      }
    });
  }
}

// Every page a person can open from the navigation, at 1024 pixels: none is wider than the window, and a
// table wider than its card scrolls inside it (the card's scroll shadow shows there is more).
const EVERY_PAGE = [
  "/runs",
  "/runs/{run}",
  "/inbox",
  "/traces",
  "/traces?view=spans",
  "/costs",
  "/audit",
  "/memory",
  "/profile",
  "/agents",
  "/agents/demo-coder",
  "/agents/new",
  "/skills",
  "/skills/new",
  "/extensions",
  "/evals",
  "/evals/experiments",
  "/improvements",
  "/improvements/changes",
  "/settings",
  "/settings/people",
  "/settings/teams",
  "/settings/tokens",
  "/settings/secrets",
  "/settings/models",
  "/settings/prices",
  "/settings/budgets",
  "/settings/tiers",
  "/settings/devices",
  "/settings/policy",
  "/settings/channels",
  "/settings/mcp",
  "/settings/repositories",
  "/settings/telemetry",
  "/settings/data",
  "/settings/improvements",
  "/settings/system",
];

test.describe("every page at 1024 px", () => {
  test.use({ viewport: { width: 1024, height: 800 }, colorScheme: "dark", storageState: SESSION });

  test("no page is wider than the window, no table is clipped, and dark mode has no light patches", async ({ page }) => {
    test.setTimeout(240_000);
    const problems: string[] = [];
    for (const path of EVERY_PAGE) {
      const url = path.replace("{run}", runId);
      const res = await page.goto(url);
      if (!res?.ok()) {
        problems.push(`${path}: HTTP ${res?.status()}`);
        continue;
      }
      await page.waitForLoadState("networkidle");
      await patient(page.locator(".skeleton")).toHaveCount(0);
      const found = await page.evaluate(() => {
        const out: string[] = [];
        const over = document.documentElement.scrollWidth - window.innerWidth;
        if (over > 0) out.push(`the page is ${over} px wider than the window`);
        for (const table of Array.from(document.querySelectorAll("table"))) {
          const box = table.parentElement!;
          if (table.getBoundingClientRect().width <= box.clientWidth + 1) continue;
          const scrolls = /(auto|scroll)/.test(getComputedStyle(box).overflowX);
          if (!scrolls || !box.closest(".table-wrap"))
            out.push(
              `a table (${table.getAttribute("data-testid") ?? table.className}) is wider than its card and does not scroll inside it`,
            );
        }
        // A colour written into a component instead of a token shows as a light patch in the dark theme.
        for (const el of Array.from(document.querySelectorAll<HTMLElement>("body *"))) {
          const rect = el.getBoundingClientRect();
          if (rect.width < 16 || rect.height < 12) continue;
          const m = /^rgba?\((\d+), (\d+), (\d+)(?:, ([\d.]+))?\)$/.exec(getComputedStyle(el).backgroundColor);
          if (!m || (m[4] !== undefined && Number(m[4]) < 0.5)) continue;
          const [r, g, b] = [m[1], m[2], m[3]].map(Number);
          if (r + g + b > 600)
            out.push(
              `a light ${el.tagName.toLowerCase()}${el.className && typeof el.className === "string" ? `.${el.className.split(" ")[0]}` : ""} (${m[0]}) in the dark theme`,
            );
        }
        return out;
      });
      problems.push(...found.map((f) => `${path}: ${f}`));
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
