// The browser tools (docs/desktops-and-tiers.md#the-browser-tools): they drive
// the Chromium on the run's operative desktop (T2) over CDP, so a person
// watching the Desktop tab sees every action as it happens.
import type { Locator, Page } from "playwright-core";
import { z } from "zod";
import { ToolError, type ToolDefinition } from "../types";
import {
  ACTION_TIMEOUT_MS,
  NAVIGATION_TIMEOUT_MS,
  act,
  pageOf,
  resolveUrl,
  smallScreenshot,
  webUrlProblem,
  whereAmI,
} from "./browser-page";

/** Page text past this is cut (about 5,000 tokens); `maxChars` asks for less or more. */
const READ_DEFAULT_CHARS = 20_000;
const READ_MAX_CHARS = 80_000;
/** A screenshot's base64 is about 1.5 characters a token: this keeps one near 10,000 tokens. */
const SCREENSHOT_MAX_BASE64 = 16_000;

const timeoutSec = z.number().min(1).max(60).optional();
const ms = (sec: number | undefined, fallback: number) => (sec ? sec * 1000 : fallback);

/** The first visible element with this text, or matching this selector, and how to name it in a message. */
function visibleElement(page: Page, target: { selector?: string; text?: string }): { locator: Locator; what: string } {
  if (target.text !== undefined)
    return { locator: page.getByText(target.text).filter({ visible: true }).first(), what: `the element with the text "${target.text}"` };
  return { locator: page.locator(target.selector!).filter({ visible: true }).first(), what: `the element matching "${target.selector}"` };
}

const NavigateArgs = z
  .object({
    url: z
      .string()
      .min(1)
      .superRefine((value, c) => {
        const problem = webUrlProblem(value);
        if (problem) c.addIssue({ code: "custom", message: problem });
      }),
    timeoutSec,
  })
  .strict();

