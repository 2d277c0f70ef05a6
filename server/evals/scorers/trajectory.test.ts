// Trajectory scorers: tools used and not used, and tool sequences in all four
// modes (definitions at the top of sequence.ts), with argument matchers.
import { describe, expect, it } from "vitest";
import { parseScorer, score, type SequenceMode } from "./index";
import { call, inputOf } from "./__fixtures__/input";
import type { ToolCallRecord } from "./types";

const problems = (config: unknown) => {
  const r = parseScorer(config);
  if (r.ok) throw new Error(`expected ${JSON.stringify(config)} to be refused`);
  return r.problems;
};

const seq = (mode: SequenceMode, steps: unknown[], calls: ToolCallRecord[], extra: Record<string, unknown> = {}) =>
  score(inputOf({ toolCalls: calls }), { kind: "tool_sequence", mode, steps, ...extra });

// A small coding trajectory: look, write, test, commit.
const RUN = [
  call("list_files"),
  call("write_file", { path: "src/fizzbuzz.mjs", content: "export function fizzbuzz() {}" }),
  call("shell", { command: "node --test test/fizzbuzz.test.mjs" }),
  call("shell", { command: "git commit -qm 'Add fizzbuzz'" }),
];

describe("tools_used and tools_not_used", () => {
  it("tools_used passes when every tool was called; the score is the share that was", async () => {
    const input = inputOf({ toolCalls: RUN });
    expect(await score(input, { kind: "tools_used", tools: ["shell", "write_file"] })).toEqual({
      score: 1,
      passed: true,
      detail: "the run used shell, write_file",
    });
    expect(await score(input, { kind: "tools_used", tools: ["shell", "read_file", "search", "write_file"] })).toEqual({
      score: 0.5,
      passed: false,
      detail: "the run never used read_file, search",
    });
  });

  it("tools_not_used passes when none was called, and says how often the others were", async () => {
    const input = inputOf({ toolCalls: RUN });
    expect(await score(input, { kind: "tools_not_used", tools: ["browser_navigate"] })).toMatchObject({ score: 1, passed: true });
    expect(await score(input, { kind: "tools_not_used", tools: ["shell", "browser_navigate"] })).toEqual({
      score: 0.5,
      passed: false,
      detail: "the run used shell (2 times)",
    });
  });

  it("with onlySucceeded, a call that failed does not count as using the tool", async () => {
    const input = inputOf({ toolCalls: [call("shell", { command: "make" }, false)] });
    expect(await score(input, { kind: "tools_used", tools: ["shell"] })).toMatchObject({ passed: true });
    expect(await score(input, { kind: "tools_used", tools: ["shell"], onlySucceeded: true })).toMatchObject({ passed: false });
    expect(await score(input, { kind: "tools_not_used", tools: ["shell"], onlySucceeded: true })).toMatchObject({ passed: true });
  });

  it.each([
    [{ kind: "tools_used" }, /tools is a list of tool names the run must use/],
    [{ kind: "tools_used", tools: [] }, /tools needs at least one tool the run must use/],
    [{ kind: "tools_not_used", tools: [""] }, /tools\[0\]: a tool name is empty/],
    [{ kind: "tools_not_used", tools: "shell" }, /tools is a list of tool names the run must not use/],
  ])("refuses %j", (config, message) => {
    expect(problems(config).join("\n")).toMatch(message);
  });
});

describe("tool_sequence, strict: exactly this sequence", () => {
  const steps = ["list_files", "write_file", "shell", "shell"];

  it("passes on the same calls in the same order", async () => {
    expect(await seq("strict", steps, RUN)).toEqual({
      score: 1,
      passed: true,
      detail: "the 4 tool calls are exactly the expected sequence",
    });
  });

  it("fails on another order, naming the first call that differs", async () => {
    const r = await seq("strict", steps, [RUN[1], RUN[0], RUN[2], RUN[3]]);
    expect(r).toEqual({ score: 0.5, passed: false, detail: "call 1 (write_file) does not match step 1, list_files" });
  });

  it("fails on a call too many or too few", async () => {
    expect(await seq("strict", steps, [...RUN, call("read_file")])).toEqual({
      score: 4 / 5,
      passed: false,
      detail: "the run made 5 tool calls, 1 more than the 4 expected; the first extra is call 5 (read_file)",
    });
    expect(await seq("strict", steps, RUN.slice(0, 3))).toMatchObject({
      score: 3 / 4,
      passed: false,
      detail: "the run made 3 tool calls; step 4, shell, never came",
    });
    expect(await seq("strict", steps, [])).toMatchObject({ score: 0, passed: false });
  });
});

