// A run's ScoringInput from its events and workspace, and hostile input: a
// catastrophic regex, paths that lead out of the workspace, a symlink out.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir } from "@/test/helpers/db";
import type { RunEventRecord } from "@/server/kernel";
import { WorkspaceFileError, workspaceFor, type Workspace } from "@/server/tools";
import { parseScorer, score, scoringInputOf, type FinishedRun, type ScoringInput } from "./index";
import { MAX_MATCHED_CHARS } from "./common";
import { inputOf } from "./__fixtures__/input";

let seq = 0;
const ev = (type: string, payload: unknown): RunEventRecord => ({
  runId: "run-1",
  seq: ++seq,
  type: type as RunEventRecord["type"],
  actor: null,
  payload,
  createdAt: new Date(),
});
const turn = (text: string) =>
  ev("model.turn", {
    step: seq,
    agent: "a",
    model: "m",
    modelLabel: "m",
    scripted: true,
    text,
    toolCalls: [],
    finishReason: "stop",
    usage: {},
    durationMs: 1,
  });
const RUN: FinishedRun = {
  id: "run-1",
  status: "failed",
  errorMessage: "the tests failed",
  costUsd: 0.02,
  startedAt: new Date(1_000),
  endedAt: new Date(31_000),
};

let dataDir: string;
let workspace: Workspace;
let input: ScoringInput;

beforeAll(async () => {
  dataDir = makeTempDir("rein-test-scorers-");
  workspace = workspaceFor(dataDir, "run-1");
  await workspace.ensure();
  await workspace.writeFile("src/app.mjs", "export const answer = 42;\n");
  // A symlink the agent could have left, pointing out of the workspace.
  fs.symlinkSync("/etc/passwd", path.join(workspace.root, "passwd-link"));
  input = scoringInputOf(RUN, [], { workspace });
});
afterAll(() => {
  workspace?.release();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("scoringInputOf", () => {
  it("takes the figures from the run and the trajectory from its events, in order", () => {
    seq = 0;
    const events = [
      turn("Looking first."),
      ev("tool.call", { step: 1, agent: "a", toolCallId: "c1", tool: "list_files", args: {} }),
      ev("tool.result", { step: 1, toolCallId: "c1", tool: "list_files", ok: true, cached: false, replayClass: null, durationMs: 1 }),
      ev("tool.call", { step: 1, agent: "a", toolCallId: "c2", tool: "shell", args: { command: "make" } }),
      ev("tool.result", { step: 1, toolCallId: "c2", tool: "shell", ok: false, cached: false, replayClass: null, durationMs: 1 }),
      ev("model.error", { step: 2, agent: "a", model: "m", error: "overloaded", durationMs: 1 }),
      // Logged again after a resume: one call, not two.
      ev("tool.call", { step: 1, agent: "a", toolCallId: "c2", tool: "shell", args: { command: "make" } }),
      ev("tool.call", { step: 2, agent: "a", toolCallId: "c3", tool: "write_file", args: { path: "x" } }),
      turn("The build fails."),
      turn(""),
    ];
    const built = scoringInputOf(RUN, events, { workspace });
    expect(built).toMatchObject({
      runId: "run-1",
      status: "failed",
      statusReason: "the tests failed",
      finalText: "The build fails.",
      costUsd: 0.02,
      modelCalls: 4,
      durationMs: 30_000,
      toolCalls: [
        { tool: "list_files", args: {}, ok: true },
        { tool: "shell", args: { command: "make" }, ok: false },
        // No result: it never finished.
        { tool: "write_file", args: { path: "x" }, ok: false },
      ],
    });
  });

  it("reads the final workspace through the file service", async () => {
    expect(await input.readText("src/app.mjs")).toBe("export const answer = 42;\n");
    expect(await input.exists("src/app.mjs")).toBe(true);
    expect(await input.exists("src")).toBe(true);
    expect(await input.exists("src/missing.mjs")).toBe(false);
    expect(await score(input, { kind: "file_contains", path: "src/app.mjs", pattern: "answer = \\d+" })).toMatchObject({ passed: true });
  });

  it("without terminal pods, a command scorer is skipped with the reason", async () => {
    expect(await score(input, { kind: "command", command: "true" })).toEqual({
      skipped: true,
      reason: "commands cannot run here: this server has no terminal pods",
    });
  });
});

describe("hostile input", () => {
  it.each(["../../etc/passwd", "/etc/passwd", "src/../../../etc/passwd"])("the workspace service refuses %s", async (p) => {
    const err = await input.readText(p).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkspaceFileError);
    expect((err as WorkspaceFileError).reason).toBe("OUTSIDE_WORKSPACE");
    await expect(input.exists(p)).rejects.toThrow(/outside the workspace/);
    // And a scorer with such a path never gets that far.
    expect(parseScorer({ kind: "file_contains", path: p, text: "root:" })).toMatchObject({ ok: false });
  });

  it("a symlink out of the workspace leads nowhere: the sandbox sees only the workspace", async () => {
    expect(await score(input, { kind: "file_contains", path: "passwd-link", text: "root:" })).toMatchObject({
      passed: false,
      detail: expect.stringMatching(/^passwd-link (does not exist|could not be checked)/),
    });
    await expect(input.exists("passwd-link")).rejects.toThrow(/leads outside the workspace/);
    expect(await score(input, { kind: "file_exists", path: "passwd-link" })).toEqual({
      score: 0,
      passed: false,
      detail: 'passwd-link could not be checked: Path "passwd-link" leads outside the workspace',
    });
  });

  it("a catastrophic regex runs in linear time (no backtracking) on a long text", async () => {
    // (a+)+$ on a's followed by a non-a takes exponential time in a backtracking engine.
    const evil = inputOf({ finalText: `${"a".repeat(200_000)}!` });
    expect(await score(evil, { kind: "text_matches", pattern: "(a+)+$" })).toMatchObject({ passed: false });
    expect(await score(evil, { kind: "text_matches", pattern: "^(a|aa)+!$" })).toMatchObject({ passed: true });
  });

  it("what RE2 cannot run in linear time, and patterns past the length limit, are refused", () => {
    expect(parseScorer({ kind: "text_matches", pattern: "^(a+)\\1$" })).toMatchObject({
      ok: false,
      problems: [expect.stringMatching(/not one Rein can run in linear time/)],
    });
    expect(parseScorer({ kind: "text_matches", pattern: "a".repeat(2_001) })).toMatchObject({
      ok: false,
      problems: [expect.stringMatching(/longer than 2000 characters/)],
    });
  });

  it("a text past the matching limit is searched on its first part only, and the detail says so", async () => {
    const long = inputOf({ finalText: `${"x".repeat(MAX_MATCHED_CHARS)}needle` });
    expect(await score(long, { kind: "text_contains", text: "needle" })).toEqual({
      score: 0,
      passed: false,
      detail: 'the final text does not contain "needle" (only its first 1,000,000 characters were searched)',
    });
  });
});
