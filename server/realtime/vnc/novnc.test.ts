// noVNC itself (the client the Desktop tab runs) in Chromium, through the
// proxy, to a real Xvfb + x11vnc: it completes the handshake without the VNC
// password and draws the desktop; the person who took over moves the X
// pointer with the mouse, while a viewer whose noVNC is NOT view-only (a
// tampered page) moves the mouse too and x11vnc never gets a pointer event
// from that connection.
import fs from "node:fs";
import path from "node:path";
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type Browser, type Page } from "playwright-core";
import { createApiToken } from "@/server/identity";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { startTestDesktop, type TestDesktop } from "@/test/helpers/desktop";
import {
  HANDSHAKE_BYTES,
  TestDesktops,
  createDesktopRun,
  recordingRelay,
  startVncTestServer,
  type VncTestServer,
} from "@/test/helpers/vnc-server";
import { frameClientMessage } from "./client-messages";
import { waitFor } from "@/test/helpers/wait";
import { CHROMIUM, QUIET_CHROMIUM_ARGS } from "@/test/helpers/chromium";

const NOVNC = path.resolve("node_modules/@novnc/novnc");

const PAGE = `<!doctype html><html><body style="margin:0">
<div id="screen" style="width:800px;height:600px"></div>
<script type="module">
import RFB from "/novnc/core/rfb.js";
window.connectVnc = (url, viewOnly) => new Promise((resolve, reject) => {
  const rfb = new RFB(document.getElementById("screen"), url, { shared: true, wsProtocols: ["binary"] });
  rfb.viewOnly = viewOnly;
  rfb.addEventListener("connect", () => resolve(true));
  rfb.addEventListener("disconnect", (e) => reject(new Error("disconnected, clean: " + e.detail.clean)));
  rfb.addEventListener("credentialsrequired", () => reject(new Error("asked for a password")));
  window.rfb = rfb;
});
window.ready = true;
</script></body></html>`;

/** The test page and noVNC's own files (ES modules, straight from the package). */
function serve(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? "/", "http://localhost");
  if (url.pathname === "/") return res.writeHead(200, { "content-type": "text/html" }).end(PAGE);
  const file = path.join(NOVNC, path.normalize(url.pathname.replace(/^\/novnc\//, "")));
  if (!url.pathname.startsWith("/novnc/") || !file.startsWith(NOVNC) || !fs.existsSync(file)) return res.writeHead(404).end();
  res.writeHead(200, { "content-type": "text/javascript" }).end(fs.readFileSync(file));
}

describe("noVNC through the proxy", () => {
  let tk: TestKernel;
  let desktop: TestDesktop;
  let server: VncTestServer;
  let browser: Browser;
  let relay: Awaited<ReturnType<typeof recordingRelay>>;
  const desktops = new TestDesktops();

  beforeAll(async () => {
    if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: install it (Debian: chromium) or set CHROMIUM_PATH`);
    tk = await createTestKernel();
    desktop = await startTestDesktop({ width: 800, height: 600 });
    relay = await recordingRelay(desktop.vncPort);
    server = await startVncTestServer(tk, desktops, serve);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", ...QUIET_CHROMIUM_ARGS],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await relay?.close();
    await desktop?.stop();
    await tk?.cleanup();
  });

  async function open(role: "viewer" | "operator", runId: string, viewOnly: boolean): Promise<Page> {
    const token = (await createApiToken(tk.t.db, { userId: tk.users[role], name: `${role}-browser` })).token;
    const page = await browser.newPage({ viewport: { width: 900, height: 700 } });
    await page.goto(server.base);
    await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
    const url = `${server.base.replace("http", "ws")}/vnc/${runId}?token=${token}`;
    await page.evaluate(
      ([u, v]) => (window as unknown as { connectVnc(u: string, v: boolean): Promise<boolean> }).connectVnc(u as string, v as boolean),
      [url, viewOnly] as const,
    );
    return page;
  }

  /** Moves the mouse over the desktop's canvas to (x, y) in desktop pixels (the canvas is not scaled). */
  async function moveOver(page: Page, x: number, y: number) {
    const box = (await page.locator("#screen canvas").boundingBox())!;
    await page.mouse.move(box.x + x, box.y + y);
  }

  /** The types of the messages x11vnc received on one of the proxy's connections. */
  function receivedTypes(log: Buffer[]) {
    let rest = Buffer.concat(log).subarray(HANDSHAKE_BYTES);
    const types: string[] = [];
    while (rest.length) {
      const m = frameClientMessage(rest)!;
      types.push(m.type);
      rest = rest.subarray(m.length);
    }
    return types;
  }

  /** Until the page's noVNC has sent everything (its mouse moves are batched on a timer). */
  const flushed = (page: Page) =>
    page.waitForFunction(() => {
      const rfb = (window as unknown as { rfb: { _mouseMoveTimer: unknown; _sock: { _websocket: WebSocket } } }).rfb;
      return rfb._mouseMoveTimer === null && rfb._sock._websocket.bufferedAmount === 0;
    });

  it("connects without the VNC password, draws the desktop, and lets only the controller's mouse through", async () => {
    const runId = await createDesktopRun(tk);
    desktops.attach(runId, desktop, relay.port);
    desktop.movePointer(5, 5);

    const viewer = await open("viewer", runId, false);
    const viewerLog = relay.received.at(-1)!;
    const size = await viewer.locator("#screen canvas").evaluate((c: HTMLCanvasElement) => [c.width, c.height]);
    expect(size).toEqual([800, 600]);
    // The password never reaches the page.
    expect(await viewer.content()).not.toContain(desktop.vncPassword);
    const operator = await open("operator", runId, false);
    const operatorLog = relay.received.at(-1)!;

    expect(await server.proxy.runFor(runId).takeOver(tk.actors.operator)).toEqual({ ok: true, message: "You control the desktop" });
    await moveOver(operator, 400, 300);
    await moveOver(operator, 410, 310);
    await waitFor(() => desktop.pointer().x === 410 && desktop.pointer().y === 310, "the controller's mouse to move the X pointer");

    await moveOver(viewer, 100, 100);
    await moveOver(viewer, 120, 110);
    await viewer.mouse.down();
    await viewer.mouse.up();
    await flushed(viewer);
    await moveOver(operator, 420, 320);
    await waitFor(() => desktop.pointer().x === 420, "the controller's last move");
    expect(desktop.pointer()).toEqual({ x: 420, y: 320 });
    expect(receivedTypes(operatorLog)).toContain("PointerEvent");
    expect(receivedTypes(viewerLog)).not.toContain("PointerEvent");
    expect(receivedTypes(viewerLog)).toContain("FramebufferUpdateRequest");

    await viewer.close();
    await operator.close();
  });
});
