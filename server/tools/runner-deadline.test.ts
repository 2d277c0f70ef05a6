// The runner's deadline for a call (docs/architecture.md#the-path-of-a-run):
// shell's timeoutSec is the one limit the agent sees, the runner's default only
// for tools that declare nothing. Short times through an injected default;
// nothing waits minutes.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  BUILTIN_TOOLS,
  DEFAULT_TIMEOUT_MS,
  MemoryReplayCache,
  ToolRegistry,
  ToolRunner,
  Workspace,
  callDeadlineMs,
  type ToolDefinition,
} from "./index";

const shell = BUILTIN_TOOLS.find((t) => t.name === "shell")!;
const silent: ToolDefinition<{ ms: number }> = {
  name: "wait_a_while",
  description: "Waits, declaring no deadline of its own.",
  args: z.object({ ms: z.number().int().min(0) }),
  replayClass: "pure",
  persistence: "none",
  execute: (args) => new Promise((resolve) => setTimeout(() => resolve({ waited: args.ms }), args.ms)),
};

describe("callDeadlineMs", () => {
  it("follows shell's timeoutSec, past the runner's 10-minute default, with a margin to read the result", () => {
    expect(callDeadlineMs(shell, { command: "make", timeoutSec: 1200 })).toBeGreaterThan(1_200_000);
    expect(callDeadlineMs(shell, { command: "make", timeoutSec: 3600 })).toBeGreaterThan(3_600_000);
    expect(callDeadlineMs(shell, { command: "make", timeoutSec: 1200 })).toBeLessThanOrEqual(1_200_000 + 60_000);
    // The default timeoutSec (120 s) is the limit too, not the runner's 10 minutes.
    expect(callDeadlineMs(shell, { command: "make" })).toBeLessThan(DEFAULT_TIMEOUT_MS);
    expect(callDeadlineMs(shell, { command: "make" })).toBeGreaterThan(120_000);
  });

  it("keeps a fixed timeoutMs, and the default for a tool that declares nothing", () => {
    expect(callDeadlineMs({ timeoutMs: 65_000 }, {})).toBe(65_000);
    expect(callDeadlineMs(silent, { ms: 1 })).toBe(DEFAULT_TIMEOUT_MS);
    expect(callDeadlineMs(silent, { ms: 1 }, 250)).toBe(250);
    expect(callDeadlineMs({ timeoutMs: 65_000, timeoutFor: () => Number.NaN }, {})).toBe(65_000);
  });
});

describe("a real call", () => {
  let root: string;
  const runner = new ToolRunner(new ToolRegistry([shell, silent]), new MemoryReplayCache(), undefined, undefined, {
    defaultTimeoutMs: 300,
  });
  let n = 0;
  const call = (toolName: string, args: unknown) =>
    runner
      .run(
        { toolCallId: `call_${n}`, toolName, args },
        { runId: "run-deadline", nodeId: `node-${n++}`, checkpointId: "cp" },
        {
          runId: "run-deadline",
          workspace: new Workspace(root),
          agent: { name: "tester", handoffs: [] },
          actorId: "user-test",
          signal: new AbortController().signal,
        },
        ["shell", "wait_a_while"],
      )
      .then((r) => r.outcome);

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "rein-deadline-"));
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it("a shell command longer than the runner's default finishes within its own timeoutSec", async () => {
    const outcome = await call("shell", { command: "sleep 1; echo finished", timeoutSec: 20 });
    expect(outcome).toMatchObject({ ok: true, output: { exitCode: 0 } });
    expect(JSON.stringify(outcome)).toContain("finished");
  }, 60_000);

  it("a tool that declares nothing stops at the runner's default", async () => {
    expect(await call("wait_a_while", { ms: 5_000 })).toEqual({
      ok: false,
      error: { code: "TIMEOUT", message: "wait_a_while took longer than 0.3 s" },
    });
  }, 60_000);
});
