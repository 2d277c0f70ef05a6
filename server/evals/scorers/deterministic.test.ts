// Deterministic scorers on hand-built inputs, and their bad configurations.
import { describe, expect, it } from "vitest";
import { ScorerConfigError, ScoringUnavailableError, parseScorer, score } from "./index";
import { inputOf } from "./__fixtures__/input";

function problems(config: unknown): string[] {
  const r = parseScorer(config);
  if (r.ok) throw new Error(`expected ${JSON.stringify(config)} to be refused`);
  return r.problems;
}

describe("parseScorer", () => {
  it("fills in the base settings and the kind's defaults", () => {
    const r = parseScorer({ kind: "outcome" });
    expect(r).toMatchObject({ ok: true, scorer: { kind: "outcome", weight: 1, required: false, settings: { equals: ["succeeded"] } } });
  });

  it.each([
    [null, /a scorer is an object/],
    [[], /a scorer is an object/],
    [{}, /a scorer needs a kind, one of outcome, text_contains/],
    [{ kind: "vibes" }, /there is no scorer kind "vibes"; the kinds are .*tool_sequence/],
    [{ kind: "outcome", weight: 0 }, /weight must be more than 0/],
    [{ kind: "outcome", weight: "heavy" }, /weight is a number/],
    [{ kind: "outcome", required: "yes" }, /required is true or false/],
    [{ kind: "outcome", equals: "won" }, /equals\[0\]: an outcome is one of succeeded, failed, canceled/],
    [{ kind: "outcome", colour: "red" }, /outcome has no setting "colour"/],
  ])("refuses %j with a clear problem", (config, message) => {
    expect(problems(config).join("\n")).toMatch(message);
  });

  it("score() refuses a bad configuration with a ScorerConfigError listing its problems", async () => {
    const err = await score(inputOf(), { kind: "text_contains" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScorerConfigError);
    expect((err as ScorerConfigError).problems).toEqual(["text is the text to look for"]);
  });
});

describe("outcome", () => {
  it("passes on the expected outcome and fails otherwise, saying why the run ended", async () => {
    expect(await score(inputOf({ status: "succeeded" }), { kind: "outcome" })).toEqual({
      score: 1,
      passed: true,
      detail: "the run succeeded; as expected",
    });
    expect(await score(inputOf({ status: "failed", statusReason: "the tests failed" }), { kind: "outcome" })).toEqual({
      score: 0,
      passed: false,
      detail: "the run failed (the tests failed); expected succeeded",
    });
  });

  it("takes a list of outcomes", async () => {
    const config = { kind: "outcome", equals: ["failed", "canceled"] };
    expect(await score(inputOf({ status: "canceled" }), config)).toMatchObject({ passed: true });
    expect(await score(inputOf({ status: "succeeded" }), config)).toMatchObject({
      passed: false,
      detail: expect.stringContaining("expected failed or canceled"),
    });
    expect(problems({ kind: "outcome", equals: [] })).toEqual(["equals needs at least one outcome"]);
  });
});

describe("text_contains and text_matches", () => {
  const input = inputOf({ finalText: "All 5 tests pass. Committed as a1b2c3d." });

  it("text_contains looks for a substring, optionally ignoring case", async () => {
    expect(await score(input, { kind: "text_contains", text: "tests pass" })).toMatchObject({ score: 1, passed: true });
    expect(await score(input, { kind: "text_contains", text: "TESTS PASS" })).toMatchObject({
      score: 0,
      passed: false,
      detail: 'the final text does not contain "TESTS PASS"',
    });
    expect(await score(input, { kind: "text_contains", text: "TESTS PASS", ignoreCase: true })).toMatchObject({ passed: true });
    expect(problems({ kind: "text_contains", text: "" })).toEqual(["text to look for is empty"]);
  });

  it("text_matches finds a linear-time regex anywhere in the text", async () => {
    expect(await score(input, { kind: "text_matches", pattern: "\\d+ tests? pass" })).toMatchObject({ passed: true });
    expect(await score(input, { kind: "text_matches", pattern: "^Committed" })).toMatchObject({
      passed: false,
      detail: "the final text does not match /^Committed/",
    });
    expect(await score(input, { kind: "text_matches", pattern: "committed as [0-9a-f]{7}", ignoreCase: true })).toMatchObject({
      passed: true,
    });
    expect(await score(inputOf({ finalText: "" }), { kind: "text_matches", pattern: "." })).toMatchObject({ passed: false });
  });

  it("text_matches refuses a regex Rein cannot run in linear time, naming it", () => {
    expect(problems({ kind: "text_matches", pattern: "(a)\\1" })).toEqual([
      expect.stringMatching(/^the regex "\(a\)\\\\1" is not one Rein can run in linear time: .*no backreferences or lookaround/),
    ]);
    expect(problems({ kind: "text_matches", pattern: "foo(?=bar)" })[0]).toMatch(/is not one Rein can run in linear time/);
    expect(problems({ kind: "text_matches", pattern: "[unclosed" })[0]).toMatch(
      /is not one Rein can run in linear time: missing closing ]/,
    );
    expect(problems({ kind: "text_matches" })).toEqual(["pattern is the regex to match"]);
  });
});

