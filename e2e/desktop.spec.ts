// The T2 flow end to end
// (docs/desktops-and-tiers.md#the-demo-browser-walk-through) with the scripted
// demo-browser agent: it starts on T1, asks for the desktop, an operator
// consents in the inbox, Chromium fills in Rein's demo order form on the
// desktop, the Desktop tab shows it live in noVNC, a person takes over and
// clicks the page's Confirm button through the canvas, hands back, and the
// agent reads the confirmation before it finishes.
import { expect, test } from "@playwright/test";
import { canvasFacts, isGreen, isGrey, openDesktop } from "./desktop-canvas";
import { login } from "./fixtures";

const stamp = Date.now().toString(36);

test.describe("desktop tier", () => {
  test("demo-browser: consent in the inbox, the form filled on the desktop, a person takes over and clicks, the run succeeds", async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await login(page);

    // Launched from the New run dialog, where the agent says what it does.
    await page.getByTestId("new-run-button").click();
    await page.getByTestId("agent-select").selectOption("demo-browser");
    await expect(page.getByTestId("agent-description")).toContainText("desktop (T2)");
    // The default goal is filled in; the agent orders what a goal names from the shop instead.
    await expect(page.getByTestId("goal-input")).toHaveValue("Order two Rein stickers from the demo shop");
    await page.getByTestId("goal-input").fill(`Order three Rein mugs (${stamp})`);
    await page.getByTestId("start-run").click();
    await page.waitForURL(/\/runs\/[^/?#]+$/);
    const runId = new URL(page.url()).pathname.split("/").pop()!;

    // It starts on T1 and asks for T2; an operator's consent is the default rule.
    await expect(page.getByTestId("run-tier")).toHaveText("T1 · terminal");
    await expect(page.getByTestId("run-status")).toHaveText("waiting for human", { timeout: 30_000 });
    await expect(page.getByTestId("waiting-title")).toContainText("Let demo-browser move to T2 (desktop)?");
    await expect(page.getByTestId("timeline").locator('[data-testid="tier-event"][data-kind="requested"]')).toContainText(
      "Asked to move to T2 · desktop",
    );
    await page.getByTestId("tab-desktop").click();
    await expect(page.getByTestId("desktop-state")).toHaveAttribute("data-state", "none");
    await expect(page.getByTestId("desktop-message")).toContainText("This run is on T1 (terminal)");

    await page.getByTestId("waiting-open-inbox").click();
    await expect(page).toHaveURL(/\/inbox\?id=/);
    const detail = page.getByTestId("request-detail");
    await expect(detail.getByTestId("request-title")).toContainText("Let demo-browser move to T2 (desktop)?");
    await expect(detail.getByTestId("request-rule")).toContainText("Settings › Tiers: entering T2 needs the consent of an operator");
    await expect(detail).toContainText("The sticker shop is a web form");
    await detail.getByTestId("decide-approve").click();
    await expect(detail.getByTestId("decision-outcome")).toContainText("Approved by");
    await page.goto(`/runs/${runId}`);

    // On the desktop now: the badge, the move in the timeline with how long it took.
    await expect(page.getByTestId("run-tier")).toHaveText("T2 · desktop", { timeout: 30_000 });
    const moved = page.getByTestId("timeline").locator('[data-testid="tier-event"][data-kind="upgraded"]');
    await expect(moved).toContainText("Moved to T2 · desktop from T1 · terminal in");
    await expect(moved.getByTestId("tier-event-took")).toHaveText(/^\d+(\.\d+)? (ms|s)$/);

    // The agent fills in the form and then keeps the page open for a person.
    const waiting = page.getByTestId("timeline").locator('[data-testid="tool-call"][data-tool="browser_wait"]');
    await expect(waiting).toBeVisible({ timeout: 60_000 });
    const canvas = await openDesktop(page);

    // The noVNC canvas shows the desktop, not a blank frame: the order page with its grey Confirm button.
    await expect.poll(async () => (await canvasFacts(canvas)).share, { timeout: 20_000 }).toBeGreaterThan(0.05);
    await expect.poll(async () => isGrey((await canvasFacts(canvas)).middle), { timeout: 20_000 }).toBe(true);
    const before = await canvasFacts(canvas);
    expect(before.width).toBeGreaterThan(300);
    await test.info().attach("desktop-before.png", { body: await canvas.screenshot(), contentType: "image/png" });
    await expect(page.getByTestId("desktop-viewonly")).toBeVisible();

    // Take over: the agent pauses after its current step, then the controls are this person's.
    await page.getByTestId("desktop-takeover").click();
    await expect(page.getByTestId("desktop-controller")).toHaveText("You control the desktop", { timeout: 60_000 });
    await expect(page.getByTestId("run-status")).toHaveText("paused");
    // While this person has the desktop only Hand back gives it back: the header offers no Resume.
    await expect(page.getByTestId("desktop-handback")).toBeVisible();
    await expect(page.getByTestId("resume-run")).toHaveCount(0);
    await expect(page.getByTestId("run-held")).toContainText("has the desktop: Hand back there resumes the run");
    const box = (await canvas.boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    // Something observable: the page's button turned green on the desktop, seen through VNC.
    await expect.poll(async () => isGreen((await canvasFacts(canvas)).middle), { timeout: 20_000 }).toBe(true);
    await test.info().attach("desktop-after.png", { body: await canvas.screenshot(), contentType: "image/png" });

    // Hand back: the agent continues, reads the page and finishes.
    await page.getByTestId("desktop-handback").click();
    await expect(page.getByTestId("desktop-controller")).toHaveText("The agent has the desktop", { timeout: 20_000 });
    await expect(page.getByTestId("run-held")).toHaveCount(0);
    await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 60_000 });

    await page.getByTestId("tab-timeline").click();
    const reads = page.getByTestId("timeline").locator('[data-testid="tool-result"][data-tool="browser_read"]');
    await expect(reads).toHaveCount(2);
    await expect(reads.first()).toContainText("Thank you, Ada Lovelace");
    await expect(reads.first()).toContainText("“Three Rein mugs, please”");
    await expect(reads.last()).toContainText("Confirmed by a person at");
    // Back on T1 once the run ended, with the reason.
    await expect(page.getByTestId("run-tier")).toHaveText("T1 · terminal", { timeout: 20_000 });
    await expect(page.getByTestId("timeline").locator('[data-testid="tier-event"][data-trigger="run_end"]')).toContainText(
      "The run ended (succeeded)",
    );
  });

  test("Settings › Tiers: an admin sees every tier, T3 and T4 off until turned on; a bad threshold is refused under its field; a saved change stays", async ({
    page,
  }) => {
    await login(page);
    await page.goto("/settings/tiers");
    await expect(page.getByTestId("settings-nav")).toContainText("Tiers");
    const rows = page.getByTestId("tier-row");
    await expect(rows).toHaveCount(5);
    // T3 (remote machines) and T4 (people's devices) are built, and off until an admin turns them on.
    for (const tier of ["T3", "T4"]) {
      await expect(page.getByTestId(`tier-${tier}-not-built`)).toHaveCount(0);
      await expect(page.getByTestId(`tier-${tier}-enabled`)).toBeEnabled();
      await expect(page.getByTestId(`tier-${tier}-enabled`)).not.toBeChecked();
    }
    await expect(page.getByTestId("tier-T2-consentRole")).toHaveValue("operator");
    await expect(page.getByTestId("tier-T2-threshold")).toHaveValue("0.55");

    await page.getByTestId("tier-T2-threshold").fill("1.5");
    await page.getByTestId("tier-T2-idleTimeoutMin").fill("ten");
    await page.getByTestId("tiers-save").click();
    await expect(page.getByTestId("tier-T2-threshold-error")).toHaveText("is from 0 to 1");
    await expect(page.getByTestId("tier-T2-idleTimeoutMin-error")).toHaveText("must be whole minutes (blank: never)");
    await expect(page.getByTestId("tiers-error-count")).toHaveText("2 fields need fixing");

    await page.getByTestId("tier-T2-threshold").fill("0.6");
    await page.getByTestId("tier-T2-idleTimeoutMin").fill("15");
    await page.getByTestId("tiers-save").click();
    await expect(page.getByTestId("tiers-saved")).toBeVisible();
    await page.reload();
    await expect(page.getByTestId("tier-T2-threshold")).toHaveValue("0.6");
    await expect(page.getByTestId("tier-T2-idleTimeoutMin")).toHaveValue("15");

    // Back to the defaults for the other tests.
    await page.getByTestId("tiers-defaults").click();
    await page.getByTestId("tiers-save").click();
    await expect(page.getByTestId("tiers-saved")).toBeVisible();
    await page.reload();
    await expect(page.getByTestId("tier-T2-threshold")).toHaveValue("0.55");
  });
});
