// The built-in dataset demo-coding: goals for the scripted demo agents that
// need no person, and two scenario items played on the scripted model, so an
// experiment can run without a provider key. One item fails on purpose (it
// expects a README no demo writes), so a report shows a failure too; only
// that one, also when an experiment names one agent for every item, as the
// regression demo does (docs/evals.md#compare-and-the-gate; the experiments
// test holds it).
// Each item's expected.scorers are checked for that item besides the
// dataset's own scorers.
import type { Db } from "@/server/db";
import { BUILTIN_SPECS, specColumns } from "@/server/kernel";
import type { Scenario } from "@/server/models";
import type { ItemFields, StoredScoring } from "./dataset-input";
import { itemData, sameFields } from "./dataset-items";

export const DEMO_DATASET = "demo-coding";

export const DEMO_SCORING: StoredScoring = {
  scorers: [
    { kind: "outcome", equals: "succeeded", required: true, weight: 2 },
    { kind: "tools_used", tools: ["write_file"] },
    { kind: "calls_at_most", calls: 20 },
  ],
  threshold: 0.75,
};

const GREET = "export const greet = (name) => `Hello, ${name}!`;\n";
// The module path is spliced in so this file's own import checks do not take it for one of its imports.
const GREET_TEST = `import { test } from "node:test";
import assert from "node:assert/strict";
import { greet } from ${JSON.stringify("../src/greet.mjs")};

test("greets by name", () => assert.equal(greet("Ada"), "Hello, Ada!"));
`;

const SPECIALIST_SCENARIO: Scenario = {
  stopOnError: true,
  turns: [
    {
      text: "Writing greet and its test.",
      toolCalls: [
        { tool: "write_file", args: { path: "src/greet.mjs", content: GREET } },
        { tool: "write_file", args: { path: "test/greet.test.mjs", content: GREET_TEST } },
      ],
    },
    { text: "Running the test.", toolCalls: [{ tool: "shell", args: { command: "node --test test/greet.test.mjs" } }] },
    { text: "Done: `src/greet.mjs` is written and its test passes." },
  ],
};

const NOTE_SCENARIO: Scenario = {
  stopOnError: true,
  turns: [
    {
      text: "Writing the note.",
      toolCalls: [{ tool: "write_file", args: { path: "notes/hello.txt", content: "hello from the scripted model\n" } }],
    },
    { text: "Checking it.", toolCalls: [{ tool: "shell", args: { command: "cat notes/hello.txt && wc -l notes/hello.txt" } }] },
    { text: "Done: notes/hello.txt holds one line." },
  ],
};

export const DEMO_ITEMS: Array<{ key: string } & ItemFields> = [
  {
    key: "fizzbuzz",
    goal: "Write a fizzbuzz function in src/fizzbuzz.mjs with tests, run them and commit the work",
    agent: "demo-coder",
    scenario: null,
    expected: {
      outcome: "succeeded",
      scorers: [
        { kind: "file_exists", path: "src/fizzbuzz.mjs" },
        { kind: "command", command: "node --test test/fizzbuzz.test.mjs", timeoutSec: 60 },
      ],
    },
  },
  {
    key: "fizzbuzz-export",
    goal: "Write fizzbuzz as an ES module with tests, keeping a task list",
    agent: "demo-coder",
    scenario: null,
    expected: {
      outcome: "succeeded",
      scorers: [
        { kind: "file_contains", path: "src/fizzbuzz.mjs", text: "export function fizzbuzz" },
        { kind: "tools_used", tools: ["update_tasks", "shell"] },
      ],
    },
  },
  {
    key: "slugify-team",
    goal: "Plan a slugify helper, hand the coding to the specialist, and test it",
    agent: "demo-team",
    scenario: null,
    expected: {
      outcome: "succeeded",
      scorers: [
        { kind: "file_exists", path: "PLAN.md" },
        { kind: "file_exists", path: "src/slugify.mjs" },
        { kind: "tools_used", tools: ["handoff"] },
        { kind: "command", command: "node --test test/slugify.test.mjs", timeoutSec: 60 },
      ],
    },
  },
  {
    key: "greet-specialist",
    goal: "Write a greet function in src/greet.mjs with a test, and run it",
    agent: "demo-specialist",
    scenario: SPECIALIST_SCENARIO,
    expected: {
      outcome: "succeeded",
      scorers: [
        { kind: "file_exists", path: "src/greet.mjs" },
        { kind: "command", command: "node --test test/greet.test.mjs", timeoutSec: 60 },
      ],
    },
  },
  {
    key: "note-scenario",
    goal: "Write a one-line note to notes/hello.txt and check it with a command",
    agent: "demo-coder",
    scenario: NOTE_SCENARIO,
    expected: {
      outcome: "succeeded",
      scorers: [
        { kind: "file_contains", path: "notes/hello.txt", text: "hello" },
        { kind: "tool_sequence", mode: "strict", steps: ["write_file", "shell"] },
      ],
    },
  },
  {
    key: "fizzbuzz-readme",
    goal: "Write fizzbuzz with tests and document how to use it in README.md",
    agent: "demo-coder",
    scenario: null,
    expected: {
      outcome: "succeeded",
      notes: "Fails on purpose: demo-coder never writes a README, so a report shows a failing item.",
      scorers: [{ kind: "file_exists", path: "README.md", required: true }],
    },
  },
];

