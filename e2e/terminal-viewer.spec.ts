// What people who may only watch see of a run's terminal: the live output,
// no way to take it over, and keystrokes that reach nothing (the browser does
// not send them and the server drops them). And the banner a server without
// a working sandbox shows.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { io } from "socket.io-client";
import { ADMIN_EMAIL, ADMIN_PASSWORD, baseUrl, login } from "./fixtures";

async function fillLogin(page: Page, email: string, password: string) {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByTestId("login-submit").click();
}

async function trpcPost<T>(request: APIRequestContext, procedure: string, input: unknown): Promise<T> {
  const res = await request.post(`/api/trpc/${procedure}`, { data: { json: input } });
  expect(res.ok(), `${procedure}: ${await res.text()}`).toBe(true);
  return (await res.json()).result.data.json as T;
}

async function runEvents(request: APIRequestContext, runId: string): Promise<Array<{ type: string; payload: Record<string, unknown> }>> {
  const input = encodeURIComponent(JSON.stringify({ json: { id: runId, limit: 1000 } }));
  const res = await request.get(`/api/trpc/runs.events?input=${input}`);
  expect(res.ok(), await res.text()).toBe(true);
  return (await res.json()).result.data.json;
}

/** The text xterm shows, row by row (the DOM renderer's rows). */
const terminalText = (page: Page) => page.locator(".xterm-rows").innerText();

test("a viewer watches a run's terminal but cannot take it over or type in it", async ({ page, browser }) => {
  test.setTimeout(90_000);
  await login(page);
  const email = `terminal-viewer-${Date.now().toString(36)}@rein.test`;
  const password = "viewer-password-1";
  await trpcPost(page.request, "users.create", { email, name: "Vera Viewer", password, role: "viewer" });
  // The agent prints, then waits until the test says go (a file in the workspace), then prints again.
  const waitForGo = "echo visible-$((1+1)); for i in $(seq 1 300); do [ -f go.txt ] && break; sleep 0.2; done; echo after-$((2+2))";
  const scenario = { turns: [{ text: "Working", toolCalls: [{ tool: "shell", args: { command: waitForGo } }] }, { text: "Done" }] };
  const { id: runId } = await trpcPost<{ id: string }>(page.request, "runs.create", {
    agent: "demo-coder",
    goal: "A terminal a viewer watches",
    scenario,
  });

  const context = await browser.newContext();
  try {
    const viewer = await context.newPage();
    await viewer.goto(`/runs/${runId}?tab=terminal`);
    await fillLogin(viewer, email, password);
    // A first page in a fresh context on a busy machine: as login() allows.
    await expect(viewer.getByTestId("user-role")).toHaveText("viewer", { timeout: 30_000 });
    await expect(viewer.getByTestId("terminal-tab")).toBeVisible();

    // The viewer sees the agent's command and its output, live.
    await expect.poll(() => terminalText(viewer), { timeout: 30_000 }).toMatch(/^visible-2\s*$/m);
    await expect(viewer.getByTestId("terminal-controller")).toHaveText("The agent is at the keyboard");
    await expect(viewer.getByTestId("terminal-readonly")).toBeVisible();
    await expect(viewer.getByTestId("terminal-takeover")).toHaveCount(0);

    // Typing into the terminal: the browser sends nothing.
    await viewer.getByTestId("terminal-viewport").click();
    await viewer.locator(".xterm-helper-textarea").focus();
    await viewer.keyboard.type("echo typed-by-viewer-$((3+3))");
    await viewer.keyboard.press("Enter");

    // A viewer's own socket that sends anyway: the server refuses.
    const cookies = (await context.cookies(baseUrl())).map((c) => `${c.name}=${c.value}`).join("; ");
    const socket = io(`${baseUrl()}/terminal`, {
      path: "/socket.io",
      transports: ["websocket"],
      extraHeaders: { cookie: cookies },
      reconnection: false,
      forceNew: true,
    });
    try {
      const emit = <T>(event: string, message: unknown) => new Promise<T>((resolve) => socket.emit(event, message, resolve));
      expect(await emit("attach", { runId })).toMatchObject({ ok: true, canControl: false });
      expect(await emit("input", { runId, data: "echo typed-by-viewer-$((3+3))\r" })).toEqual({
        ok: false,
        error: "Take over the terminal to type in it; until then you are watching",
      });
      expect(await emit("takeover", { runId })).toEqual({ ok: false, error: "Taking over the terminal needs the operator role" });
    } finally {
      socket.close();
    }

    // Let the agent go on: whatever had reached the shell would be on the screen by now.
    await trpcPost(page.request, "files.save", { runId, path: "go.txt", content: "go\n" });
    await expect.poll(() => terminalText(viewer), { timeout: 30_000 }).toMatch(/^after-4\s*$/m);
    await expect(viewer.getByTestId("run-status")).toHaveText("succeeded", { timeout: 30_000 });
    expect(await terminalText(viewer)).not.toMatch(/typed-by-viewer|^6\s*$/m);
    const log = await runEvents(page.request, runId);
    expect(log.filter((e) => e.type === "terminal.input")).toEqual([]);
    expect(log.filter((e) => e.type === "terminal.control")).toEqual([]);
  } finally {
    await context.close();
  }
});

