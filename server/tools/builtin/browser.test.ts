// The browser tools against a real desktop (Xvfb + Chromium over CDP) and a
// small site served on 127.0.0.1, called through the ToolRunner so argument
// checks are part of what is tested. One desktop serves all the tests.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OperativeDesktop, checkDesktopPrograms, configureEgress } from "@/server/compute";
import { MemoryReplayCache, ToolRegistry, ToolRunner, Workspace, type ToolContext, type ToolOutcome } from "../index";
import { BROWSER_TOOLS } from "./browser";

const PAGES: Record<string, string> = {
  "/form": `<!doctype html><title>Sign up</title>
    <form action="/result" method="get">
      <label>Name <input id="name" name="name"></label>
      <label>Email <input id="email" name="email" type="email"></label>
      <button type="submit">Send</button>
    </form>`,
  "/click": `<!doctype html><title>Buttons</title>
    <p id="count">Clicked 0 times</p>
    <button id="inc" style="position:absolute;left:40px;top:120px;width:160px;height:40px">Add one</button>
    <p id="key">No key yet</p>
    <input id="field">
    <button id="later" onclick="setTimeout(() => { const p = document.createElement('p'); p.id = 'late'; p.textContent = 'Loaded later'; document.body.append(p); }, 400)">Load later</button>
    <script>
      let n = 0;
      document.getElementById("inc").onclick = () => { document.getElementById("count").textContent = "Clicked " + (++n) + " times"; };
      document.addEventListener("keydown", (e) => { document.getElementById("key").textContent = "Last key: " + e.key; });
    </script>`,
  "/long": `<!doctype html><title>Long</title>${Array.from({ length: 300 }, (_, i) => `<p>Paragraph ${i + 1} of a long page.</p>`).join("")}`,
};

let server: http.Server;
let site: string;
let desktop: OperativeDesktop;
let base: string;
let workspace: Workspace;
const runner = new ToolRunner(new ToolRegistry(BROWSER_TOOLS), new MemoryReplayCache());
const NAMES = BROWSER_TOOLS.map((t) => t.name);
let n = 0;