describe("tool_sequence, unordered: the same calls in any order", () => {
  const steps = ["shell", "write_file", "shell", "list_files"];

  it("passes on the same multiset in another order", async () => {
    expect(await seq("unordered", steps, RUN)).toEqual({
      score: 1,
      passed: true,
      detail: "the 4 tool calls are the expected ones, in some order",
    });
  });

  it("counts repeats: one shell call is not two", async () => {
    const r = await seq("unordered", steps, [RUN[0], RUN[1], RUN[2], call("read_file")]);
    expect(r).toEqual({ score: 3 / 4, passed: false, detail: "no call for shell; unexpected call 4 (read_file)" });
  });

  it("fails on an extra call", async () => {
    expect(await seq("unordered", steps, [...RUN, call("shell")])).toMatchObject({
      score: 4 / 5,
      passed: false,
      detail: "unexpected call 5 (shell)",
    });
  });

  it("pairs steps with calls as a whole, not greedily (an 'any' step does not steal the only call an exact step fits)", async () => {
    const steps2 = [
      { tool: "shell", args: { command: "any" } },
      { tool: "shell", args: { command: { contains: "git commit" } } },
    ];
    expect(await seq("unordered", steps2, [RUN[3], RUN[2]])).toMatchObject({ score: 1, passed: true });
  });
});

describe("tool_sequence, subset: the expected steps appear among the calls in order", () => {
  it("passes with other calls before, between and after", async () => {
    expect(await seq("subset", ["write_file", "shell"], RUN)).toEqual({
      score: 1,
      passed: true,
      detail: "all 2 expected steps appear in order among the 4 tool calls",
    });
    expect(await seq("subset", ["list_files", "shell"], RUN)).toMatchObject({ passed: true });
  });

  it("fails when the steps come in another order, naming the step that is missing", async () => {
    expect(await seq("subset", ["shell", "write_file"], RUN)).toEqual({
      score: 0.5,
      passed: false,
      detail: "step 2, write_file, does not appear after the call that matched step 1",
    });
  });

  it("fails when a step never came", async () => {
    expect(await seq("subset", ["write_file", "read_file", "shell"], RUN)).toMatchObject({
      score: 2 / 3,
      passed: false,
      detail: "step 2, read_file, does not appear after the call that matched step 1",
    });
    expect(await seq("subset", ["search"], RUN)).toMatchObject({ score: 0, passed: false, detail: "step 1, search, does not appear" });
  });
});

describe("tool_sequence, superset: every call is one of the expected steps, in order", () => {
  const allowed = ["list_files", "read_file", "write_file", "shell", "shell"];

  it("passes when the run left steps out but did nothing else", async () => {
    expect(await seq("superset", allowed, RUN)).toEqual({
      score: 1,
      passed: true,
      detail: "each of the 4 tool calls is one of the expected steps, in order",
    });
    expect(await seq("superset", allowed, [RUN[1]])).toMatchObject({ passed: true });
    expect(await seq("superset", allowed, [])).toMatchObject({ score: 1, passed: true });
  });

  it("fails on a call outside the steps", async () => {
    expect(await seq("superset", allowed, [...RUN, call("browser_navigate")])).toEqual({
      score: 4 / 5,
      passed: false,
      detail: "call 5 (browser_navigate) is not one of the expected steps in order",
    });
  });

  it("fails on calls out of the steps' order", async () => {
    expect(await seq("superset", allowed, [RUN[2], RUN[1]])).toMatchObject({
      score: 0.5,
      passed: false,
      detail: "call 2 (write_file) is not one of the expected steps in order",
    });
  });
});