test("a watcher's terminal fits its panel: columns follow the panel width, the pod keeps its own size", async ({ page }) => {
  test.setTimeout(90_000);
  await login(page);
  // One long line of words (wider than the pod's 120 columns), then the agent waits until the test says go.
  const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
  const command = `echo "${words} last-word-$((6*7))"; for i in $(seq 1 300); do [ -f go.txt ] && break; sleep 0.2; done`;
  const scenario = { turns: [{ text: "Working", toolCalls: [{ tool: "shell", args: { command } }] }, { text: "Done" }] };
  const { id: runId } = await trpcPost<{ id: string }>(page.request, "runs.create", {
    agent: "demo-coder",
    goal: "A terminal that fits its panel",
    scenario,
  });

  await page.setViewportSize({ width: 1900, height: 900 });
  await page.goto(`/runs/${runId}?tab=terminal`);
  await expect.poll(() => terminalText(page), { timeout: 30_000 }).toMatch(/last-word-42/);
  const screen = page.getByTestId("terminal-screen");
  const cols = async () => Number(await screen.getAttribute("data-cols"));
  // The pod's size is unchanged: nobody in control set it.
  await expect(page.getByTestId("terminal-size")).toHaveText("120×32");

  // Wide panel: more than the pod's 120 columns, nothing scrolls sideways.
  await expect.poll(cols, { timeout: 10_000 }).toBeGreaterThan(120);
  const wide = await cols();
  const viewport = page.getByTestId("terminal-viewport");
  const overflow = () => viewport.evaluate((el) => el.scrollWidth - el.clientWidth);
  expect(await overflow()).toBeLessThanOrEqual(1);

  // Narrow panel: fewer columns, the same text re-wrapped rather than cut off or scrolled.
  await page.setViewportSize({ width: 800, height: 900 });
  await expect.poll(cols, { timeout: 10_000 }).toBeLessThan(120);
  expect(await cols()).toBeLessThan(wide);
  expect(await overflow()).toBeLessThanOrEqual(1);
  // A word may be split where the row ends; the text is all there.
  await expect.poll(async () => (await terminalText(page)).replace(/\s+/g, "")).toContain("word39last-word-42");
  await expect(page.getByTestId("terminal-size")).toHaveText("120×32");
  await expect(page.getByTestId("terminal-size")).toHaveAttribute("title", /re-wrapped to fit this panel/);

  await trpcPost(page.request, "files.save", { runId, path: "go.txt", content: "go\n" });
  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 30_000 });
});

// ---- a server where the sandbox does not work ----

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * A second built server on its own port and data directory, whose `bwrap`
 * fails the way it does where user namespaces are not allowed.
 */
async function startServerWithoutSandbox(): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-e2e-nosandbox-"));
  const databaseUrl = `file:${path.join(dir, "rein.db")}`;
  const bin = path.join(dir, "bin");
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, "bwrap"), "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n", {
    mode: 0o755,
  });
  const migrate = spawnSync("bash", [path.join("scripts", "prisma.sh"), "migrate", "deploy"], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    encoding: "utf8",
  });
  expect(migrate.status, `${migrate.stdout}\n${migrate.stderr}`).toBe(0);

  const port = await freePort();
  const url = `http://localhost:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith("REIN_") || key === "DATABASE_URL" || key === "NEXTAUTH_SECRET") delete env[key];
  Object.assign(env, {
    NODE_ENV: "production",
    PATH: `${bin}:${process.env.PATH}`,
    PORT: String(port),
    REIN_DATA_DIR: dir,
    DATABASE_URL: databaseUrl,
    REIN_ADMIN_EMAIL: ADMIN_EMAIL,
    REIN_ADMIN_PASSWORD: ADMIN_PASSWORD,
    REIN_SCRIPTED_DELAY_MS: "5",
    REIN_UI: "on",
    NEXTAUTH_URL: url,
    NEXT_TELEMETRY_DISABLED: "1",
  });
  const child: ChildProcess = spawn(process.execPath, [path.join("dist", "server.mjs")], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 90_000;
  for (;;) {
    const up = await fetch(`${url}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`The second server did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, stop };
}

test("a server whose sandbox does not work says so on every page, and runs get no terminal", async ({ browser }) => {
  test.setTimeout(150_000);
  const server = await startServerWithoutSandbox();
  // Its own origin: the config's Origin header names the main test server, another site to this one.
  const context = await browser.newContext({ baseURL: server.url, extraHTTPHeaders: { origin: new URL(server.url).origin } });
  try {
    const page = await context.newPage();
    await page.goto("/login");
    await fillLogin(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await expect(page).toHaveURL(/\/runs$/);
    const banner = page.getByTestId("sandbox-banner");
    await expect(banner).toContainText("Agents cannot use the shell.");
    await expect(banner).toContainText("bubblewrap cannot create namespaces here: bwrap: No permissions to create new namespace");
    await page.goto("/agents");
    await expect(banner).toBeVisible();

    // A run whose agent uses the shell: the Terminal tab says why it has none.
    const scenario = {
      turns: [{ text: "Trying the shell", toolCalls: [{ tool: "shell", args: { command: "echo hi" } }] }, { text: "Done" }],
    };
    const { id: runId } = await trpcPost<{ id: string }>(page.request, "runs.create", {
      agent: "demo-coder",
      goal: "No sandbox here",
      scenario,
    });
    await page.goto(`/runs/${runId}?tab=terminal`);
    await expect(page.getByTestId("terminal-empty")).toContainText("bubblewrap cannot create namespaces here", { timeout: 30_000 });
    await expect(page.getByTestId("terminal-takeover")).toHaveCount(0);
  } finally {
    await context.close();
    await server.stop();
  }
});