/**
 * Stores demo-coding (built in, everyone's) and its items; an item whose
 * fields changed in a new build gets a new version. Safe to run at every start.
 */
export async function seedBuiltinDatasets(db: Db): Promise<void> {
  await seedRegressionDemo(db);
  const description =
    "Goals for the scripted demo agents and two scenarios on the scripted model; runs without a provider key. One item fails on purpose.";
  const scoring = JSON.stringify(DEMO_SCORING);
  const dataset = await db.dataset.upsert({
    where: { name: DEMO_DATASET },
    create: { name: DEMO_DATASET, description, teamId: null, scoring, builtIn: true },
    update: { description, scoring, builtIn: true },
    select: { id: true },
  });
  const rows = await db.datasetItem.findMany({ where: { datasetId: dataset.id }, orderBy: { version: "desc" } });
  for (const { key, ...fields } of DEMO_ITEMS) {
    const latest = rows.find((r) => r.key === key);
    if (latest && latest.deletedAt === null) {
      const stored: ItemFields = {
        goal: latest.goal,
        agent: latest.agent,
        scenario: latest.scenario ? JSON.parse(latest.scenario) : null,
        expected: JSON.parse(latest.expected),
      };
      if (sameFields(stored, fields)) continue;
    }
    await db.datasetItem.create({ data: itemData(dataset.id, key, (latest?.version ?? 0) + 1, fields, null) });
  }
}

/** The regression demo: an agent whose version 2 breaks items that version 1 passes, to compare on a fresh install. */
export const REGRESSION_DEMO_AGENT = "demo-coder-lean";

const LEAN_V1 = {
  ...BUILTIN_SPECS.find((s) => s.name === "demo-coder")!,
  description: "demo-coder for the Evals regression demo: compare version 1 with version 2 (scripted demo).",
};
const LEAN_VERSIONS = [
  { spec: LEAN_V1, changeNote: "Comes with Rein: the same work as demo-coder" },
  // A change made to save cost that breaks items: demo-coder needs more model calls than 3 for fizzbuzz and slugify.
  {
    spec: { ...LEAN_V1, guardrails: { callCap: 3 } },
    changeNote: "Lower the call cap to 3 to save cost (the Evals regression demo: items that need more calls now fail)",
  },
];

/**
 * Stores demo-coder-lean, built in and everyone's, with its two versions,
 * unless it is there already. Run demo-coding with version 1 and with
 * version 2 and Compare them: version 2's runs stop at the call cap.
 */
export async function seedRegressionDemo(db: Db): Promise<void> {
  await db.agent.upsert({
    where: { name: REGRESSION_DEMO_AGENT },
    create: { name: REGRESSION_DEMO_AGENT, builtIn: true, teamId: null },
    update: { builtIn: true },
  });
  const have = await db.agentSpec.count({ where: { name: REGRESSION_DEMO_AGENT, draft: false } });
  for (const [i, v] of LEAN_VERSIONS.entries()) {
    if (i < have) continue;
    await db.agentSpec.create({
      data: { ...specColumns(v.spec), name: REGRESSION_DEMO_AGENT, version: i + 1, builtIn: true, changeNote: v.changeNote },
    });
  }
}
