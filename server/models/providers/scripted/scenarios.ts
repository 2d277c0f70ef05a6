// Built-in deterministic scenarios for the demo agents. They run through the
// real ToolRunner: files are written and tests really run in the workspace.
// demo-coder, demo-deploy and demo-browser take what they can from the run's goal
// (GOAL_SCENARIOS: the scenario to play for a goal).
import type { Scenario } from "../../types";
import { DEMO_BROWSER, demoBrowser } from "./demo-browser";
import { DEMO_CODER, PLAN, SLUGIFY, SLUGIFY_TEST, demoCoder } from "./demo-coder";
import { DEMO_CSV, IMPROVER } from "./demo-csv";
import { DEMO_DEPLOY, demoDeploy } from "./demo-deploy";
import { DEMO_FIX } from "./demo-fix";
import { DEMO_MCP } from "./demo-mcp";
import { DEMO_HOSTED } from "./demo-hosted";
import { DEMO_LONG } from "./demo-long";

const PUBLISH_SH = `#!/bin/sh
# Publishes the release notes (demo: copies them to out/).
set -eu
mkdir -p out
cp RELEASE_NOTES.md out/published.md
echo "Published RELEASE_NOTES.md"
`;

const DRAFTS = [
  { id: "short", label: "Short", detail: "Version 1.4: faster search and a new dark theme." },
  {
    id: "detailed",
    label: "Detailed",
    detail: "Version 1.4 makes search three times faster, adds a dark theme, and fixes 12 bugs reported by you.",
  },
  {
    id: "playful",
    label: "Playful",
    detail: "1.4 is here: search that finds things before you finish typing, and a dark theme for night owls.",
  },
];

export const BUILTIN_SCENARIOS: Record<string, Scenario> = {
  "demo-coder": DEMO_CODER,
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
        toolCalls: [{ tool: "handoff", args: { agent: "demo-specialist", reason: "Implementation and tests are coding work." } }],
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
  "demo-deploy": DEMO_DEPLOY,
  "demo-release": {
    stopOnError: true,
    turns: [
      {
        text: "I drafted three versions of the release notes. Asking which one to use.",
        toolCalls: [
          { tool: "ask_human", args: { kind: "choose", question: "Which release-notes draft should we publish?", options: DRAFTS } },
        ],
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
                properties: {
                  capPercent: { type: "number", minimum: 0, maximum: 50, description: "Discount cap in percent" },
                  note: { type: "string" },
                },
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
          {
            tool: "write_file",
            args: {
              path: "RELEASE_NOTES.md",
              content: "# Release 1.4\n\nSee the chosen draft and the discount cap in the run's timeline.\n",
            },
          },
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
  "demo-browser": DEMO_BROWSER,
  "demo-csv": DEMO_CSV,
  "demo-fix": DEMO_FIX,
  "demo-mcp": DEMO_MCP,
  "demo-hosted": DEMO_HOSTED,
  "demo-long": DEMO_LONG,
  improver: IMPROVER,
};

/** The built-in demos whose turns follow the run's goal; the others play BUILTIN_SCENARIOS as written. */
export const GOAL_SCENARIOS: Record<string, (goal: string) => Scenario> = {
  "demo-coder": demoCoder,
  "demo-deploy": demoDeploy,
  "demo-browser": demoBrowser,
};