/** The run's context; `null`: a run without a desktop. */
function context(desktopAccess: ToolContext["desktop"] | null = desktop): ToolContext {
  const ctx: ToolContext = {
    runId: "run-browser",
    workspace,
    agent: { name: "tester", handoffs: [] },
    actorId: "user-test",
    signal: new AbortController().signal,
  };
  return desktopAccess ? { ...ctx, desktop: desktopAccess } : ctx;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

async function call(toolName: string, args: unknown, ctx = context()): Promise<ToolOutcome> {
  const result = await runner.run(
    { toolCallId: `call_${n}`, toolName, args },
    { runId: "run-browser", nodeId: `node-${n++}`, checkpointId: "cp" },
    ctx,
    NAMES,
  );
  return result.outcome;
}

async function ok<T = Record<string, any>>(toolName: string, args: unknown): Promise<T> {
  const outcome = await call(toolName, args);
  if (!outcome.ok) throw new Error(`${toolName} failed: ${outcome.error.code} ${outcome.error.message}`);
  return outcome.output as T;
}

async function fails(toolName: string, args: unknown, ctx?: ToolContext) {
  const outcome = await call(toolName, args, ctx);
  if (outcome.ok) throw new Error(`${toolName} should have failed, but returned ${JSON.stringify(outcome.output).slice(0, 300)}`);
  return outcome.error;
}

/** A PNG's width and height from its IHDR chunk. */
function pngSize(png: Buffer) {
  expect(png.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

beforeAll(async () => {
  const missing = checkDesktopPrograms();
  if (missing) throw new Error(`These tests need the desktop's programs. ${missing}`);
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/result") {
      const name = url.searchParams.get("name") ?? "";
      const email = url.searchParams.get("email") ?? "";
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(`<!doctype html><title>Thanks</title><h1>Thanks, ${name.replace(/</g, "&lt;")} (${email.replace(/</g, "&lt;")})</h1>`);
      return;
    }
    const page = PAGES[url.pathname];
    res.writeHead(page ? 200 : 404, { "content-type": "text/html" }).end(page ?? "<h1>Not found</h1>");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The desktop's browser reaches the host only where allowed (test/attack/desktop-network.test.ts): the test's site is.
  configureEgress({ allow: [{ host: "127.0.0.1", port: (server.address() as AddressInfo).port }] });
  base = fs.mkdtempSync(path.join(os.tmpdir(), "rein-test-browser-"));
  workspace = new Workspace(path.join(base, "ws"));
  await workspace.ensure();
  desktop = await OperativeDesktop.start({ dir: path.join(base, "desktop"), width: 1024, height: 768 });
}, 60_000);

afterAll(async () => {
  await desktop?.stop();
  await new Promise((r) => server?.close(r));
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

describe("browser tools", () => {
  it("fill in a form in the desktop's visible Chromium, submit it, and read the result", { timeout: 60_000 }, async () => {
    const opened = await ok("browser_navigate", { url: `${site}/form` });
    expect(opened).toEqual({ url: `${site}/form`, title: "Sign up", status: 200 });
    // The page is the one on the desktop's screen, not a headless one.
    const tabs = (await (await fetch(`${desktop.cdpEndpoint}/json/list`)).json()) as Array<{ url: string; type: string }>;
    expect(tabs.filter((t) => t.type === "page").map((t) => t.url)).toContain(`${site}/form`);

    expect(await ok("browser_type", { selector: "#name", text: "Ada Lovelace" })).toMatchObject({
      typed: 12,
      into: "#name",
      submitted: false,
    });
    const submitted = await ok("browser_type", { selector: "#email", text: "ada@example.com", submit: true });
    expect(submitted).toMatchObject({ submitted: true, title: "Thanks" });
    expect(submitted.url).toBe(`${site}/result?name=Ada+Lovelace&email=ada%40example.com`);
    const read = await ok("browser_read", { mode: "text" });
    expect(read).toMatchObject({ mode: "text", content: "Thanks, Ada Lovelace (ada@example.com)", truncated: false, title: "Thanks" });
  });

  it("click by selector, by visible text and at a point; press keys; scroll", { timeout: 60_000 }, async () => {
    await ok("browser_navigate", { url: `${site}/click` });
    expect(await ok("browser_click", { selector: "#inc" })).toMatchObject({ clicked: 'the element matching "#inc"', title: "Buttons" });
    await ok("browser_click", { text: "Add one" });
    await ok("browser_click", { x: 120, y: 140 }); // the middle of the button
    expect((await ok("browser_read", { mode: "text", selector: "#count" })).content).toBe("Clicked 3 times");

    await ok("browser_click", { selector: "#field" });
    await ok("browser_press", { key: "Enter" });
    expect((await ok("browser_read", { mode: "text", selector: "#key" })).content).toBe("Last key: Enter");
    await ok("browser_press", { key: "Shift+A" });
    expect((await ok("browser_read", { mode: "text", selector: "#key" })).content).toBe("Last key: A");

    await ok("browser_navigate", { url: `${site}/long` });
    const scrolled = await ok("browser_scroll", { dy: 600 });
    expect(scrolled.scrollY).toBeGreaterThan(0);
    const back = await ok("browser_scroll", { dy: -10_000 });
    expect(back.scrollY).toBe(0);
  });

  it("reads a long page cut to maxChars, and the accessibility snapshot", { timeout: 60_000 }, async () => {
    await ok("browser_navigate", { url: `${site}/long` });
    const text = await ok("browser_read", { mode: "text", maxChars: 500 });
    expect(text.truncated).toBe(true);
    expect(text.totalChars).toBeGreaterThan(5000);
    expect(text.content.startsWith("Paragraph 1 of a long page.")).toBe(true);
    expect(text.content).toMatch(/\[cut: \d+ characters in all; ask for a selector or a larger maxChars\]$/);
    expect(text.content.length).toBeLessThan(700);

    await ok("browser_navigate", { url: `${site}/form` });
    const tree = await ok("browser_read", { mode: "accessibility" });
    expect(tree.content).toContain('textbox "Name"');
    expect(tree.content).toContain('textbox "Email"');
    expect(tree.content).toContain('button "Send"');
  });

  it("takes a small PNG screenshot, and saves the full-size one in the workspace when asked", { timeout: 60_000 }, async () => {
    await ok("browser_navigate", { url: `${site}/form` });
    const shot = await ok("browser_screenshot", { path: "shots/form.png" });
    const png = Buffer.from(shot.image.base64, "base64");
    expect(shot.image.mimeType).toBe("image/png");
    expect(pngSize(png)).toEqual({ width: shot.image.width, height: shot.image.height });
    expect(shot.image.width).toBeLessThanOrEqual(512);
    expect(shot.image.base64.length).toBeLessThanOrEqual(16_000);
    expect(shot.viewport.width).toBeGreaterThan(shot.image.width);
    expect(shot.savedTo).toBe("shots/form.png");
    const full = fs.readFileSync(path.join(workspace.root, "shots/form.png"));
    expect(pngSize(full)).toEqual(shot.viewport);
    // Not a blank image: the scaled-down form has more than one colour's worth of data.
    expect(png.length).toBeGreaterThan(500);
  });

  it("waits for an element, a text or a time, and says what did not appear", { timeout: 60_000 }, async () => {
    await ok("browser_navigate", { url: `${site}/click` });
    await ok("browser_click", { selector: "#later" });
    expect((await ok("browser_wait", { selector: "#late" })).waitedMs).toBeGreaterThan(0);
    await ok("browser_click", { selector: "#later" });
    await ok("browser_wait", { text: "Loaded later" });
    expect((await ok("browser_wait", { ms: 50 })).waitedMs).toBeGreaterThanOrEqual(50);
    const missing = await fails("browser_wait", { selector: "#never", timeoutSec: 1 });
    expect(missing.code).toBe("TIMEOUT");
    expect(missing.message).toMatch(/^Could not see the element matching "#never" within 1 s: gave up after waiting/);
    expect((await fails("browser_wait", { selector: "#a", text: "b" })).code).toBe("INVALID_ARGUMENTS");
  });

  it(
    "ends a wait early when the run is asked to pause, saying so; a wait that is not interrupted says nothing",
    { timeout: 60_000 },
    async () => {
      await ok("browser_navigate", { url: `${site}/click` });
      const pause = new AbortController();
      const ctx = { ...context(), pauseSignal: pause.signal };
      const timer = setTimeout(() => pause.abort(), 300);
      const byTime = await call("browser_wait", { ms: 60_000 }, ctx);
      clearTimeout(timer);
      expect(byTime.ok).toBe(true);
      const output = (byTime as { output: { waitedMs: number; endedEarly?: string } }).output;
      expect(output.endedEarly).toMatch(/asked to pause/);
      expect(output.waitedMs).toBeLessThan(30_000);
      // An element that never comes, with a pause already asked: the wait ends at once instead of timing out.
      const byElement = await call("browser_wait", { selector: "#never", timeoutSec: 30 }, ctx);
      expect(byElement).toMatchObject({ ok: true, output: { endedEarly: expect.stringMatching(/asked to pause/) } });
      // Without a pause, the wait runs its course and says nothing of ending early.
      const plain = await call("browser_wait", { ms: 50 }, { ...context(), pauseSignal: new AbortController().signal });
      expect(plain).toMatchObject({ ok: true });
      expect((plain as { output: Record<string, unknown> }).output.endedEarly).toBeUndefined();
      expect(await fails("browser_wait", { ms: 60_001 })).toMatchObject({ code: "INVALID_ARGUMENTS" });
    },
  );

  it("refuses URLs other than http and https", { timeout: 30_000 }, async () => {
    for (const url of [
      "file:///etc/passwd",
      "chrome://version",
      "javascript:alert(1)",
      "data:text/html,<h1>x</h1>",
      "about:blank",
      "not a url",
    ]) {
      const error = await fails("browser_navigate", { url });
      expect(error.code).toBe("INVALID_ARGUMENTS");
      expect(error.message).toMatch(/only http and https URLs can be opened|is not an absolute URL/);
    }
    // Called without the runner's schema check, the tool refuses as well.
    const navigate = BROWSER_TOOLS.find((t) => t.name === "browser_navigate")!;
    await expect(navigate.execute({ url: "file:///etc/passwd" }, context())).rejects.toMatchObject({ code: "INVALID_URL" });
    const page = await desktop.page();
    expect(page.url()).not.toMatch(/^file:/);
  });

  it("turns Playwright's failures into clear tool errors", { timeout: 60_000 }, async () => {
    await ok("browser_navigate", { url: `${site}/click` });
    const click = await fails("browser_click", { selector: "#missing", timeoutSec: 1 });
    expect(click).toMatchObject({ code: "TIMEOUT" });
    // Playwright's last step, when it logged one before the time was up.
    expect(click.message).toMatch(/^Could not click the element matching "#missing": gave up after waiting( \(last: .*#missing.*\))?$/);
    expect(click.message).not.toMatch(/\u001b/); // no terminal colours
    // A port of this machine no allowance names: the desktop's network stops it before any connection.
    const nowhere = `http://127.0.0.1:${await closedPort()}/`;
    const blocked = await fails("browser_navigate", { url: nowhere });
    expect(blocked.code).toBe("BLOCKED_BY_POLICY");
    expect(blocked.message).toMatch(/may not reach 127\.0\.0\.1:\d+: it is an address of this machine or a private network/);
    // An allowed address that does not answer: the connection is refused.
    const closed = await closedPort();
    configureEgress({
      allow: [
        { host: "127.0.0.1", port: Number(new URL(site).port) },
        { host: "127.0.0.1", port: closed },
      ],
    });
    const refused = await fails("browser_navigate", { url: `http://127.0.0.1:${closed}/` });
    expect(refused.code).toBe("NAVIGATION_FAILED");
    expect(await fails("browser_press", { key: "NoSuchKey" })).toMatchObject({ code: "INVALID_KEY" });
    expect(await fails("browser_click", { selector: "!!!", timeoutSec: 1 })).toMatchObject({ code: "INVALID_SELECTOR" });
    expect((await fails("browser_click", { x: 10 })).message).toMatch(/give exactly one of|give both x and y/);
    // The desktop is still fine after all that.
    await ok("browser_navigate", { url: `${site}/click` });
    expect(await ok("browser_read", { mode: "text", selector: "#count" })).toMatchObject({ content: "Clicked 0 times" });
  });

  it("fail with NO_DESKTOP, saying to call upgrade_tier, when the run has no desktop", async () => {
    for (const tool of BROWSER_TOOLS) {
      const args = {
        browser_navigate: { url: "https://example.com/" },
        browser_click: { text: "x" },
        browser_type: { selector: "#a", text: "b" },
        browser_press: { key: "Enter" },
        browser_scroll: { dy: 1 },
        browser_screenshot: {},
        browser_read: { mode: "text" },
        browser_wait: { ms: 1 },
      }[tool.name];
      const error = await fails(tool.name, args, context(null));
      expect(error.code).toBe("NO_DESKTOP");
      expect(error.message).toMatch(/no desktop.*Call upgrade_tier with \{"tier": "T2"/);
    }
    const unavailable = await fails(
      "browser_read",
      { mode: "text" },
      context({ unavailable: "Desktops (T2) are unavailable: Xvfb is not installed" }),
    );
    expect(unavailable).toEqual({
      code: "NO_DESKTOP",
      message: "The browser cannot be used: Desktops (T2) are unavailable: Xvfb is not installed",
    });
  });

  it("declare replay classes and timeouts: actions are unsafe to replay, reading and waiting are pure", () => {
    const classes = Object.fromEntries(BROWSER_TOOLS.map((t) => [t.name, t.replayClass]));
    expect(classes).toEqual({
      browser_navigate: "unsafe_on_replay",
      browser_click: "unsafe_on_replay",
      browser_type: "unsafe_on_replay",
      browser_press: "unsafe_on_replay",
      browser_scroll: "unsafe_on_replay",
      browser_screenshot: "pure",
      browser_read: "pure",
      browser_wait: "pure",
    });
    for (const t of BROWSER_TOOLS) expect(t.timeoutMs).toBeGreaterThan(0);
  });
});
