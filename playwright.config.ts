import fs from "node:fs";
import { defineConfig } from "@playwright/test";

// Playwright cannot download browsers on the build machines; it drives the
// Debian Chromium (apt-get install chromium). CHROMIUM_PATH overrides the path.
const chromium = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
if (!fs.existsSync(chromium)) {
  throw new Error(
    `Chromium not found at ${chromium}: install it (Debian: apt-get install -y --no-install-recommends chromium) ` +
      `or set CHROMIUM_PATH to a Chromium binary.`,
  );
}

// REIN_E2E_PORT lets two checkouts run their browser tests side by side.
const PORT = Number(process.env.REIN_E2E_PORT) || 3100;

// Specs that change or count what every spec shares (prices, budgets, the policy, routing, tiers, teams,
// channels and webhooks, the improver's settings, the inbox's open requests, the whole runs list): they
// run one at a time after the others, which share the server two at a time (docs/development.md#what-the-tests-cover).
const ALONE = [
  "costs",
  "desktop",
  "extensions",
  "inbox",
  "keyboard",
  "models",
  "people",
  "policy",
  "runs-list",
  "skills",
  "slack",
  "team-picker",
  "webhooks",
].map((name) => `**/${name}.spec.ts`);

// A run of chosen spec files (`playwright test e2e/x.spec.ts`) runs just those, one at a time as
// before: a teardown project always runs in full, whatever files were chosen.
const chosenFiles = process.argv.some((arg) => /\.spec(\.ts)?$/.test(arg));

const browser = {
  browserName: "chromium" as const,
  headless: true,
  launchOptions: {
    executablePath: chromium,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  },
};

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results/playwright",
  timeout: 60_000,
  retries: 0,
  // Two specs at a time; a spec's own tests still run in order, in one browser.
  workers: chosenFiles ? 1 : 2,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  reporter: "list",
  // Screenshot baselines (e2e/screens.spec.ts) live beside the specs, one per test and name.
  snapshotPathTemplate: "{testDir}/screens/{arg}{ext}",
  expect: {
    toHaveScreenshot: { maxDiffPixelRatio: 0.005, animations: "disabled", caret: "hide", scale: "css" },
  },
  use: {
    baseURL: `http://localhost:${PORT}`,
    // Rein takes changes with a session cookie only from its own pages (their Origin); the tests'
    // direct API calls (page.request) say they come from there, as the browser's own requests do.
    extraHTTPHeaders: { origin: `http://localhost:${PORT}` },
    trace: "retain-on-failure",
  },
  projects: [
    // A teardown runs after its project even when a test there failed, so "alone" always runs, and last.
    { name: "chromium", testIgnore: ALONE, teardown: chosenFiles ? undefined : "alone", use: browser },
    { name: "alone", testMatch: ALONE, workers: 1, use: browser },
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