describe("file_exists and file_contains", () => {
  const input = inputOf({
    files: { "src/fizzbuzz.mjs": "export function fizzbuzz(n) {\n  return String(n);\n}\n", "README.md": "# Demo\n" },
  });

  it("file_exists asks the workspace", async () => {
    expect(await score(input, { kind: "file_exists", path: "src/fizzbuzz.mjs" })).toEqual({
      score: 1,
      passed: true,
      detail: "src/fizzbuzz.mjs exists in the final workspace",
    });
    expect(await score(input, { kind: "file_exists", path: "src/missing.mjs" })).toMatchObject({
      score: 0,
      passed: false,
      detail: "src/missing.mjs does not exist in the final workspace",
    });
  });

  it("file_contains takes a substring or a safe regex", async () => {
    expect(await score(input, { kind: "file_contains", path: "src/fizzbuzz.mjs", text: "export function fizzbuzz" })).toMatchObject({
      passed: true,
    });
    expect(await score(input, { kind: "file_contains", path: "src/fizzbuzz.mjs", pattern: "function \\w+\\(n\\)" })).toMatchObject({
      passed: true,
    });
    expect(await score(input, { kind: "file_contains", path: "README.md", text: "fizzbuzz" })).toMatchObject({
      passed: false,
      detail: 'README.md does not contain "fizzbuzz"',
    });
    expect(await score(input, { kind: "file_contains", path: "nope.txt", text: "x" })).toMatchObject({
      passed: false,
      detail: "nope.txt does not exist in the final workspace",
    });
  });

  it.each([
    [{ kind: "file_contains", path: "a.txt" }, /needs either text \(a substring\) or pattern \(a regex\), not both and not neither/],
    [{ kind: "file_contains", path: "a.txt", text: "x", pattern: "x" }, /not both/],
    [{ kind: "file_contains", path: "a.txt", pattern: "(x+)+\\1" }, /is not one Rein can run in linear time/],
    [{ kind: "file_exists" }, /path is the file's path in the workspace/],
    [{ kind: "file_exists", path: "" }, /the file path is empty/],
    [{ kind: "file_exists", path: "../../etc/passwd" }, /the path "..\/..\/etc\/passwd" leads outside the workspace/],
    [{ kind: "file_exists", path: "src/../../x" }, /leads outside the workspace/],
    [{ kind: "file_exists", path: "/etc/passwd" }, /the path "\/etc\/passwd" is absolute; give it relative to the workspace/],
    [{ kind: "file_contains", path: ".", text: "x" }, /names the workspace folder itself/],
  ])("refuses %j", (config, message) => {
    expect(problems(config).join("\n")).toMatch(message);
  });
});

describe("command", () => {
  const input = inputOf({
    commands: {
      "npm test": { exitCode: 0, output: "ok 5 tests\n", timedOut: false },
      "node --test": { exitCode: 1, output: "not ok 2 - rejects zero\n", timedOut: false },
      "sleep 100": { exitCode: -1, output: "", timedOut: true },
      uname: new ScoringUnavailableError("commands cannot run in the sandbox: bubblewrap is not installed"),
      boom: new Error("the pod exited"),
    },
  });

  it("passes on exit 0 and fails otherwise with the end of the output", async () => {
    expect(await score(input, { kind: "command", command: "npm test" })).toEqual({ score: 1, passed: true, detail: '"npm test" exited 0' });
    expect(await score(input, { kind: "command", command: "node --test" })).toEqual({
      score: 0,
      passed: false,
      detail: '"node --test" exited 1; it printed: not ok 2 - rejects zero',
    });
    expect(await score(input, { kind: "command", command: "sleep 100", timeoutSec: 2 })).toMatchObject({
      passed: false,
      detail: '"sleep 100" ran longer than 2 s and was stopped',
    });
    expect(input.ran).toEqual(["npm test", "node --test", "sleep 100"]);
  });

  it("is skipped, with the reason, where the sandbox is unavailable; other failures fail it", async () => {
    expect(await score(input, { kind: "command", command: "uname" })).toEqual({
      skipped: true,
      reason: "commands cannot run in the sandbox: bubblewrap is not installed",
    });
    expect(await score(input, { kind: "command", command: "boom" })).toEqual({
      score: 0,
      passed: false,
      detail: "command could not score the run: the pod exited",
    });
  });

  it.each([
    [{ kind: "command" }, /command is the shell command to run/],
    [{ kind: "command", command: "   " }, /the command is empty/],
    [{ kind: "command", command: "true", timeoutSec: 0 }, /timeoutSec is at least 1/],
    [{ kind: "command", command: "true", timeoutSec: 601 }, /timeoutSec is at most 600/],
    [{ kind: "command", command: "true", timeoutSec: 1.5 }, /timeoutSec is a whole number/],
  ])("refuses %j", (config, message) => {
    expect(problems(config).join("\n")).toMatch(message);
  });
});

describe("cost_at_most, calls_at_most, duration_at_most", () => {
  const input = inputOf({ costUsd: 0.25, modelCalls: 6, durationMs: 42_000 });

  it("pass at or under the limit and fail over it", async () => {
    expect(await score(input, { kind: "cost_at_most", usd: 0.25 })).toMatchObject({
      passed: true,
      detail: "the run cost $0.25; the limit is $0.25",
    });
    expect(await score(input, { kind: "cost_at_most", usd: 0.1 })).toMatchObject({ passed: false, score: 0 });
    expect(await score(input, { kind: "calls_at_most", calls: 6 })).toMatchObject({
      passed: true,
      detail: "the run made 6 model calls; the limit is 6",
    });
    expect(await score(input, { kind: "calls_at_most", calls: 5 })).toMatchObject({ passed: false });
    expect(await score(input, { kind: "duration_at_most", seconds: 60 })).toMatchObject({
      passed: true,
      detail: "the run took 42.0 s; the limit is 60 s",
    });
    expect(await score(input, { kind: "duration_at_most", seconds: 30 })).toMatchObject({ passed: false });
  });

  it("are skipped when the figure is not known", async () => {
    expect(await score(inputOf({ costUsd: null }), { kind: "cost_at_most", usd: 1 })).toEqual({
      skipped: true,
      reason: "the run's cost is not known",
    });
    expect(await score(inputOf({ durationMs: null }), { kind: "duration_at_most", seconds: 1 })).toMatchObject({ skipped: true });
  });

  it.each([
    [{ kind: "cost_at_most" }, /usd is the most the run may cost, in USD/],
    [{ kind: "cost_at_most", usd: -1 }, /usd cannot be negative/],
    [{ kind: "calls_at_most", calls: 2.5 }, /calls is a whole number/],
    [{ kind: "duration_at_most", seconds: 0 }, /seconds must be more than 0/],
    [{ kind: "duration_at_most", seconds: "10" }, /seconds is the longest the run may take/],
  ])("refuses %j", (config, message) => {
    expect(problems(config).join("\n")).toMatch(message);
  });
});
