// Several machines in a real browser: a web process (the pages) and a worker
// process (the runs) of the built server, on a PostgreSQL schema and a Redis
// prefix of their own. The browser, connected to the web process, watches a
// run's terminal whose pod lives on the worker, takes it over, types a
// command, sees its output, and hands it back; the run finishes on a worker.
// Then the same for a desktop: demo-browser's desktop is a worker's, the
// browser sees it and clicks on it through the web process, and the run
// resumes on that worker (of two), where the page the person left is.
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import IORedis from "ioredis";
import pg from "pg";
import { expect, test, type Page } from "@playwright/test";
import { canvasFacts, isGreen, openDesktop } from "./desktop-canvas";
import { ADMIN_EMAIL, ADMIN_PASSWORD, login } from "./fixtures";

const PG_URL = process.env.REIN_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const E2E_PORT = Number(process.env.REIN_E2E_PORT) || 3100;
const WEB_PORT = E2E_PORT + 11;
const WORKER_PORTS = [E2E_PORT + 12, E2E_PORT + 13];
const WEB = `http://localhost:${WEB_PORT}`;

// The page and its API calls come from this web process (playwright.config.ts names the main e2e server).
test.use({ baseURL: WEB, extraHTTPHeaders: { origin: WEB } });

const schema = `e2e_cluster_${crypto.randomBytes(4).toString("hex")}`;
const prefix = `rein-e2e-${schema}`;
const databaseUrl = `${PG_URL}?schema=${schema}`;
let dataDir = "";
const procs: Array<{ child: ChildProcess; output: () => string }> = [];

function start(role: "web" | "worker", port: number, ready: string) {
  let out = "";
  const child = spawn(process.execPath, [path.join("dist", "server.mjs")], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      REIN_ROLE: role,
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      REIN_REDIS_PREFIX: prefix,
      REIN_DATA_DIR: dataDir,
      NEXTAUTH_SECRET: "e2e-cluster-secret-0123456789abcdef",
      REIN_PUBLIC_URL: WEB,
      NEXTAUTH_URL: WEB,
      REIN_ADMIN_EMAIL: ADMIN_EMAIL,
      REIN_ADMIN_PASSWORD: ADMIN_PASSWORD,
      REIN_POD_POOL_SIZE: "0",
      REIN_DESKTOP_POOL_SIZE: "0",
      REIN_SCRIPTED_DELAY_MS: "5",
      // Where the web process reaches this worker's desktops.
      REIN_INTERNAL_URL: `http://127.0.0.1:${port}`,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const p = { child, output: () => out };
  procs.push(p);
  return new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes(ready)) resolve();
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`The ${role} process exited (${code}) before it was ready:\n${out}`)));
  });
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-e2e-cluster-"));
  // The same migrator as npm run db:migrate, into a schema of its own.
  const migrate = spawn(
    process.execPath,
    ["--disable-warning=MODULE_TYPELESS_PACKAGE_JSON", path.join("server", "db", "migrate-postgres.ts")],
    {
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  migrate.stdout!.on("data", (d: Buffer) => (out += d));
  migrate.stderr!.on("data", (d: Buffer) => (out += d));
  const code = await new Promise<number | null>((resolve) => migrate.on("exit", resolve));
  expect(code, out).toBe(0);
  await start("web", WEB_PORT, "Rein is ready at");
  // Two workers: a run resumes on the one that has its desktop.
  for (const port of WORKER_PORTS) await start("worker", port, "is executing runs");
});

test.afterAll(async () => {
  await Promise.all(
    procs.map(
      ({ child }) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGKILL");
        }),
    ),
  );
  const redis = new IORedis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const keys = await redis.keys(`${prefix}*`).catch(() => [] as string[]);
  if (keys.length) await redis.del(...keys).catch(() => {});
  redis.disconnect();
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
  await client.end();
  fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
});

const logIn = (page: Page) => login(page, WEB);

/** Whether a worker process printed this (its registry id, say). */
const workerSaid = (text: string | undefined) => !!text && procs.slice(1).some((p) => p.output().includes(text));

/** The process holding the run's lease (its registry id, host:pid:…). */
async function leaseOwner(runId: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    return ((await client.query(`SELECT owner FROM "RunLease" WHERE "runId" = $1`, [runId])).rows[0] as { owner: string } | undefined)
      ?.owner;
  } finally {
    await client.end();
  }
}

async function terminalText(page: Page): Promise<string> {
  return page.locator(".xterm-rows").innerText();
}

