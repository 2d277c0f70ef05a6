// Ctrl+C in a terminal signals the server's whole process group, so a child
// the kernel waits on (git creating a workspace) can die of SIGINT a moment
// before the server hears it and starts stopping. The run must be left to
// resume on the next start, not end failed.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryKernel, plainControl, type MemoryKernel } from "@/test/helpers/kernel";
import { Workspace } from "@/server/tools";
import { driveRun } from "./index";

const exec = promisify(execFile);

/** A workspace whose creation runs a real child process that the test then interrupts. */
class SlowWorkspace extends Workspace {
  child: Promise<unknown> | null = null;
  async ensure(): Promise<void> {
    const running = exec("sleep", ["30"]);
    this.child = running;
    setTimeout(() => running.child.kill("SIGINT"), 50);
    await running;
  }
}

describe("a child process interrupted by the same signal that stops the server", () => {
  let k: MemoryKernel | undefined;
  afterEach(() => k?.cleanup());

  it("leaves the run running, to resume on the next start", async () => {
    k = createMemoryKernel();
    const id = k.addRun({ agent: "demo-coder" });
    const dir = k.dataDir;
    k.deps.workspaceFor = (runId) => new SlowWorkspace(`${dir}/workspaces/${runId}`);
    let stopping = false;
    setTimeout(() => (stopping = true), 150); // the server's own SIGINT handler runs a little later
    expect(await driveRun(id, k.deps, plainControl({ stopping: () => stopping }))).toBe("stopped");
    expect((await k.store.getRun(id))?.status).toBe("running");
  });

  it("still fails the run when the server is not stopping (a child killed for another reason)", async () => {
    k = createMemoryKernel();
    const id = k.addRun({ agent: "demo-coder" });
    const dir = k.dataDir;
    k.deps.workspaceFor = (runId) => new SlowWorkspace(`${dir}/workspaces/${runId}`);
    expect(await driveRun(id, k.deps, plainControl())).toBe("failed");
    expect((await k.store.getRun(id))?.status).toBe("failed");
  });
});