describe("argument matchers", () => {
  const step = (args: Record<string, unknown>) => [{ tool: "write_file", args }];
  const calls = [RUN[1]];

  it("equals compares the JSON value, key order aside", async () => {
    expect(await seq("strict", step({ path: { equals: "src/fizzbuzz.mjs" } }), calls)).toMatchObject({ passed: true });
    expect(await seq("strict", step({ path: { equals: "src/other.mjs" } }), calls)).toMatchObject({
      passed: false,
      detail: 'call 1 (write_file) does not match step 1, write_file (path = "src/other.mjs")',
    });
    const nested = [call("update_tasks", { tasks: [{ title: "t", status: "done" }] })];
    expect(
      await seq("strict", [{ tool: "update_tasks", args: { tasks: { equals: [{ status: "done", title: "t" }] } } }], nested),
    ).toMatchObject({ passed: true });
  });

  it("contains looks for a substring of a string argument", async () => {
    expect(await seq("strict", step({ content: { contains: "fizzbuzz" } }), calls)).toMatchObject({ passed: true });
    expect(await seq("strict", step({ content: { contains: "FIZZBUZZ" } }), calls)).toMatchObject({ passed: false });
    expect(await seq("strict", step({ content: { contains: "FIZZBUZZ", ignoreCase: true } }), calls)).toMatchObject({ passed: true });
  });

  it("matches runs a linear-time regex on a string argument", async () => {
    expect(await seq("strict", step({ path: { matches: "^src/\\w+\\.mjs$" } }), calls)).toMatchObject({ passed: true });
    expect(await seq("strict", step({ path: { matches: "^test/" } }), calls)).toMatchObject({ passed: false });
  });

  it("any needs the argument to be there, with any value; arguments not named are free", async () => {
    expect(await seq("strict", step({ path: "any", content: "any" }), calls)).toMatchObject({ passed: true });
    expect(await seq("strict", step({ mode: "any" }), calls)).toMatchObject({ passed: false });
    expect(await seq("strict", step({}), calls)).toMatchObject({ passed: true });
  });

  it("a string matcher never matches a value that is not a string", async () => {
    expect(
      await seq("strict", [{ tool: "shell", args: { timeoutSec: { contains: "1" } } }], [call("shell", { command: "x", timeoutSec: 10 })]),
    ).toMatchObject({ passed: false });
  });

  it("onlySucceeded leaves failed calls out of the sequence", async () => {
    const withFailure = [RUN[0], call("shell", { command: "node --test" }, false), RUN[1]];
    expect(await seq("strict", ["list_files", "write_file"], withFailure)).toMatchObject({ passed: false });
    expect(await seq("strict", ["list_files", "write_file"], withFailure, { onlySucceeded: true })).toMatchObject({ passed: true });
  });
});

describe("tool_sequence configuration", () => {
  it("defaults to strict", () => {
    expect(parseScorer({ kind: "tool_sequence", steps: ["shell"] })).toMatchObject({
      ok: true,
      scorer: { settings: { mode: "strict", steps: [{ tool: "shell", args: {} }] } },
    });
  });

  it.each([
    [{ kind: "tool_sequence", steps: [] }, /^steps: a tool sequence needs at least one tool$/],
    [{ kind: "tool_sequence" }, /steps is a list of tool names or \{ tool, args \}/],
    [{ kind: "tool_sequence", mode: "loose", steps: ["shell"] }, /mode is one of strict, unordered, subset, superset/],
    [{ kind: "tool_sequence", steps: [42] }, /steps\[0\]: a step is a tool name or \{ tool, args \}/],
    [{ kind: "tool_sequence", steps: [{ tool: "shell", argz: {} }] }, /steps\[0\]: .*"argz"/],
    [
      { kind: "tool_sequence", steps: [{ tool: "shell", args: { command: "anything" } }] },
      /steps\[0\]\.args\.command: an argument matcher is "any", \{ "equals": value \}/,
    ],
    [
      { kind: "tool_sequence", steps: [{ tool: "shell", args: { command: { equals: 1, contains: "x" } } }] },
      /exactly one of equals, contains or matches/,
    ],
    [{ kind: "tool_sequence", steps: [{ tool: "shell", args: { command: { contains: "" } } }] }, /contains needs a non-empty text/],
    [
      { kind: "tool_sequence", steps: [{ tool: "shell", args: { command: { equals: "x", ignoreCase: true } } }] },
      /ignoreCase is true or false, beside contains or matches/,
    ],
    [
      { kind: "tool_sequence", steps: [{ tool: "shell", args: { command: { matches: "(?<!x)y" } } }] },
      /the regex "\(\?<!x\)y" is not one Rein can run in linear time/,
    ],
    [{ kind: "tool_sequence", steps: Array(201).fill("shell") }, /at most 200 steps/],
  ])("refuses %j", (config, message) => {
    expect(problems(config).join("\n")).toMatch(message);
  });
});