test("a browser on a web process takes over the terminal of a run executing on a worker, types, and hands it back", async ({ page }) => {
  test.setTimeout(120_000);
  await logIn(page);

  const scenario = {
    turns: [
      { text: "Waiting a moment", toolCalls: [{ tool: "shell", args: { command: "sleep 10" } }] },
      { text: "Back at work", toolCalls: [{ tool: "shell", args: { command: "echo agent-is-back" } }] },
      { text: "Done" },
    ],
  };
  const res = await page.request.post(`${WEB}/api/trpc/runs.create`, {
    data: { json: { goal: "Take over across machines", agent: "demo-coder", scenario } },
  });
  expect(res.ok(), await res.text()).toBe(true);
  const runId = ((await res.json()) as { result: { data: { json: { id: string } } } }).result.data.json.id;

  await page.goto(`${WEB}/runs/${runId}?tab=terminal`);
  await expect.poll(() => terminalText(page), { timeout: 30_000 }).toMatch(/sleep 10/);
  // The pod is the worker's: the web process has none of its own.
  const owner = await leaseOwner(runId);
  expect(owner).toMatch(/:\d+:/);
  expect(workerSaid(owner)).toBe(true);

  await expect(page.getByTestId("terminal-controller")).toHaveText("The agent is at the keyboard");
  await page.getByTestId("terminal-takeover").click();
  await expect(page.getByTestId("terminal-controller")).toHaveText("You control the terminal; the agent is paused", { timeout: 30_000 });
  await expect(page.getByTestId("run-status")).toHaveText("paused");

  await page.getByTestId("terminal-viewport").click();
  await page.keyboard.type("echo hello-from-$((40+2))");
  await page.keyboard.press("Enter");
  await expect.poll(() => terminalText(page), { timeout: 15_000 }).toMatch(/^hello-from-42\s*$/m);

  await page.getByTestId("terminal-handback").click();
  await expect(page.getByTestId("terminal-handback")).toHaveCount(0, { timeout: 10_000 });
  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 45_000 });
  await expect.poll(() => terminalText(page), { timeout: 15_000 }).toMatch(/^agent-is-back\s*$/m);

  await page.getByTestId("tab-timeline").click();
  await expect(page.getByTestId("terminal-input-text")).toHaveText("echo hello-from-$((40+2))");
});

test("a browser on a web process watches and clicks the desktop of a run executing on a worker", async ({ page }) => {
  test.setTimeout(180_000);
  await logIn(page);
  const res = await page.request.post(`${WEB}/api/trpc/runs.create`, {
    data: { json: { goal: "Order stickers across machines", agent: "demo-browser" } },
  });
  expect(res.ok(), await res.text()).toBe(true);
  const runId = ((await res.json()) as { result: { data: { json: { id: string } } } }).result.data.json.id;

  // An operator's consent to move to the desktop, given in the Inbox of the web process.
  await page.goto(`${WEB}/runs/${runId}`);
  await expect(page.getByTestId("run-status")).toHaveText("waiting for human", { timeout: 30_000 });
  await page.getByTestId("waiting-open-inbox").click();
  const detail = page.getByTestId("request-detail");
  await expect(detail.getByTestId("request-title")).toContainText("Let demo-browser move to T2 (desktop)?");
  await detail.getByTestId("decide-approve").click();
  await expect(detail.getByTestId("decision-outcome")).toContainText("Approved by");

  // The desktop starts on the worker; the agent fills in the form there and keeps the page open.
  await page.goto(`${WEB}/runs/${runId}`);
  await expect(page.getByTestId("run-tier")).toHaveText("T2 · desktop", { timeout: 60_000 });
  await expect(page.getByTestId("timeline").locator('[data-testid="tool-call"][data-tool="browser_wait"]')).toBeVisible({
    timeout: 60_000,
  });
  const owner = await leaseOwner(runId);
  expect(workerSaid(owner)).toBe(true);
  const canvas = await openDesktop(page);
  await expect.poll(async () => (await canvasFacts(canvas)).share, { timeout: 20_000 }).toBeGreaterThan(0.05);

  // Take over through the web process: the click reaches the worker's desktop, and the picture comes back.
  await page.getByTestId("desktop-takeover").click();
  await expect(page.getByTestId("desktop-controller")).toHaveText("You control the desktop", { timeout: 60_000 });
  const box = (await canvas.boundingBox())!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await expect.poll(async () => isGreen((await canvasFacts(canvas)).middle), { timeout: 20_000 }).toBe(true);

  await page.getByTestId("desktop-handback").click();
  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 60_000 });
  await page.getByTestId("tab-timeline").click();
  // The agent read the page the person left: it resumed where the desktop is.
  await expect(page.getByTestId("timeline").locator('[data-testid="tool-result"][data-tool="browser_read"]').last()).toContainText(
    "Confirmed by a person at",
  );
  expect(await leaseOwner(runId)).toBe(owner);
});
