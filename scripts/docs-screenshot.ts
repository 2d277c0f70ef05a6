// npm run docs:screenshot — makes docs/images/run-page.png, the README's
// picture of a run page, then walks the role journeys for the pictures of
// docs/getting-started.md (journey-*.png). The run page: the built server (dist/server.mjs, see npm run build)
// on a free port and a fresh temporary data directory, a demo-coder run
// launched through the New run dialog in Chromium, and a 1280x800 screenshot
// of its page once the run has succeeded. The server and the data directory
// are gone again afterwards. CHROMIUM_PATH overrides /usr/bin/chromium.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser } from "playwright-core";
import { freePort } from "@/test/helpers/server-process";
import { CHROMIUM, QUIET_CHROMIUM_ARGS } from "@/test/helpers/chromium";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const OUT = path.join(root, "docs", "images", "run-page.png");
const ADMIN_EMAIL = "admin@rein.test";
const ADMIN_PASSWORD = "rein-docs-screenshot";
const VIEWPORT = { width: 1280, height: 800 };

function log(message: string) {
  console.log(`[docs:screenshot] ${message}`);
}

/** Polls /api/health until the server answers, or it exits, or the time is up. */
async function waitForHealth(baseUrl: string, server: ChildProcess, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (server.exitCode !== null || server.signalCode !== null)
      throw new Error(`the server exited (${server.exitCode ?? server.signalCode}) before it answered`);
    try {
      const res = await fetch(`${baseUrl}/api/health`);
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the server did not answer ${baseUrl}/api/health within ${timeoutMs / 1000} s`);
}

async function stopServer(server: ChildProcess) {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
  server.kill("SIGTERM");
  const timer = setTimeout(() => server.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

async function main() {
  for (const file of ["dist/server.mjs", ".next/BUILD_ID"]) {
    if (!fs.existsSync(path.join(root, file))) throw new Error(`${file} is missing: run npm run build first`);
  }
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`Chromium not found at ${CHROMIUM}: install it (apt-get install chromium) or set CHROMIUM_PATH`);

  const port = await freePort();
  const baseUrl = `http://localhost:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-docs-"));
  const databaseUrl = `file:${path.join(dataDir, "rein.db")}`;
  let server: ChildProcess | null = null;
  let browser: Browser | null = null;
  try {
    log("applying the migrations to a fresh data directory");
    const migrate = spawnSync("bash", [path.join(root, "scripts", "prisma.sh"), "migrate", "deploy"], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl },
      encoding: "utf8",
    });
    if (migrate.error || migrate.status !== 0) {
      process.stderr.write(`${migrate.stdout ?? ""}${migrate.stderr ?? ""}`);
      throw new Error("applying the migrations failed");
    }

    // Settings of the calling shell must not reach this server.
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const key of Object.keys(env)) {
      if (key.startsWith("REIN_") || key === "DATABASE_URL" || key === "NEXTAUTH_SECRET" || key === "NEXTAUTH_URL") delete env[key];
    }
    Object.assign(env, {
      NODE_ENV: "production",
      PORT: String(port),
      REIN_DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      REIN_ADMIN_EMAIL: ADMIN_EMAIL,
      REIN_ADMIN_PASSWORD: ADMIN_PASSWORD,
      REIN_SCRIPTED_DELAY_MS: "5",
      REIN_POD_POOL_SIZE: "1",
      REIN_DESKTOP_POOL_SIZE: "0",
      NEXTAUTH_URL: baseUrl,
      NEXT_TELEMETRY_DISABLED: "1",
    });
    log(`starting the built server on port ${port}`);
    const child = spawn(process.execPath, [path.join(root, "dist", "server.mjs")], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    server = child;
    let output = "";
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    try {
      await waitForHealth(baseUrl, child, 120_000);
    } catch (err) {
      process.stderr.write(output);
      throw err;
    }

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: QUIET_CHROMIUM_ARGS,
    });
    // The browser's own requests carry their Origin; nothing here calls the API directly.
    const context = await browser.newContext({ baseURL: baseUrl, viewport: VIEWPORT, deviceScaleFactor: 1, colorScheme: "light" });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);

    log("logging in");
    await page.goto("/login");
    await page.getByLabel("Email").fill(ADMIN_EMAIL);
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByTestId("login-submit").click();
    await page.waitForURL(/\/runs$/);

    log("launching demo-coder");
    await page.getByTestId("new-run-button").click();
    await page.getByTestId("agent-select").selectOption("demo-coder");
    await page.getByTestId("start-run").click();
    await page.waitForURL(/\/runs\/[^/?#]+$/);

    const status = page.getByTestId("run-status");
    await page.waitForFunction(
      () => ["succeeded", "failed", "canceled"].includes(document.querySelector('[data-testid="run-status"]')?.textContent?.trim() ?? ""),
      undefined,
      { timeout: 120_000 },
    );
    const final = (await status.textContent())?.trim();
    if (final !== "succeeded") {
      const reason = await page.locator("body").innerText();
      throw new Error(`the demo-coder run ended ${final}, not succeeded:\n${reason.slice(0, 2000)}`);
    }
    // The header and the timeline have caught up with the log: nothing streams any more.
    await page.getByTestId("streaming-turn").waitFor({ state: "detached" });
    await page.getByTestId("timeline-event").first().waitFor();
    // The live tail keeps the newest events in view; show the test run instead:
    // the model's turn before it, the shell call that runs `node --test`, its
    // output and its exit code.
    const shellCall = page
      .getByTestId("timeline")
      .locator('[data-testid="tool-call"][data-tool="shell"]')
      .filter({ hasText: "node --test" })
      .first();
    await shellCall.evaluate((el) => {
      const event = el.closest('[data-testid="timeline-event"]');
      (event?.previousElementSibling ?? event)?.scrollIntoView({ block: "start" });
    });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.mouse.move(0, VIEWPORT.height - 1);
    await page.waitForTimeout(500);

    fs.mkdirSync(path.dirname(OUT), { recursive: true });
    await page.screenshot({ path: OUT, animations: "disabled", caret: "hide" });
    log(`wrote ${path.relative(root, OUT)} (${Math.round(fs.statSync(OUT).size / 1024)} KB)`);
  } finally {
    await browser?.close().catch(() => {});
    if (server) await stopServer(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The role journeys (docs/getting-started.md#a-tour-by-role): their Playwright specs, run with
 * REIN_DOCS_SCREENSHOTS, save each checkpoint's 1440-pixel light view as docs/images/journey-<name>.png.
 */
function journeys() {
  const specs = ["e2e/journeys.spec.ts", "e2e/people.spec.ts", "e2e/live.spec.ts", "e2e/changes.spec.ts"];
  log(`walking the role journeys (${specs.join(", ")})`);
  const run = spawnSync(
    process.execPath,
    [path.join(root, "node_modules", "@playwright", "test", "cli.js"), "test", ...specs, "--reporter=line"],
    {
      cwd: root,
      env: { ...process.env, REIN_DOCS_SCREENSHOTS: path.dirname(OUT) },
      stdio: "inherit",
    },
  );
  if (run.status !== 0) throw new Error("a role journey failed; its screenshots are not all new");
  for (const f of fs.readdirSync(path.dirname(OUT)).filter((n) => n.startsWith("journey-"))) log(`wrote docs/images/${f}`);
}

main()
  .then(journeys)
  .catch((err) => {
    console.error(`[docs:screenshot] ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
