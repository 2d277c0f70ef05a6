// The classification of a run's failure, as a table: which fact wins when
// several hold, and what the message says.
import { describe, expect, it } from "vitest";
import { classify, type ErrorFacts, type GuestError } from "./errors";
import { DEFAULT_SANDBOX_LIMITS } from "./types";

const thrown = (name: string | null, message: string, line: number | null = 3, column: number | null = 7): GuestError => ({
  name,
  message,
  line,
  column,
});
const facts = (over: Partial<ErrorFacts>): ErrorFacts => ({
  phase: "run",
  limits: DEFAULT_SANDBOX_LIMITS,
  timedOut: false,
  guest: thrown("Error", "boom"),
  denied: [],
  ...over,
});

describe("classify", () => {
  const table: Array<[string, Partial<ErrorFacts>, string, string]> = [
    ["a plain throw", {}, "THREW", "the tool threw Error: boom (line 3, column 7)"],
    ["a throw while loading", { phase: "load" }, "THREW", "the source threw while loading: Error: boom (line 3, column 7)"],
    ["a throw without a position", { guest: thrown(null, "plain", null, null) }, "THREW", "the tool threw plain"],
    [
      "the deadline, whatever was thrown",
      { timedOut: true, guest: thrown("InternalError", "out of memory"), phase: "output" },
      "TIMEOUT",
      "the tool ran longer than 1000 ms and was stopped",
    ],
    [
      "a host's rejection the tool let through",
      { hostError: { call: 'rein.readFile("a")', message: "gone" } },
      "HOST_ERROR",
      'rein.readFile("a") failed: gone',
    ],
    [
      "QuickJS out of memory",
      { guest: thrown("InternalError", "out of memory") },
      "OUT_OF_MEMORY",
      "the tool used more than 32 MiB of memory and was stopped",
    ],
    [
      "QuickJS stack overflow, even while parsing",
      { phase: "load", guest: thrown("SyntaxError", "stack overflow") },
      "OUT_OF_MEMORY",
      "the tool nested calls or data deeper than its 256 KiB stack allows and was stopped",
    ],
    [
      "a tool's own error named like a resource error",
      { guest: thrown("Error", "out of memory") },
      "THREW",
      "the tool threw Error: out of memory (line 3, column 7)",
    ],
    [
      "a syntax error",
      { phase: "load", guest: thrown("SyntaxError", "expecting ')'") },
      "BAD_SOURCE",
      "the source does not compile: SyntaxError: expecting ')' (line 3, column 7)",
    ],
    [
      "an export",
      { phase: "load", guest: thrown("SyntaxError", "unsupported keyword: export", 1, 1) },
      "BAD_SOURCE",
      "the source does not compile: SyntaxError: unsupported keyword: export (line 1, column 1); the source is a script: define `function run(args, rein)` without import or export",
    ],
    [
      "a SyntaxError thrown at run time",
      { guest: thrown("SyntaxError", "bad JSON") },
      "THREW",
      "the tool threw SyntaxError: bad JSON (line 3, column 7)",
    ],
    [
      "serialisation",
      { phase: "output", guest: thrown("TypeError", "circular reference", null, null) },
      "BAD_OUTPUT",
      "the tool's return value is not JSON: TypeError: circular reference",
    ],
    [
      "a lent-nothing readFile",
      { denied: ["readFile"], guest: thrown("TypeError", "not a function", 1, 57) },
      "CAPABILITY_DENIED",
      "the tool used rein.readFile, which needs the workspace:read capability, and this run was not lent it: TypeError: not a function (line 1, column 57)",
    ],
  ];
  it.each(table)("%s", (_, over, code, message) => {
    expect(classify(facts(over))).toEqual({ code, message });
  });
});
