// Built-in deterministic scenarios for the demo agents. They run through the
// real ToolRunner: files are written and tests really run in the workspace.
import type { Scenario } from "../../types";
import { DEMO_CSV, IMPROVER } from "./demo-csv";
import { DEMO_FIX } from "./demo-fix";
import { DEMO_MCP } from "./demo-mcp";
import { DEMO_LONG } from "./demo-long";

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


const DEPLOY_SH = `#!/bin/sh
# Deploys the site to the environment given as the first argument (demo: writes a log line).
set -eu
target="\${1:?usage: ./deploy.sh <environment>}"
mkdir -p out
echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) deployed version $(cat VERSION) to $target" >> out/deploy.log
echo "Deployed version $(cat VERSION) to $target"
`;

const PUBLISH_SH = `#!/bin/sh
# Publishes the release notes (demo: copies them to out/).
set -eu
mkdir -p out
cp RELEASE_NOTES.md out/published.md
echo "Published RELEASE_NOTES.md"
`;

const DRAFTS = [
  { id: "short", label: "Short", detail: "Version 1.4: faster search and a new dark theme." },
  { id: "detailed", label: "Detailed", detail: "Version 1.4 makes search three times faster, adds a dark theme, and fixes 12 bugs reported by you." },
  { id: "playful", label: "Playful", detail: "1.4 is here: search that finds things before you finish typing, and a dark theme for night owls." },
];

const ORDER_NOTE = `# Sticker order

- Shop: Rein's demo site, /demo-site/form
- Name: Ada Lovelace
- Order: Two Rein stickers, please
`;

export const BUILTIN_SCENARIOS: Record<string, Scenario> = {
  "demo-coder": {
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
  },
  "demo-team": {
    stopOnError: true,
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
  "demo-deploy": {
    // A refused or rejected deploy ends the run instead of claiming success.
    stopOnError: true,
    turns: [
      {
        text: "I'll add a deploy script and a version file, then check them before deploying.",
        toolCalls: [
          { tool: "write_file", args: { path: "VERSION", content: "1.4.0\n" } },
          { tool: "write_file", args: { path: "deploy.sh", content: DEPLOY_SH } },
        ],
      },
      {
        text: "Checking the script's syntax.",
        toolCalls: [{ tool: "shell", args: { command: "chmod +x deploy.sh && sh -n deploy.sh && echo syntax ok" } }],
      },
      {
        text: "Everything is ready. Deploying to production; policy asks a person to approve this.",
        toolCalls: [{ tool: "shell", args: { command: "./deploy.sh production" } }],
      },
      { text: "Deployed version 1.4.0 to production; `out/deploy.log` records it." },
    ],
  },
  "demo-release": {
    stopOnError: true,
    turns: [
      {
        text: "I drafted three versions of the release notes. Asking which one to use.",
        toolCalls: [{ tool: "ask_human", args: { kind: "choose", question: "Which release-notes draft should we publish?", options: DRAFTS } }],
      },
      {
        text: "Asking for the launch discount cap.",
        toolCalls: [
          {
            tool: "ask_human",
            args: {
              kind: "provide",
              question: "What is the discount cap for the launch offer?",
              detail: "A percentage between 0 and 50.",
              schema: {
                type: "object",
                properties: { capPercent: { type: "number", minimum: 0, maximum: 50, description: "Discount cap in percent" }, note: { type: "string" } },
                required: ["capPercent"],
                additionalProperties: false,
              },
            },
          },
        ],
      },
      {
        text: "Writing the release notes and the publish script.",
        toolCalls: [
          { tool: "write_file", args: { path: "RELEASE_NOTES.md", content: "# Release 1.4\n\nSee the chosen draft and the discount cap in the run's timeline.\n" } },
          { tool: "write_file", args: { path: "publish.sh", content: PUBLISH_SH } },
        ],
      },
      {
        text: "Publishing. Policy gives people a window to veto this; it goes ahead if nobody does.",
        toolCalls: [{ tool: "shell", args: { command: "chmod +x publish.sh && ./publish.sh" } }],
      },
      { text: "Published the release notes (`out/published.md`)." },
    ],
  },
  "demo-browser": {
    // A refused upgrade or a failed browser step ends the run with its reason instead of claiming success.
    stopOnError: true,
    turns: [
      {
        text: "I'll note the order in the workspace first.",
        toolCalls: [{ tool: "write_file", args: { path: "ORDER.md", content: ORDER_NOTE } }],
      },
      {
        text: "The shop is a web page, so I need a browser: asking to move to the desktop tier (T2).",
        toolCalls: [{ tool: "upgrade_tier", args: { tier: "T2", reason: "The sticker shop is a web form; filling it in needs a browser on a desktop." } }],
      },
      {
        text: "On the desktop now. Opening the shop's order form.",
        toolCalls: [{ tool: "browser_navigate", args: { url: "/demo-site/form" } }],
      },
      {
        text: "Filling in the form from ORDER.md and sending it.",
        toolCalls: [
          { tool: "browser_type", args: { selector: "#name", text: "Ada Lovelace" } },
          { tool: "browser_type", args: { selector: "#message", text: "Two Rein stickers, please" } },
          { tool: "browser_click", args: { selector: "#submit" } },
        ],
      },
      {
        text: "Reading the shop's answer.",
        toolCalls: [{ tool: "browser_read", args: { mode: "text" } }],
      },
      {
        text:
          "The order went through. I'll keep the page open for a minute: to confirm it yourself, take over in the Desktop tab, " +
          "press “Confirm as a person” on the page, then hand back.",
        toolCalls: [{ tool: "browser_wait", args: { ms: 60_000 } }],
      },
      {
        text: "Reading the page again to see whether a person confirmed the order.",
        toolCalls: [{ tool: "browser_read", args: { mode: "text" } }],
      },
      { text: "Done: the sticker order was sent through the shop's form on the desktop; the last read of the page says whether a person confirmed it." },
    ],
  },
  "demo-csv": DEMO_CSV,
  "demo-fix": DEMO_FIX,
  "demo-mcp": DEMO_MCP,
  "demo-long": DEMO_LONG,
  improver: IMPROVER,
};
