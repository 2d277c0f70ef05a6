// A scripted demo never claims what did not happen (issue: a new user's first
// hour): on a machine where the shell cannot run, demo-coder and demo-team
// stop at their first shell step and end failed with the reason, instead of
// reporting "All tests pass".
import { afterEach, describe, expect, it } from "vitest";
import { createRun } from "@/server/kernel";
import type { TerminalProvider } from "@/server/compute";
import { createTestKernel, type TestKernel } from "./helpers/kernel";

const WHY = "Terminal pods are unavailable: bubblewrap (bwrap) is not installed: apt-get install bubblewrap";

/** What a server without bubblewrap hands the kernel: no pod, and the reason. */
const noSandbox: TerminalProvider = {
  async attach() {
    throw new Error(WHY);
  },
  get: () => undefined,
  async release() {},
  unavailable: () => WHY,
};

describe("scripted demos on a machine whose shell cannot run", () => {
  let tk: TestKernel;
  afterEach(async () => tk?.cleanup());

  it.each(["demo-coder", "demo-team"])("%s ends failed with the reason and never says its tests pass", async (agent) => {
    tk = await createTestKernel({ terminals: noSandbox });
    const run = await createRun(tk.kernel, { goal: "Write and test a helper", agent }, tk.actors.operator);
    expect(await tk.settle(run.id)).toBe("failed");
    const stored = await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(JSON.stringify(stored)).toMatch(/shell failed/);
    const events = await tk.kernel.store.listEvents(run.id, 0, 10_000);
    const said = events
      .filter((e) => e.type === "model.turn")
      .map((e) => String((e.payload as { text?: string }).text ?? ""))
      .join("\n");
    expect(said).toMatch(/Stopping: the tool call shell failed \(The shell cannot run: .*bubblewrap/);
    expect(said).not.toMatch(/tests pass/i);
    expect(said).not.toMatch(/^Done/m);
  });
});
