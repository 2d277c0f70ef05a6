// What the browser tools share: the run's page on its desktop, Playwright's
// errors turned into tool errors the model can act on, and small screenshots.
import type { Page } from "playwright-core";
import { ToolError, type ToolContext } from "../types";

/** Actions wait this long for an element before they give up. */
export const ACTION_TIMEOUT_MS = 10_000;
export const NAVIGATION_TIMEOUT_MS = 30_000;

/** The run's page in the desktop's Chromium, or a NO_DESKTOP error telling the agent what to do. */
export async function pageOf(ctx: ToolContext): Promise<Page> {
  if (!ctx.desktop) {
    throw new ToolError(
      "NO_DESKTOP",
      'This run has no desktop, and the browser tools work in the Chromium on the operative desktop (tier T2). Call upgrade_tier with {"tier": "T2", "reason": "..."} first.',
    );
  }
  if ("unavailable" in ctx.desktop) throw new ToolError("NO_DESKTOP", `The browser cannot be used: ${ctx.desktop.unavailable}`);
  if (ctx.signal.aborted) throw new ToolError("ABORTED", "Not started: the run was canceled");
  try {
    return await ctx.desktop.page();
  } catch (err) {
    throw new ToolError("DESKTOP_FAILED", `The desktop's browser cannot be reached: ${firstLine(err)}`);
  }
}

/** Only pages on the web: nothing of the machine (file:), the browser (chrome:) or script URLs. A path is a page of Rein's own. */
export function webUrlProblem(value: string): string | null {
  if (isOwnPath(value)) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value}" is not an absolute URL (e.g. https://example.com/)`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `only http and https URLs can be opened, not ${url.protocol} (file:, chrome:, javascript: and data: URLs are refused)`;
  }
  return null;
}

/** "/demo-site/form": a page on Rein's own server (not "//host", which is another site). */
function isOwnPath(value: string): boolean {
  return value.startsWith("/") && !value.startsWith("//") && !value.startsWith("/\\");
}

/** The URL to open: a path resolved against Rein's own address, anything else as given. */
export function resolveUrl(value: string, ctx: ToolContext): string {
  if (!isOwnPath(value)) return value;
  const base = ctx.desktop && !("unavailable" in ctx.desktop) ? ctx.desktop.baseUrl : undefined;
  if (!base)
    throw new ToolError(
      "INVALID_URL",
      `"${value}" is a path on Rein's own server, whose address this desktop was not given; use an absolute URL`,
    );
  const url = new URL(value, base);
  if (url.origin !== new URL(base).origin)
    throw new ToolError("INVALID_URL", `"${value}" leads off Rein's own server; give another site's address in full`);
  return url.toString();
}

/** Playwright's message without its terminal colours. */
function messageOf(err: unknown): string {
  return ((err as Error)?.message ?? String(err)).replace(/\u001b\[[0-9;]*m/g, "");
}

function firstLine(err: unknown): string {
  const message = messageOf(err);
  return message
    .split("\n")[0]
    .replace(/^[a-zA-Z]+\.[a-zA-Z]+: /, "")
    .trim();
}

/** The last line of Playwright's call log: what it was waiting for when it gave up. */
function lastStep(err: unknown): string | null {
  const log = messageOf(err).split("Call log:")[1];
  if (!log) return null;
  const lines = log
    .split("\n")
    .map((l) => l.replace(/^\s*-\s*/, "").trim())
    .filter(Boolean);
  return lines.length ? lines[lines.length - 1].slice(0, 300) : null;
}

/**
 * Runs a Playwright action and turns its failures into ToolErrors: a timeout
 * says what was not found, a navigation error names the net error, a closed
 * browser says to try again. `what` describes the action ("click the element
 * matching "#send"").
 */
export async function act<T>(what: string, ctx: ToolContext, action: () => Promise<T>): Promise<T> {
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new ToolError("ABORTED", `Stopped: the run was canceled while trying to ${what}`));
    ctx.signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([action(), aborted]);
  } catch (err) {
    if (err instanceof ToolError) throw err;
    throw toolErrorOf(what, err);
  } finally {
    ctx.signal.removeEventListener("abort", onAbort!);
  }
}

export function toolErrorOf(what: string, err: unknown): ToolError {
  const name = (err as Error)?.name;
  const line = firstLine(err);
  const step = lastStep(err);
  if (name === "TimeoutError" || /Timeout \d+ms exceeded/.test(line)) {
    return new ToolError("TIMEOUT", `Could not ${what}: gave up after waiting${step ? ` (last: ${step})` : ""}`);
  }
  if (/net::ERR_|NS_ERROR_/.test(line)) {
    const net = /net::ERR_[A-Z_]+/.exec(line)?.[0] ?? line;
    return new ToolError("NAVIGATION_FAILED", `Could not ${what}: ${net}`);
  }
  if (/Target (page, context or browser )?(has been )?closed|Browser has been closed|browser has disconnected/i.test(line)) {
    return new ToolError(
      "DESKTOP_FAILED",
      `Could not ${what}: the browser closed (it may have crashed and been restarted); call the tool again`,
    );
  }
  if (/Unknown key/i.test(line)) return new ToolError("INVALID_KEY", `Could not ${what}: ${line}`);
  if (/strict mode violation|Unexpected token|is not a valid selector|Unknown engine|selector/i.test(line)) {
    return new ToolError("INVALID_SELECTOR", `Could not ${what}: ${line}`);
  }
  return new ToolError("BROWSER_ERROR", `Could not ${what}: ${line}`);
}

/** Where the page is now, for every action's result. */
export async function whereAmI(page: Page): Promise<{ url: string; title: string }> {
  return { url: page.url(), title: await page.title().catch(() => "") };
}

/** The viewport as a PNG small enough for a model's context: scaled down until its base64 fits. */
export async function smallScreenshot(page: Page, { maxWidth, maxBase64Chars }: { maxWidth: number; maxBase64Chars: number }) {
  const view = await page.evaluate(() => ({ x: window.scrollX, y: window.scrollY, width: window.innerWidth, height: window.innerHeight }));
  const cdp = await page.context().newCDPSession(page);
  try {
    let scale = Math.min(1, maxWidth / view.width);
    for (;;) {
      // The clip is in document coordinates, hence the scroll offset.
      const shot = (await cdp.send("Page.captureScreenshot", {
        format: "png",
        clip: { x: view.x, y: view.y, width: view.width, height: view.height, scale },
      })) as { data: string };
      const width = Math.round(view.width * scale);
      const height = Math.round(view.height * scale);
      if (shot.data.length <= maxBase64Chars || width <= 160) {
        return {
          base64: shot.data,
          width,
          height,
          scale,
          viewport: { width: view.width, height: view.height },
          fits: shot.data.length <= maxBase64Chars,
        };
      }
      scale *= 0.7;
    }
  } finally {
    await cdp.detach().catch(() => {});
  }
}
