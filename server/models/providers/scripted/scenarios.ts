// Built-in deterministic scenarios for the demo agents. They run through the
// real ToolRunner: files are written and tests really run in the workspace.
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

const SLUGIFY = `/** Turns a title into a URL slug: lower case, ASCII letters and digits, single dashes. */
export function slugify(title) {
  return title
    .normalize("NFKD")
    .replace(/[\\u0300-\\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}
`;

const SLUGIFY_TEST = `import { test } from "node:test";
import assert from "node:assert/strict";
import { slugify } from "../src/slugify.mjs";

test("lower-cases and joins words", () => assert.equal(slugify("Hello World"), "hello-world"));
test("drops accents", () => assert.equal(slugify("Crème Brûlée"), "creme-brulee"));
test("collapses punctuation", () => assert.equal(slugify("  a -- b!! "), "a-b"));
`;

const PLAN = `# Plan

Goal: a \`slugify(title)\` helper for article URLs.

1. \`src/slugify.mjs\`: lower case, strip accents, non-alphanumerics become single dashes.
2. \`test/slugify.test.mjs\`: plain words, accents, punctuation.
3. Run the tests with \`node --test\`.
`;

export const BUILTIN_SCENARIOS: Record<string, Scenario> = {
  "demo-coder": {
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
  },
  "demo-team": {
    turns: [
      {
        text: "Planning: a slugify helper with tests. I'll write the plan down, then hand the coding to the specialist.",
        toolCalls: [
          { tool: "write_file", args: { path: "PLAN.md", content: PLAN } },
          {
            tool: "update_tasks",
            args: {
              tasks: [
                { title: "Write the plan", status: "done" },
                { title: "Implement slugify", status: "todo" },
                { title: "Test slugify", status: "todo" },
              ],
            },
          },
        ],
      },
      {
        text: "The plan is ready. Handing off to the coding specialist.",
        toolCalls: [
          { tool: "handoff", args: { agent: "demo-specialist", reason: "Implementation and tests are coding work." } },
        ],
      },
      {
        text: "Specialist here. Reading the plan.",
        toolCalls: [{ tool: "read_file", args: { path: "PLAN.md" } }],
      },
      {
        text: "Implementing slugify and its tests.",
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
        text: "Tests pass. Updating the task list.",
        toolCalls: [
          {
            tool: "update_tasks",
            args: {
              tasks: [
                { title: "Write the plan", status: "done" },
                { title: "Implement slugify", status: "done" },
                { title: "Test slugify", status: "done" },
              ],
              notes: "slugify implemented by the specialist; 3 tests pass.",
            },
          },
        ],
      },
      { text: "Done: the plan was handed off and `src/slugify.mjs` is implemented with 3 passing tests." },
    ],
  },
};
