import fs from "node:fs";
import { defineConfig } from "@playwright/test";
import { CHROMIUM, QUIET_CHROMIUM_ARGS } from "./test/helpers/chromium";

// Playwright cannot download browsers on the build machines; it drives the
// Debian Chromium (apt-get install chromium). CHROMIUM_PATH overrides the path.
const chromium = CHROMIUM;
if (!fs.existsSync(chromium)) {
  throw new Error(
    `Chromium not found at ${chromium}: install it (Debian: apt-get install -y --no-install-recommends chromium) ` +
      `or set CHROMIUM_PATH to a Chromium binary.`,
  );
}

// REIN_E2E_PORT lets two checkouts run their browser tests side by side.
const PORT = Number(process.env.REIN_E2E_PORT) || 3100;

/**
 * The browser tests run on two servers at once, one worker each (docs/development.md#browser-tests):
 * a spec sees only its own server's data, so specs that change what every page shows (prices,
 * budgets, Slack, webhooks) never meet. These specs run on the second server, the rest on the
 * first; the two lists take about the same time. The second server's port is far enough from the
 * first that the ports specs derive from their server's (+7, +11 to +13, +20) never meet either.
 */
const SECOND_SERVER = [
  "screens",
  "people",
  "changes",
  "runs-list",
  "terminal-viewer",
  "files",
  "skills",
  "mcp",
  "cluster",
  "long-runs",
  "costs",
  "keyboard",
  "models",
  "desktop",
  "slack",
  "extensions",
  "audit",
].map((name) => `${name}.spec.ts`);
const SERVERS = [
  { name: "chromium", port: PORT, testIgnore: SECOND_SERVER },
  { name: "chromium-2", port: PORT + 50, testMatch: SECOND_SERVER },
];

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results/playwright",
  timeout: 60_000,
  retries: 0,
  workers: SERVERS.length,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  reporter: "list",
  // Screenshot baselines (e2e/screens.spec.ts) live beside the specs, one per test and name.
  snapshotPathTemplate: "{testDir}/screens/{arg}{ext}",
  expect: {
    // Two servers and two browsers share the machine's cores: a page that answers in a second when
    // alone may take several. A check still passes the moment it holds; only a failure waits longer.
    timeout: 10_000,
    toHaveScreenshot: { maxDiffPixelRatio: 0.005, animations: "disabled", caret: "hide", scale: "css" },
  },
  use: {
    // A failed test keeps its trace (actions, DOM, network) without the screencast: recording frames
    // all along cost about a third of the browser tests' CPU. A failure's last screen is kept on its own.
    trace: { mode: "retain-on-failure", screenshots: false },
    screenshot: "only-on-failure",
  },
  projects: SERVERS.map(({ name, port, testIgnore, testMatch }) => ({
    name,
    ...(testMatch ? { testMatch } : { testIgnore }),
    // One worker per server: the specs of one server run one at a time, as they expect.
    workers: 1,
    use: {
      baseURL: `http://localhost:${port}`,
      // Rein takes changes with a session cookie only from its own pages (their Origin); the tests'
      // direct API calls (page.request) say they come from there, as the browser's own requests do.
      extraHTTPHeaders: { origin: `http://localhost:${port}` },
      browserName: "chromium" as const,
      headless: true,
      launchOptions: {
        executablePath: chromium,
        args: QUIET_CHROMIUM_ARGS,
      },
    },
  })),
  webServer: SERVERS.map(({ port }) => ({
    // A built server (npm run build) on a fresh temporary data directory.
    command: "node scripts/e2e-server.mjs",
    env: { REIN_E2E_PORT: String(port) },
    url: `http://localhost:${port}/api/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "pipe" as const,
    stderr: "pipe" as const,
    // Without this Playwright SIGKILLs the server and its temp dir stays behind.
    gracefulShutdown: { signal: "SIGTERM" as const, timeout: 10_000 },
  })),
});
