// demo-coder: writes a small program with tests, runs them and commits. It
// writes what the goal asks for among the programs it knows: a goal that
// names slugify gets the slugify helper (with a plan, as demo-team's
// specialist writes it), any other goal fizzbuzz. Only that one word is read
// from the goal; none of its text reaches a file or the shell.
import type { Scenario } from "../../types";

const FIZZBUZZ = `/** Returns the FizzBuzz word for n. */
export function fizzbuzz(n) {
  if (!Number.isInteger(n) || n < 1) throw new RangeError("n must be a positive integer");
  if (n % 15 === 0) return "FizzBuzz";
  if (n % 3 === 0) return "Fizz";
  if (n % 5 === 0) return "Buzz";
  return String(n);
}
`;

const FIZZBUZZ_TEST = `import { test } from "node:test";
import assert from "node:assert/strict";
import { fizzbuzz } from "../src/fizzbuzz.mjs";

test("multiples of 3 are Fizz", () => assert.equal(fizzbuzz(9), "Fizz"));
test("multiples of 5 are Buzz", () => assert.equal(fizzbuzz(10), "Buzz"));
test("multiples of 15 are FizzBuzz", () => assert.equal(fizzbuzz(30), "FizzBuzz"));
test("other numbers are themselves", () => assert.equal(fizzbuzz(7), "7"));
test("rejects zero", () => assert.throws(() => fizzbuzz(0), RangeError));
`;

export const SLUGIFY = `/** Turns a title into a URL slug: lower case, ASCII letters and digits, single dashes. */
export function slugify(title) {
  return title
    .normalize("NFKD")
    .replace(/[\\u0300-\\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}
`;

export const SLUGIFY_TEST = `import { test } from "node:test";
import assert from "node:assert/strict";
import { slugify } from "../src/slugify.mjs";

test("lower-cases and joins words", () => assert.equal(slugify("Hello World"), "hello-world"));
test("drops accents", () => assert.equal(slugify("Crème Brûlée"), "creme-brulee"));
test("collapses punctuation", () => assert.equal(slugify("  a -- b!! "), "a-b"));
`;

export const PLAN = `# Plan

Goal: a \`slugify(title)\` helper for article URLs.

1. \`src/slugify.mjs\`: lower case, strip accents, non-alphanumerics become single dashes.
2. \`test/slugify.test.mjs\`: plain words, accents, punctuation.
3. Run the tests with \`node --test\`.
`;

/** The fizzbuzz work, demo-coder's default. */
export const DEMO_CODER: Scenario = {
  // A step that fails (the shell cannot run, a test fails) ends the run with its reason: the demo never claims it passed.
  stopOnError: true,
  turns: [
    {
      text: "I'll set up a task list and look at the workspace first.",
      toolCalls: [
        {
          tool: "update_tasks",
          args: {
            tasks: [
              { title: "Write the fizzbuzz function", status: "doing" },
              { title: "Write its tests", status: "todo" },
              { title: "Run the tests and commit", status: "todo" },
            ],
          },
        },
        { tool: "list_files", args: {} },
      ],
    },
    {
      text: "The workspace is empty. Writing the program as an ES module.",
      toolCalls: [{ tool: "write_file", args: { path: "src/fizzbuzz.mjs", content: FIZZBUZZ } }],
    },
    {
      text: "Now the tests, with Node's built-in test runner.",
      toolCalls: [{ tool: "write_file", args: { path: "test/fizzbuzz.test.mjs", content: FIZZBUZZ_TEST } }],
    },
    {
      text: "Running the tests.",
      toolCalls: [{ tool: "shell", args: { command: "node --test test/fizzbuzz.test.mjs" } }],
    },
    {
      text: "All tests pass. Committing the work.",
      toolCalls: [
        { tool: "shell", args: { command: "git add -A && git commit -q -m 'Add fizzbuzz with tests' && git log --oneline -1" } },
        {
          tool: "update_tasks",
          args: {
            tasks: [
              { title: "Write the fizzbuzz function", status: "done" },
              { title: "Write its tests", status: "done" },
              { title: "Run the tests and commit", status: "done" },
            ],
            notes: "fizzbuzz written and tested; 5 tests pass.",
          },
        },
      ],
    },
    { text: "Done: `src/fizzbuzz.mjs` is written, its 5 tests pass, and the work is committed." },
  ],
};

/** The slugify work done alone: the same steps as fizzbuzz, with the plan written first (no one to hand off to). */
const DEMO_CODER_SLUGIFY: Scenario = {
  stopOnError: true,
  turns: [
    {
      text: "I'll set up a task list and look at the workspace first.",
      toolCalls: [
        {
          tool: "update_tasks",
          args: {
            tasks: [
              { title: "Write the plan", status: "doing" },
              { title: "Write slugify and its tests", status: "todo" },
              { title: "Run the tests and commit", status: "todo" },
            ],
          },
        },
        { tool: "list_files", args: {} },
      ],
    },
    {
      text: "The workspace is empty. Writing the plan down first.",
      toolCalls: [{ tool: "write_file", args: { path: "PLAN.md", content: PLAN } }],
    },
    {
      text: "Writing the helper and its tests, with Node's built-in test runner.",
      toolCalls: [
        { tool: "write_file", args: { path: "src/slugify.mjs", content: SLUGIFY } },
        { tool: "write_file", args: { path: "test/slugify.test.mjs", content: SLUGIFY_TEST } },
      ],
    },
    {
      text: "Running the tests.",
      toolCalls: [{ tool: "shell", args: { command: "node --test test/slugify.test.mjs" } }],
    },
    {
      text: "All tests pass. Committing the work.",
      toolCalls: [
        { tool: "shell", args: { command: "git add -A && git commit -q -m 'Add slugify with tests' && git log --oneline -1" } },
        {
          tool: "update_tasks",
          args: {
            tasks: [
              { title: "Write the plan", status: "done" },
              { title: "Write slugify and its tests", status: "done" },
              { title: "Run the tests and commit", status: "done" },
            ],
            notes: "slugify written and tested; 3 tests pass.",
          },
        },
      ],
    },
    { text: "Done: PLAN.md and `src/slugify.mjs` are written, its 3 tests pass, and the work is committed." },
  ],
};

/** Only the start of a goal is read. */
const MAX_GOAL_CHARS = 2_000;

/** The work a goal asks demo-coder for: slugify when it names it (a whole word), else fizzbuzz. */
export function demoCoder(goal: string): Scenario {
  return /\bslugify\b/i.test(goal.slice(0, MAX_GOAL_CHARS)) ? DEMO_CODER_SLUGIFY : DEMO_CODER;
}
