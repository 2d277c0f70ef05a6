// The demo-browser agent through the kernel with a real desktop and Rein's
// demo site: it notes the order on T1, asks for T2 (an operator consents),
// fills in and sends the form in Chromium, reads the answer, and keeps the page
// open while a person takes over (the wait ends as the run is asked to pause)
// and clicks on the desktop (real X input, as through VNC); after the hand
// back it reads the person's confirmation.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DesktopPool } from "@/server/compute";
import { createRun } from "@/server/kernel";
import { orderNumber } from "@/server/demo-site";
import { createTestKernel, type TestKernel } from "./helpers/kernel";
import { makeTempDir } from "./helpers/db";
import { attachTiers, startDemoSite } from "./helpers/tiers";
import { waitFor } from "./helpers/wait";

let tk: TestKernel;
let desktops: DesktopPool;
let dir: string;
let site: Awaited<ReturnType<typeof startDemoSite>>;

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  dir = makeTempDir("rein-test-demo-browser-");
  desktops = new DesktopPool({ dataDir: dir, size: 0 });
  await desktops.start();
  site = await startDemoSite();
  // The desktop opens "/demo-site/form" on Rein's own address: here, the test's demo site.
  attachTiers(tk, { desktops, selfUrl: site.url });
}, 60_000);
afterAll(async () => {
  await tk?.cleanup();
  await desktops?.stop();
  await site?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const row = (runId: string) => tk.t.db.run.findUniqueOrThrow({ where: { id: runId } });
const results = async (runId: string, tool: string) =>
  (await tk.kernel.store.listEvents(runId, 0, 10_000))
    .filter((e) => e.type === "tool.result" && (e.payload as { tool: string }).tool === tool)
    .map((e) => e.payload as Record<string, any>);

it("runs the built-in scenario end to end: consent, the form on the desktop, a person's click while it waits", async () => {
  const run = await createRun(tk.kernel, { goal: "Order two Rein stickers", agent: "demo-browser" }, tk.actors.operator);
  await waitFor(async () => (await row(run.id)).status === "waiting_human", "the consent request", { limitMs: 60_000 });
  const [request] = await tk.t.db.humanRequest.findMany({ where: { runId: run.id, state: "PENDING" } });
  expect(request).toMatchObject({ slot: "consent", requiredRole: "operator" });
  const operator = tk.actors.operator;
  await tk.hitl!.broker.decide(
    request.id,
    { id: operator.userId, name: operator.name, role: operator.role },
    { decision: "approve" },
    "inbox",
  );

  // While the agent keeps the page open, a person takes over: the run pauses after that step.
  await waitFor(
    async () =>
      (await tk.kernel.store.listEvents(run.id, 0, 10_000)).some(
        (e) => e.type === "tool.call" && (e.payload as { tool: string }).tool === "browser_wait",
      ),
    "the agent to wait for a person",
    { limitMs: 90_000 },
  );
  expect((await tk.kernel.pool.pause(run.id, { id: operator.userId, name: operator.name })).ok).toBe(true);
  await waitFor(async () => (await row(run.id)).status === "paused", "the run to pause", { limitMs: 60_000 });
  // The agent's minute-long wait ended as soon as the pause was asked for, not a minute later.
  const [waited] = await results(run.id, "browser_wait");
  expect(waited).toMatchObject({ ok: true, output: { endedEarly: expect.stringMatching(/asked to pause/) } });
  expect(waited.output.waitedMs).toBeLessThan(60_000);
  const desktop = desktops.get(run.id)!;
  expect(desktop).toBeDefined();
  // The person's click on the big Confirm button, in the middle of the screen, as X input.
  execFileSync("xdotool", ["mousemove", String(desktop.width / 2), String(desktop.height / 2), "click", "1"], {
    env: { ...process.env, DISPLAY: desktop.display },
  });
  await waitFor(
    async () => /Confirmed by a person/.test(await (await desktop.page()).locator("#confirmation").innerText()),
    "the page to show the click",
  );
  expect((await tk.kernel.pool.resume(run.id, { id: operator.userId, name: operator.name }, "I confirmed the order on the page.")).ok).toBe(
    true,
  );

  await waitFor(async () => ["succeeded", "failed", "canceled"].includes((await row(run.id)).status), "the run to finish", {
    limitMs: 60_000,
  });
  expect((await row(run.id)).status).toBe("succeeded");
  const workspace = path.join(tk.t.dir, "workspaces", run.id);
  expect(fs.readFileSync(path.join(workspace, "ORDER.md"), "utf8")).toContain("Ada Lovelace");
  const [navigated] = await results(run.id, "browser_navigate");
  expect(navigated).toMatchObject({ ok: true, output: { url: `${site.url}/demo-site/form`, status: 200 } });
  const reads = await results(run.id, "browser_read");
  const number = orderNumber("Ada Lovelace", "Two Rein stickers, please");
  expect(JSON.stringify(reads[0].output)).toContain(`Thank you, Ada Lovelace. We received your order ${number}`);
  expect(JSON.stringify(reads[0].output)).toContain("Not confirmed by a person yet.");
  expect(JSON.stringify(reads[1].output)).toContain("Confirmed by a person at");
  // Back on T1 once it ended, its desktop gone.
  await waitFor(async () => (await row(run.id)).tier === "T1" && !desktops.get(run.id), "the run to leave T2");
}, 180_000);
