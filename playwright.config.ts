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

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results/playwright",
  timeout: 60_000,
  retries: 0,
  // One server, one spec at a time. Two servers with a worker each were measured slower on two cores
  // (1,546 s against about 1,330 s): every step waits on the same CPU (docs/development.md#browser-tests).
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  reporter: "list",
  // Screenshot baselines (e2e/screens.spec.ts) live beside the specs, one per test and name.
  snapshotPathTemplate: "{testDir}/screens/{arg}{ext}",
  expect: {
    toHaveScreenshot: { maxDiffPixelRatio: 0.005, animations: "disabled", caret: "hide", scale: "css" },
  },
  use: {
    // A failed test keeps its trace (actions, DOM, network) without the screencast: recording frames
    // all along cost about a third of the browser tests' CPU. A failure's last screen is kept on its own.
    trace: { mode: "retain-on-failure", screenshots: false },
    screenshot: "only-on-failure",
  },
  projects: [
    {
      name: "chromium",
      use: {
        baseURL: `http://localhost:${PORT}`,
        // Rein takes changes with a session cookie only from its own pages (their Origin); the tests'
        // direct API calls (page.request) say they come from there, as the browser's own requests do.
        extraHTTPHeaders: { origin: `http://localhost:${PORT}` },
        browserName: "chromium",
        headless: true,
        launchOptions: {
          executablePath: chromium,
          args: QUIET_CHROMIUM_ARGS,
        },
      },
    },
  ],
  webServer: {
    // A built server (npm run build) on a fresh temporary data directory.
    command: "node scripts/e2e-server.mjs",
    url: `http://localhost:${PORT}/api/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "pipe",
    stderr: "pipe",
    // Without this Playwright SIGKILLs the server and its temp dir stays behind.
    gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
  },
});
