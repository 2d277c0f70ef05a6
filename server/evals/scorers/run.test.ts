// Scoring a real scripted run: demo-coder writes fizzbuzz and its tests and
// runs them in a terminal pod; its final workspace is checked the same way,
// with files through the file service and commands in a pod of their own.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun } from "@/server/kernel";
import { DEFAULT_LIMITS, PodPool, probeSandbox } from "@/server/compute";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { makeTempDir } from "@/test/helpers/db";
import { loadScoringInput, parseScoring, score, scoreItem, type ScoringInput } from "./index";

// Sandboxed where bubblewrap works; elsewhere pods run unconfined, as the other pod tests do.
const sandbox = probeSandbox();

describe("scoring a demo-coder run", () => {
  let tk: TestKernel;
  let pods: PodPool;
  let podsDir: string;
  let input: ScoringInput;
  let release = () => {};

  beforeAll(async () => {
    podsDir = makeTempDir("rein-test-scorer-pods-");
    pods = new PodPool({ dataDir: podsDir, size: 0, limits: { ...DEFAULT_LIMITS, wallTimeSec: 300 }, sandbox, allowUnsandboxed: true });
    await pods.start();
    tk = await createTestKernel({ terminals: pods });
    const run = await createRun(tk.kernel, { goal: "Write fizzbuzz with tests", agent: "demo-coder" }, tk.actors.operator);
    expect(await tk.settle(run.id)).toBe("succeeded");
    ({ input, release } = await loadScoringInput({ ...tk.kernel.deps, db: tk.t.db, terminals: pods }, run.id));
  }, 120_000);
  afterAll(async () => {
    release();
    await tk?.cleanup();
    await pods?.stop();
    fs.rmSync(podsDir, { recursive: true, force: true });
  });

  it("reads the run's figures and trajectory from its events", () => {
    expect(input.status).toBe("succeeded");
    expect(input.toolCalls.map((c) => c.tool)).toEqual(expect.arrayContaining(["update_tasks", "list_files", "write_file", "shell"]));
    expect(input.toolCalls.every((c) => c.ok)).toBe(true);
    expect(input.modelCalls).toBeGreaterThanOrEqual(5);
    expect(input.finalText).not.toBe("");
  });

  it("passes with outcome, tools_used, file_exists and commands run in the final workspace", async () => {
    const scoring = parseScoring({
      threshold: 1,
      scorers: [
        { kind: "outcome", required: true },
        { kind: "tools_used", tools: ["write_file", "shell"] },
        { kind: "file_exists", path: "src/fizzbuzz.mjs" },
        { kind: "file_contains", path: "test/fizzbuzz.test.mjs", pattern: "fizzbuzz\\(\\d+\\)" },
        { kind: "command", command: "test -f src/fizzbuzz.mjs", timeoutSec: 30 },
        { kind: "command", command: "node --test test/fizzbuzz.test.mjs", timeoutSec: 60, required: true },
        {
          kind: "tool_sequence",
          mode: "subset",
          steps: [
            { tool: "write_file", args: { path: { equals: "src/fizzbuzz.mjs" } } },
            { tool: "shell", args: { command: { contains: "node --test" } } },
          ],
        },
        { kind: "tools_not_used", tools: ["browser_navigate"] },
      ],
    });
    if (!scoring.ok) throw new Error(scoring.problems.join("; "));
    const verdict = await scoreItem(input, scoring.scoring);
    expect(verdict.scorers.filter((s) => !("passed" in s.result && s.result.passed))).toEqual([]);
    expect(verdict).toMatchObject({ score: 1, passed: true, failedRequired: [] });
  });

  it("fails a command that exits non-zero, and one that runs past its time limit", async () => {
    expect(await score(input, { kind: "command", command: "test -f src/missing.mjs" })).toEqual({
      score: 0,
      passed: false,
      detail: '"test -f src/missing.mjs" exited 1',
    });
    expect(await score(input, { kind: "command", command: "echo broken >&2; exit 3" })).toMatchObject({
      passed: false,
      detail: expect.stringMatching(/exited 3; it printed: broken/),
    });
    expect(await score(input, { kind: "command", command: "sleep 30", timeoutSec: 1 })).toMatchObject({
      passed: false,
      detail: '"sleep 30" ran longer than 1 s and was stopped',
    });
    // The command reaches bash as written, quotes and all.
    expect(await score(input, { kind: "command", command: `test "$(printf '%s' 'it''s')" = its` })).toMatchObject({ passed: true });
    // Each command had its pod, and it is gone.
    expect(pods.stats().attached).toBe(0);
  });

  it.runIf(sandbox.ok)("runs commands in the sandbox: the workspace at /workspace, the host's files out of sight", async () => {
    expect(
      await score(input, { kind: "command", command: 'test "$PWD" = /workspace && test -f /workspace/src/fizzbuzz.mjs' }),
    ).toMatchObject({ passed: true });
    const host = path.resolve(tk.t.dir);
    expect(await score(input, { kind: "command", command: `test ! -e ${JSON.stringify(host)}` })).toMatchObject({ passed: true });
  });
});