export const browserNavigate: ToolDefinition<z.infer<typeof NavigateArgs>> = {
  name: "browser_navigate",
  description:
    "Open a URL (http or https; a path such as /demo-site/form opens on Rein's own server) in the desktop's browser and wait for the page to load. Returns the final URL, the page title and the HTTP status.",
  args: NavigateArgs,
  replayClass: "unsafe_on_replay",
  persistence: "external",
  timeoutMs: 65_000,
  async execute(args, ctx) {
    // The schema refuses these already; a call that skipped it must not reach file: or chrome: either.
    const problem = webUrlProblem(args.url);
    if (problem) throw new ToolError("INVALID_URL", problem);
    const page = await pageOf(ctx);
    const url = resolveUrl(args.url, ctx);
    const timeout = ms(args.timeoutSec, NAVIGATION_TIMEOUT_MS);
    for (let attempt = 1; ; attempt++) {
      try {
        const response = await act(`open ${url}`, ctx, () => page.goto(url, { waitUntil: "load", timeout }));
        // Rein's egress proxy answered instead of the site: the desktop may not reach that address.
        if (response && (await response.headerValue("x-rein-egress")) === "blocked") {
          throw new ToolError(
            "BLOCKED_BY_POLICY",
            `The desktop's browser may not reach ${new URL(url).host}: it is an address of this machine or a private network. Only the public internet and the hosts an admin allows are reachable.`,
          );
        }
        return { ...(await whereAmI(page)), status: response?.status() ?? null };
      } catch (err) {
        if (err instanceof ToolError && err.code === "NAVIGATION_FAILED") {
          // Chromium shows its error page a moment after the load failed; let it land now, or it
          // would cut short the agent's next navigation.
          await page.waitForURL((u) => u.protocol === "chrome-error:", { timeout: 2_000 }).catch(() => {});
          await page.waitForLoadState("load", { timeout: 2_000 }).catch(() => {});
        }
        // Cut short by a navigation already under way (such an error page): once it has landed, try again.
        if (!(err instanceof ToolError && /interrupted by another navigation/.test(err.message)) || attempt >= 3) throw err;
        await page.waitForLoadState("load", { timeout: 5_000 }).catch(() => {});
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  },
};

const ClickArgs = z
  .object({
    selector: z.string().min(1).optional().describe('a CSS selector (or a Playwright selector such as role=button[name="Send"])'),
    text: z.string().min(1).optional().describe("visible text of the element to click"),
    x: z.number().min(0).optional().describe("page x in CSS pixels (the viewport browser_screenshot reports)"),
    y: z.number().min(0).optional(),
    button: z.enum(["left", "right", "middle"]).optional(),
    doubleClick: z.boolean().optional(),
    timeoutSec,
  })
  .strict()
  .refine((a) => [a.selector !== undefined, a.text !== undefined, a.x !== undefined || a.y !== undefined].filter(Boolean).length === 1, {
    message: "give exactly one of: selector, text, or x and y",
  })
  .refine((a) => (a.x === undefined) === (a.y === undefined), { message: "give both x and y" });

export const browserClick: ToolDefinition<z.infer<typeof ClickArgs>> = {
  name: "browser_click",
  description:
    "Click an element in the desktop's browser, found by CSS selector or by its visible text (the first visible match), or click at x,y in the page.",
  args: ClickArgs,
  replayClass: "unsafe_on_replay",
  persistence: "external",
  timeoutMs: 70_000,
  async execute(args, ctx) {
    const page = await pageOf(ctx);
    const options = { button: args.button, clickCount: args.doubleClick ? 2 : 1, timeout: ms(args.timeoutSec, ACTION_TIMEOUT_MS) };
    let target: string;
    if (args.x !== undefined && args.y !== undefined) {
      target = `the point (${args.x}, ${args.y})`;
      const { x, y } = args;
      await act(`click ${target}`, ctx, () => page.mouse.click(x, y, { button: args.button, clickCount: options.clickCount }));
    } else {
      const found = visibleElement(page, args);
      target = found.what;
      await act(`click ${target}`, ctx, () => found.locator.click(options));
    }
    // A click that starts a navigation: let the new page begin to load before reporting where we are.
    await page.waitForLoadState("domcontentloaded", { timeout: 5_000 }).catch(() => {});
    return { clicked: target, ...(await whereAmI(page)) };
  },
};

const TypeArgs = z
  .object({
    selector: z.string().min(1).describe("a CSS selector of the input, textarea or editable element"),
    text: z.string().max(100_000),
    submit: z.boolean().optional().describe("press Enter afterwards"),
    timeoutSec,
  })
  .strict();

export const browserType: ToolDefinition<z.infer<typeof TypeArgs>> = {
  name: "browser_type",
  description:
    "Replace the content of a field in the desktop's browser with the text (found by CSS selector); with submit, press Enter afterwards.",
  args: TypeArgs,
  replayClass: "unsafe_on_replay",
  persistence: "external",
  timeoutMs: 70_000,
  async execute(args, ctx) {
    const page = await pageOf(ctx);
    const field = page.locator(args.selector).first();
    const timeout = ms(args.timeoutSec, ACTION_TIMEOUT_MS);
    await act(`type into the field matching "${args.selector}"`, ctx, () => field.fill(args.text, { timeout }));
    if (args.submit) {
      await act(`press Enter in the field matching "${args.selector}"`, ctx, () => field.press("Enter", { timeout }));
      await page.waitForLoadState("domcontentloaded", { timeout: 5_000 }).catch(() => {});
    }
    return { typed: args.text.length, into: args.selector, submitted: !!args.submit, ...(await whereAmI(page)) };
  },
};

const PressArgs = z
  .object({
    key: z
      .string()
      .min(1)
      .max(60)
      .describe('a key such as "Enter", "Tab", "Escape", "ArrowDown", "PageDown", "a", or a chord such as "Control+A"'),
  })
  .strict();

export const browserPress: ToolDefinition<z.infer<typeof PressArgs>> = {
  name: "browser_press",
  description: "Press a key (or a chord like Control+A) in the desktop's browser, on whatever has the focus.",
  args: PressArgs,
  replayClass: "unsafe_on_replay",
  persistence: "external",
  timeoutMs: 20_000,
  async execute(args, ctx) {
    const page = await pageOf(ctx);
    await act(`press ${args.key}`, ctx, () => page.keyboard.press(args.key));
    return { pressed: args.key, ...(await whereAmI(page)) };
  },
};

const ScrollArgs = z
  .object({
    dy: z.number().min(-100_000).max(100_000).describe("pixels down (negative: up)"),
    dx: z.number().min(-100_000).max(100_000).optional().describe("pixels right (negative: left)"),
  })
  .strict();

export const browserScroll: ToolDefinition<z.infer<typeof ScrollArgs>> = {
  name: "browser_scroll",
  description:
    "Scroll the page in the desktop's browser by dy (and dx) pixels with the mouse wheel, over the middle of the page. Returns the new scroll position.",
  args: ScrollArgs,
  replayClass: "unsafe_on_replay",
  persistence: "external",
  timeoutMs: 20_000,
  async execute(args, ctx) {
    const page = await pageOf(ctx);
    const position = await act("scroll", ctx, async () => {
      const size = await page.evaluate(() => ({ w: window.innerWidth, h: window.innerHeight }));
      await page.mouse.move(size.w / 2, size.h / 2);
      await page.mouse.wheel(args.dx ?? 0, args.dy);
      // The wheel scrolls on the next frames; report where it ends up.
      return page.evaluate(
        () =>
          new Promise<{ scrollX: number; scrollY: number }>((r) =>
            requestAnimationFrame(() => requestAnimationFrame(() => r({ scrollX: window.scrollX, scrollY: window.scrollY }))),
          ),
      );
    });
    return { ...position, ...(await whereAmI(page)) };
  },
};

const ScreenshotArgs = z
  .object({
    maxWidth: z.number().int().min(160).max(1280).optional().describe("width of the returned image, pixels (default 512)"),
    path: z.string().min(1).optional().describe("also save the full-size PNG at this workspace path"),
  })
  .strict();

export const browserScreenshot: ToolDefinition<z.infer<typeof ScreenshotArgs>> = {
  name: "browser_screenshot",
  description:
    "Take a screenshot of the visible part of the page in the desktop's browser. Returns a small PNG (base64, scaled down so it stays small) with its size and the viewport's size; with path, the full-size PNG is also saved in the workspace. browser_read is cheaper for reading text.",
  args: ScreenshotArgs,
  replayClass: "pure",
  persistence: "workspace",
  timeoutMs: 30_000,
  async execute(args, ctx) {
    const saveTo = args.path ? ctx.workspace.normalize(args.path) : null;
    const page = await pageOf(ctx);
    const shot = await act("take a screenshot", ctx, () =>
      smallScreenshot(page, { maxWidth: args.maxWidth ?? 512, maxBase64Chars: SCREENSHOT_MAX_BASE64 }),
    );
    let saved: string | undefined;
    if (saveTo) {
      const full = await act("take a full-size screenshot", ctx, () => page.screenshot({ type: "png", timeout: ACTION_TIMEOUT_MS }));
      await ctx.workspace.writeFile(saveTo, full);
      saved = saveTo;
    }
    return {
      image: { mimeType: "image/png", base64: shot.base64, width: shot.width, height: shot.height },
      viewport: shot.viewport,
      scale: Math.round(shot.scale * 1000) / 1000,
      ...(saved ? { savedTo: saved } : {}),
      ...(await whereAmI(page)),
    };
  },
};

const ReadArgs = z
  .object({
    mode: z.enum(["text", "accessibility"]).describe("text: the visible text; accessibility: roles, names and states (an ARIA snapshot)"),
    selector: z.string().min(1).optional().describe("only this part of the page (default: the whole body)"),
    maxChars: z.number().int().min(100).max(READ_MAX_CHARS).optional(),
  })
  .strict();

export const browserRead: ToolDefinition<z.infer<typeof ReadArgs>> = {
  name: "browser_read",
  description:
    "Read the page in the desktop's browser: its visible text, or an accessibility snapshot (roles, names, values; good for finding what to click or type into). Long pages are cut to maxChars (default 20000).",
  args: ReadArgs,
  replayClass: "pure",
  persistence: "none",
  timeoutMs: 30_000,
  async execute(args, ctx) {
    const page = await pageOf(ctx);
    const part = page.locator(args.selector ?? "body").first();
    const where = args.selector ? `the part matching "${args.selector}"` : "the page";
    const content =
      args.mode === "text"
        ? await act(`read the text of ${where}`, ctx, () => part.innerText({ timeout: ACTION_TIMEOUT_MS }))
        : await act(`read the accessibility tree of ${where}`, ctx, () => part.ariaSnapshot({ timeout: ACTION_TIMEOUT_MS }));
    const limit = args.maxChars ?? READ_DEFAULT_CHARS;
    const cut = content.length > limit;
    return {
      ...(await whereAmI(page)),
      mode: args.mode,
      content: cut
        ? `${content.slice(0, limit)}\n[cut: ${content.length} characters in all; ask for a selector or a larger maxChars]`
        : content,
      totalChars: content.length,
      truncated: cut,
    };
  },
};

const WaitArgs = z
  .object({
    selector: z.string().min(1).optional().describe("wait until an element matching this CSS selector is visible"),
    text: z.string().min(1).optional().describe("wait until this text is visible"),
    ms: z.number().int().min(1).max(60_000).optional().describe("just wait this long"),
    timeoutSec,
  })
  .strict()
  .refine((a) => [a.selector, a.text, a.ms].filter((v) => v !== undefined).length === 1, {
    message: "give exactly one of: selector, text, ms",
  });

/** Resolves when the run is asked to pause; never when there is no such signal. */
function pauseAsked(signal: AbortSignal | undefined): { asked: Promise<void>; dispose(): void } {
  if (!signal) return { asked: new Promise(() => {}), dispose: () => {} };
  let onAbort = () => {};
  const asked = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  return { asked, dispose: () => signal.removeEventListener("abort", onAbort) };
}

export const browserWait: ToolDefinition<z.infer<typeof WaitArgs>> = {
  name: "browser_wait",
  description:
    "Wait in the desktop's browser until an element (CSS selector) or a text is visible, or for ms milliseconds (at most 60,000). Fails with TIMEOUT when it does not appear within timeoutSec (default 10). Ends early, with endedEarly, when the run is asked to pause (a person taking over the desktop).",
  args: WaitArgs,
  replayClass: "pure",
  persistence: "none",
  timeoutMs: 70_000,
  async execute(args, ctx) {
    const page = await pageOf(ctx);
    const t0 = performance.now();
    const timeout = ms(args.timeoutSec, ACTION_TIMEOUT_MS);
    // A wait holds nothing: when a person asks for the controls, the step ends now, not when the wait would have.
    const pause = pauseAsked(ctx.pauseSignal);
    const paused = pause.asked.then(() => "paused" as const);
    try {
      let outcome: "done" | "paused";
      if (args.ms !== undefined) {
        const wait = args.ms;
        outcome = await act(`wait ${wait} ms`, ctx, () => Promise.race([page.waitForTimeout(wait).then(() => "done" as const), paused]));
      } else {
        const found = visibleElement(page, args);
        outcome = await act(`see ${found.what} within ${timeout / 1000} s`, ctx, () =>
          Promise.race([found.locator.waitFor({ state: "visible", timeout }).then(() => "done" as const), paused]),
        );
      }
      const early =
        outcome === "paused" ? { endedEarly: "The run was asked to pause (a person is taking over), so the wait ended early" } : {};
      return { waitedMs: Math.round(performance.now() - t0), ...early, ...(await whereAmI(page)) };
    } finally {
      pause.dispose();
    }
  },
};

export const BROWSER_TOOLS: ToolDefinition[] = [
  browserNavigate,
  browserClick,
  browserType,
  browserPress,
  browserScroll,
  browserScreenshot,
  browserRead,
  browserWait,
];
