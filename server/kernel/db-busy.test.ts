// Several machines: a write that another database session's row locks held up
// past its retries (a process frozen inside a transaction, server/db/lock-waits.ts)
// is no fault of the run. The worker stops executing it and it resumes from its
// last checkpoint; it never ends failed (docs/several-machines.md#frozen-workers).
import { afterEach, describe, expect, it } from "vitest";
import { DbBusyError } from "@/server/db";
import { createMemoryKernel, plainControl, type MemoryKernel } from "@/test/helpers/kernel";
import { driveRun } from "./index";

describe("a write held up past its retries by another session's locks", () => {
  let k: MemoryKernel | undefined;
  afterEach(() => k?.cleanup());

  it("interrupts the step on a worker: the run stays running, and resumes from its checkpoint to succeed", async () => {
    k = createMemoryKernel();
    const id = k.addRun({
      scenario: {
        turns: [{ text: "Step.", toolCalls: [{ tool: "shell", args: { command: "echo one >> effects.log" } }] }, { text: "Done." }],
      },
    });
    const store = k.store;
    const commit = store.commitStep.bind(store);
    let commits = 0;
    // The checkpoint after the first model turn finds its rows locked for too long.
    store.commitStep = async (runId, step) => {
      if (++commits === 2) throw new DbBusyError(20_000, 12);
      return commit(runId, step);
    };
    const worker = { leaseLost: () => false };
    expect(await driveRun(id, k.deps, plainControl(worker))).toBe("interrupted");
    expect((await store.getRun(id))?.status).toBe("running");

    expect(await driveRun(id, k.deps, plainControl({ ...worker, recovered: true }))).toBe("succeeded");
    const events = await k.events(id);
    expect(events.filter((e) => e.type === "run.state").map((e) => (e.payload as { to: string }).to)).toEqual(["running", "succeeded"]);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });
});
