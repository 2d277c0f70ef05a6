// The per-run LLM call cap (docs/runs.md#limits; Run.maxSteps, default 50):
// a run that would exceed it fails with a clear reason *before* the call is
// made — the provider is never asked for the call over the cap.
import { afterEach, describe, expect, it } from "vitest";
import { driveRun, type KernelDeps, type RunEventRecord } from "@/server/kernel";
import type { LanguageModel, ModelRouter } from "@/server/models";
import { createMemoryKernel, plainControl, type MemoryKernel } from "./helpers/kernel";

const kernels: MemoryKernel[] = [];
afterEach(() => kernels.splice(0).forEach((k) => k.cleanup()));

/** The kernel's router, with every call that reaches a model counted. */
function countingRouter(inner: ModelRouter): { router: ModelRouter; calls: () => number } {
  let calls = 0;
  const router: ModelRouter = {
    resolve(request) {
      const resolved = inner.resolve(request);
      const model = resolved.model;
      const counted: LanguageModel = {
        specificationVersion: model.specificationVersion,
        provider: model.provider,
        modelId: model.modelId,
        family: model.family,
        doGenerate: (o) => (calls++, model.doGenerate(o)),
        doStream: (o) => (calls++, model.doStream(o)),
      };
      return { ...resolved, model: counted };
    },
  };
  return { router, calls: () => calls };
}

function setup(maxSteps: number) {
  const k = createMemoryKernel();
  kernels.push(k);
  const counting = countingRouter(k.deps.router);
  const deps: KernelDeps = { ...k.deps, router: counting.router };
  const id = k.addRun({ agent: "demo-coder", maxSteps });
  return { k, deps, id, calls: counting.calls };
}

const states = (events: RunEventRecord[]) => events.filter((e) => e.type === "run.state").map((e) => e.payload as Record<string, any>);

describe("the per-run LLM call cap", () => {
  it("stops the run before the call over the cap: the model is called exactly maxSteps times", async () => {
    const { k, deps, id, calls } = setup(2);
    expect(await driveRun(id, deps, plainControl())).toBe("failed");
    expect(calls()).toBe(2);
    const events = await k.events(id);
    expect(events.filter((e) => e.type === "model.turn")).toHaveLength(2);
    expect(states(events).at(-1)).toMatchObject({
      from: "running",
      to: "failed",
      reason: "The run reached its limit of 2 model calls",
      error: { code: "STEP_LIMIT", message: "The run reached its limit of 2 model calls" },
    });
    // The tool calls the second turn asked for ran; nothing after them did.
    const last = events.at(-1)!;
    expect(last.type).toBe("run.state");
    expect(events.at(-2)?.type).toBe("tool.result");
    expect((await k.store.getRun(id))?.status).toBe("failed");
  });

  it("a cap of 1 allows exactly one call", async () => {
    const { deps, id, calls } = setup(1);
    expect(await driveRun(id, deps, plainControl())).toBe("failed");
    expect(calls()).toBe(1);
  });

  it("a run that needs exactly maxSteps calls finishes (the cap is not off by one)", async () => {
    // demo-coder's scenario is six model turns.
    const { deps, id, calls } = setup(6);
    expect(await driveRun(id, deps, plainControl())).toBe("succeeded");
    expect(calls()).toBe(6);
  });
});
