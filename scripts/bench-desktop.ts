// npm run bench:desktop — operative desktop (T2) figures:
//   desktop ready time (X, VNC and CDP answering), cold and from the warm pool (p50/p95);
//   browser tool latency (navigate, click, type, read) on the desktop's Chromium over CDP,
//   against the same tools on a plain headless Chromium launched by Playwright in this run;
//   the VNC stream while a page scrolls without pause: updates per second and bandwidth.
//   upgrade_tier T1 → T2 (the tiers' migration and the whole call), cold and from the pool.
// Prints figures; asserts nothing.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { chromium, type Page } from "playwright-core";
import { DesktopPool, OperativeDesktop, checkDesktopPrograms, configureEgress } from "@/server/compute";
import { BROWSER_TOOLS, Workspace, type ToolContext } from "@/server/tools";
import { rfbLogin, streamUpdates } from "../test/helpers/rfb";
import { benchUpgrade, printUpgrade } from "./bench-tiers";
import { CHROMIUM, QUIET_CHROMIUM_ARGS } from "../test/helpers/chromium";

const N = Number(process.env.BENCH_N ?? 10);
const ACTIONS = Number(process.env.BENCH_ACTIONS ?? 30);
const STREAM_SEC = Number(process.env.BENCH_STREAM_SEC ?? 5);

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const fmt = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(1).padStart(7)} ms   p95 ${pct(xs, 95).toFixed(1).padStart(7)} ms`;

const FORM = `<!doctype html><title>Order</title>
  <form action="/done"><label>Name <input id="name" name="name"></label>
  <label>Quantity <input id="qty" name="qty"></label><button id="send">Send</button></form>
  <p id="count">0</p><button id="inc" type="button" onclick="count.textContent = +count.textContent + 1">Add</button>`;
const LONG = `<!doctype html><title>Scrolling</title><style>p{margin:0;padding:8px 16px;font:16px sans-serif}p:nth-child(odd){background:#eef}</style>
  ${Array.from({ length: 2000 }, (_, i) => `<p>Line ${i + 1}: the page scrolls without pause so every frame changes.</p>`).join("")}`;

function serve(): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer((req, res) => {
    const page = req.url?.startsWith("/long")
      ? LONG
      : req.url?.startsWith("/done")
        ? "<!doctype html><title>Done</title><h1>Done</h1>"
        : FORM;
    res.writeHead(200, { "content-type": "text/html" }).end(page);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })),
  );
}

const tool = (name: string) => BROWSER_TOOLS.find((t) => t.name === name)!;

/** navigate / click / type / read through the browser tools on `page`, ACTIONS times each. */
async function toolLatency(page: () => Promise<Page>, workspace: Workspace, site: string) {
  const ctx: ToolContext = {
    runId: "bench",
    workspace,
    agent: { name: "bench", handoffs: [] },
    actorId: "bench",
    signal: new AbortController().signal,
    desktop: { page },
  };
  const times: Record<"navigate" | "click" | "type" | "read", number[]> = { navigate: [], click: [], type: [], read: [] };
  const time = async (key: keyof typeof times, name: string, args: unknown) => {
    const t0 = performance.now();
    await tool(name).execute(args, ctx);
    times[key].push(performance.now() - t0);
  };
  await tool("browser_navigate").execute({ url: `${site}/form` }, ctx); // warm-up
  for (let i = 0; i < ACTIONS; i++) {
    await time("navigate", "browser_navigate", { url: `${site}/form?i=${i}` });
    await time("click", "browser_click", { selector: "#inc" });
    await time("type", "browser_type", { selector: "#name", text: `Customer ${i}` });
    await time("read", "browser_read", { mode: "text" });
  }
  return times;
}

async function main() {
  const missing = checkDesktopPrograms();
  if (missing) throw new Error(missing);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-desktop-"));
  const { server, url: site } = await serve();
  // The desktop's browser reaches the host only where allowed, as Rein's demo site is.
  configureEgress({ allow: [{ host: "127.0.0.1", port: Number(new URL(site).port) }] });
  const workspace = new Workspace(path.join(tmp, "ws"));
  await workspace.ensure();
  try {
    // 1. Cold: Xvfb, openbox, Chromium and x11vnc from nothing until all three probes answer.
    const cold: number[] = [];
    for (let i = 0; i < N; i++) {
      const d = await OperativeDesktop.start({ dir: path.join(tmp, `cold-${i}`), width: 1280, height: 800 });
      cold.push(d.readyMs);
      await d.stop();
    }

    // 2. From the pool: a run attaches while a warm desktop waits.
    const pool = new DesktopPool({ dataDir: path.join(tmp, "pool"), size: 1 });
    await pool.start();
    const warm: number[] = [];
    for (let i = 0; i < N; i++) {
      while (pool.stats().warm < 1) await new Promise((r) => setTimeout(r, 20));
      const { startMs, fromPool, desktop } = await pool.attach(`run-${i}`);
      await desktop.probe();
      if (fromPool) warm.push(startMs);
      await pool.release(`run-${i}`);
    }
    await pool.stop();

    // 3. Tool latency: the desktop's Chromium over CDP, then a headless Chromium launched here.
    const desktop = await OperativeDesktop.start({ dir: path.join(tmp, "tools"), width: 1280, height: 800 });
    const onDesktop = await toolLatency(() => desktop.page(), workspace, site);
    const headless = await chromium.launch({
      executablePath: CHROMIUM,
      args: QUIET_CHROMIUM_ARGS,
    });
    const headlessPage = await headless.newPage({ viewport: { width: 1280, height: 650 } });
    const baseline = await toolLatency(async () => headlessPage, workspace, site);
    await headless.close();

    // 4. The VNC stream while the page scrolls on every frame.
    const page = await desktop.page();
    await page.goto(`${site}/long`);
    const idleSession = await rfbLogin(desktop.vncPort, desktop.vncPassword);
    const idle = streamUpdates(idleSession);
    await new Promise((r) => setTimeout(r, 2000));
    const idleStats = await idle.stop();
    const session = await rfbLogin(desktop.vncPort, desktop.vncPassword);
    const stream = streamUpdates(session);
    await new Promise((r) => setTimeout(r, 500)); // the first full frame
    const first = { updates: stream.stats.updates, bytes: session.reader.bytes };
    // A string: the bundler's helpers for named functions do not exist in the page.
    await page.evaluate(`(function step() {
      window.scrollBy(0, 3);
      if (window.scrollY + window.innerHeight >= document.body.scrollHeight) window.scrollTo(0, 0);
      requestAnimationFrame(step);
    })()`);
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, STREAM_SEC * 1000));
    const seconds = (performance.now() - t0) / 1000;
    const updates = stream.stats.updates - first.updates;
    const bytes = session.reader.bytes - first.bytes;
    await stream.stop();
    await desktop.stop();

    console.log(`\nOperative desktop (Xvfb 1280x800 + openbox + Chromium + x11vnc), ${os.cpus().length} cores`);
    console.log(`desktop ready, cold (X, VNC and CDP answering)   ${fmt(cold)}   (n=${cold.length}; aim < 3000 ms)`);
    console.log(`desktop ready, from the warm pool                ${fmt(warm)}   (n=${warm.length}; aim < 300 ms)`);
    console.log(
      `\nbrowser tools (n=${ACTIONS} each)        desktop Chromium over CDP           headless Chromium (baseline)     p50 ratio`,
    );
    for (const key of ["navigate", "click", "type", "read"] as const) {
      const ratio = pct(onDesktop[key], 50) / pct(baseline[key], 50);
      console.log(`  ${key.padEnd(10)}                    ${fmt(onDesktop[key])}   ${fmt(baseline[key])}   ${ratio.toFixed(2)}x`);
    }
    console.log(`\nVNC stream (ZRLE, incremental updates as a viewer asks for them)`);
    console.log(
      `  page scrolling on every frame, ${seconds.toFixed(1)} s:  ${(updates / seconds).toFixed(1)} updates/s, ${(bytes / seconds / 1024).toFixed(0)} KiB/s`,
    );
    console.log(
      `  idle page, 2 s:                        ${(idleStats.updates / 2).toFixed(1)} updates/s, ${(idleStats.bytes / 2 / 1024).toFixed(1)} KiB/s (the first full frame included)`,
    );
    // upgrade_tier moving a run from T1 to T2, through the tier controller (scripts/bench-tiers.ts).
    printUpgrade(await benchUpgrade(Math.min(N, 5)));
  } finally {
    server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
