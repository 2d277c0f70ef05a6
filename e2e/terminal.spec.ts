import { expect, test, type Page } from "@playwright/test";
import { login } from "./fixtures";

/** Starts a demo-coder run through the New run dialog (with a scenario when given); returns its id. */
async function startRun(page: Page, goal: string, scenario?: unknown): Promise<string> {
  await page.goto("/runs");
  await page.getByTestId("new-run-button").click();
  await page.getByTestId("agent-select").selectOption("demo-coder");
  await page.getByTestId("goal-input").fill(goal);
  if (scenario) {
    await page.getByTestId("advanced-toggle").click();
    await page.getByTestId("scenario-input").fill(JSON.stringify(scenario));
  }
  await page.getByTestId("start-run").click();
  await page.waitForURL(/\/runs\/[^/?#]+$/);
  return new URL(page.url()).pathname.split("/").pop()!;
}

/** A command that waits (up to a minute) until the test writes go.txt into the run's workspace. */
const WAIT_FOR_GO = "for i in $(seq 1 300); do [ -f go.txt ] && break; sleep 0.2; done";

/** The text xterm shows, row by row (the DOM renderer's rows). */
async function terminalText(page: Page): Promise<string> {
  return page.locator(".xterm-rows").innerText();
}

test.describe("terminal tab", () => {
  // A watcher's screen has as many rows as its panel holds: a tall window keeps a whole command and
  // its output on one screen, as the agent's 32-row terminal has them.
  test.use({ viewport: { width: 1280, height: 1100 } });
  test("shows the agent's commands and their output as the run goes", async ({ page }) => {
    await login(page);
    await startRun(page, "Write FizzBuzz with tests");
    await page.getByTestId("tab-terminal").click();
    await expect(page).toHaveURL(/tab=terminal/);
    const screen = page.getByTestId("terminal-screen");
    await expect(screen.locator(".xterm-rows")).toBeVisible({ timeout: 20_000 });
    // The shell tool types at the prompt: watchers see each command and what it printed.
    await expect.poll(() => terminalText(page), { timeout: 30_000 }).toMatch(/node --test test\/fizzbuzz\.test\.mjs/);
    await expect.poll(() => terminalText(page), { timeout: 30_000 }).toMatch(/pass 5/);
    await expect.poll(() => terminalText(page), { timeout: 30_000 }).toMatch(/\$ git add -A/);
    await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 30_000 });
    // After the run the last screen stays, marked as ended; nobody can type in it.
    // The pod goes after the run ends and its last screen is taken off the event loop: on a loaded machine, seconds.
    await expect(page.getByTestId("terminal-ended")).toBeVisible({ timeout: 15_000 });
    await expect(page.getByTestId("terminal-takeover")).toHaveCount(0);
    const final = await terminalText(page);
    expect(final).toMatch(/node --test test\/fizzbuzz\.test\.mjs/);

    // A reload (a new socket) gets the same last screen, once.
    await page.reload();
    await expect.poll(() => terminalText(page), { timeout: 20_000 }).toMatch(/\$ git add -A/);
    expect((await terminalText(page)).match(/node --test test\/fizzbuzz/g)).toHaveLength(1);
  });

  test("take over: type a command in the agent's shell, see its output, hand back", async ({ page }) => {
    test.setTimeout(90_000);
    await login(page);
    const scenario = {
      turns: [
        // The command waits until the test says go (a file in the workspace), so the click lands while it
        // runs however slow the machine is; the take over waits for the step to end.
        { text: "Waiting a moment", toolCalls: [{ tool: "shell", args: { command: WAIT_FOR_GO } }] },
        { text: "Back at work", toolCalls: [{ tool: "shell", args: { command: "echo agent-is-back" } }] },
        { text: "Done" },
      ],
    };
    const runId = await startRun(page, "Let a person take over", scenario);
    await page.getByTestId("tab-terminal").click();
    await expect.poll(() => terminalText(page), { timeout: 20_000 }).toMatch(/go\.txt/);
    await expect(page.getByTestId("terminal-controller")).toHaveText("The agent is at the keyboard");

    await page.getByTestId("terminal-takeover").click();
    const go = await page.request.post("/api/trpc/files.save", { data: { json: { runId, path: "go.txt", content: "go\n" } } });
    expect(go.ok(), await go.text()).toBe(true);
    await expect(page.getByTestId("terminal-controller")).toHaveText("You control the terminal; the agent is paused", { timeout: 30_000 });
    await expect(page.getByTestId("run-status")).toHaveText("paused");
    await expect(page.getByTestId("terminal-readonly")).toHaveCount(0);

    await page.getByTestId("terminal-viewport").click();
    await page.keyboard.type("echo hello-from-a-person");
    await page.keyboard.press("Enter");
    // The command line and, on its own line, its output.
    await expect.poll(() => terminalText(page), { timeout: 10_000 }).toMatch(/^hello-from-a-person\s*$/m);

    await page.getByTestId("terminal-handback").click();
    // The agent continues at once (its terminal may even be gone by the next check).
    await expect(page.getByTestId("terminal-handback")).toHaveCount(0, { timeout: 10_000 });
    await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 30_000 });
    await expect.poll(() => terminalText(page), { timeout: 10_000 }).toMatch(/^agent-is-back\s*$/m);

    // The timeline shows who took over, what they typed, and the note the agent got.
    await page.getByTestId("tab-timeline").click();
    await expect(page.getByTestId("terminal-input-event")).toHaveCount(1);
    await expect(page.getByTestId("terminal-input-text")).toHaveText("echo hello-from-a-person");
    await expect(page.getByTestId("terminal-input-event")).toContainText(/admin/i);
    await expect(page.getByTestId("terminal-control-event")).toHaveCount(2);
    await expect(page.getByTestId("human-note-event")).toContainText("took over the terminal and ran");
  });
});
