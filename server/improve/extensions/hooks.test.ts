// The hook queue: observing returns at once, a full queue drops (and counts)
// rather than grows, a hook's own record never calls hooks again, and stop
// drops what waits.
import { afterAll, describe, expect, it } from "vitest";
import type { NewRunEvent, RunEventRecord } from "@/server/kernel";
import { closeSandboxWorkers } from "../sandbox";
import { HookDispatcher } from "./hooks";
import { loadExtension } from "./load";
import type { ExtensionPackage } from "./package";
import type { InstalledExtension } from "./registry";

afterAll(() => closeSandboxWorkers());

const PKG: ExtensionPackage = {
  manifest: {
    name: "counter",
    version: "1.0.0",
    description: "Answers the seq of each tool result.",
    capabilities: [],
    hooks: ["tool.result", "extension.hook"],
  },
  files: {
    "index.js": `module.exports = { name: "counter", version: "1.0.0", setup(api) { api.on("tool.result", (e) => e.seq); api.on("extension.hook", () => "again"); } };`,
    "test/a.test.js": `test("ok", () => assert.ok(true));`,
  },
};

async function installed(): Promise<InstalledExtension> {
  const build = await loadExtension(PKG);
  if (!build.ok) throw new Error(build.problems.join("; "));
  return { id: "ext-1", name: "counter", version: "1.0.0", pkg: PKG, registered: build.registered, tools: [] };
}

const record = (seq: number, type = "tool.result"): RunEventRecord => ({
  runId: "run-1",
  seq,
  type: type as RunEventRecord["type"],
  actor: "agent:demo",
  payload: { tool: "t", ok: true },
  createdAt: new Date(),
});

function dispatcher(ext: InstalledExtension, opts: { concurrency?: number; queueLimit?: number } = {}) {
  const appended: NewRunEvent[] = [];
  const d = new HookDispatcher({
    listening: (type) => ((ext.registered.hooks ?? []).includes(type) ? [ext] : []),
    append: async (_runId, events) => {
      appended.push(...events);
    },
    ...opts,
    log: { error() {} },
  });
  return { d, appended };
}

describe("the hook queue", () => {
  it("returns at once and records each answer as an extension.hook event, keyed per extension and event", async () => {
    const { d, appended } = dispatcher(await installed());
    d.observe("run-1", [record(4), record(5, "model.turn")]);
    expect(appended).toHaveLength(0);
    await d.idle();
    expect(appended).toHaveLength(1);
    expect(appended[0]).toMatchObject({
      type: "extension.hook",
      key: "hook:ext-1:4",
      payload: { extension: "counter", event: "tool.result", seq: 4, ok: true, answer: "[4]" },
    });
  });

  it("never calls hooks for a hook's own record", async () => {
    const { d, appended } = dispatcher(await installed());
    d.observe("run-1", [record(9, "extension.hook")]);
    await d.idle();
    expect(appended).toHaveLength(0);
  });

  it("drops and counts what does not fit the queue; stop drops what waits", async () => {
    const { d, appended } = dispatcher(await installed(), { concurrency: 1, queueLimit: 2 });
    d.observe(
      "run-1",
      [1, 2, 3, 4, 5].map((n) => record(n)),
    );
    expect(d.droppedCount()).toBe(3);
    await d.idle();
    expect(appended.map((e) => (e.payload as { seq: number }).seq)).toEqual([1, 2]);
    d.observe(
      "run-1",
      [6, 7].map((n) => record(n)),
    );
    await d.stop();
    expect(appended.map((e) => (e.payload as { seq: number }).seq)).toEqual([1, 2, 6]);
    expect(d.droppedCount()).toBe(4);
  });
});
