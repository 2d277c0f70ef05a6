// The `demo-long` scenario: a unit-conversion library built module by module,
// with a context window small enough that the run needs several fresh sessions
// (docs/steering.md#long-runs-and-fresh-sessions). Each module is written with
// its test, the test runs, and a commit records it; the task list and the notes
// carry the work across sessions. Every step that fails stops the demo
// (stopOnError), and no turn quotes a value it did not get.
import type { Scenario, ScenarioTurn } from "../../types";

export const DEMO_LONG_GOAL = "Build a small unit-conversion library, one module at a time, each with a passing test and its own commit";

/** Small on purpose: the conversation outgrows it every few modules, so the run starts fresh sessions. */
export const DEMO_LONG_CONTEXT_WINDOW = 3_500;

const MODULES: Array<{ name: string; title: string; factor: string; unit: string; base: string; sample: [number, number] }> = [
  { name: "length", title: "Length", factor: "0.3048", unit: "feet", base: "metres", sample: [10, 3.048] },
  { name: "mass", title: "Mass", factor: "0.45359237", unit: "pounds", base: "kilograms", sample: [2, 0.90718474] },
  { name: "volume", title: "Volume", factor: "3.785411784", unit: "US gallons", base: "litres", sample: [3, 11.356235352] },
  { name: "speed", title: "Speed", factor: "0.44704", unit: "miles per hour", base: "metres per second", sample: [50, 22.352] },
  { name: "area", title: "Area", factor: "0.09290304", unit: "square feet", base: "square metres", sample: [100, 9.290304] },
  { name: "pressure", title: "Pressure", factor: "6894.757293168", unit: "psi", base: "pascals", sample: [1, 6894.757293168] },
];

const source = (m: (typeof MODULES)[number]) => `/** ${m.title}: ${m.unit} to ${m.base} and back. */
export const FACTOR = ${m.factor};

/** ${m.unit} → ${m.base}. */
export function toBase(value) {
  if (!Number.isFinite(value)) throw new TypeError("value must be a finite number");
  return value * FACTOR;
}

/** ${m.base} → ${m.unit}. */
export function fromBase(value) {
  if (!Number.isFinite(value)) throw new TypeError("value must be a finite number");
  return value / FACTOR;
}
`;

const test = (m: (typeof MODULES)[number]) => `import { test } from "node:test";
import assert from "node:assert/strict";
import { toBase, fromBase } from "../src/${m.name}.mjs";

test("${m.sample[0]} ${m.unit} in ${m.base}", () => assert.ok(Math.abs(toBase(${m.sample[0]}) - ${m.sample[1]}) < 1e-9));
test("round trip", () => assert.ok(Math.abs(fromBase(toBase(7.5)) - 7.5) < 1e-9));
test("rejects what is not a number", () => assert.throws(() => toBase(Number.NaN), TypeError));
`;

const tasks = (done: number) =>
  MODULES.map((m, i) => ({ title: `${m.title}: module, test, commit`, status: i < done ? "done" : i === done ? "doing" : "todo" }));

function moduleTurns(m: (typeof MODULES)[number], i: number): ScenarioTurn[] {
  return [
    {
      text: `Writing the ${m.name} module (${m.unit} to ${m.base}) and its test.`,
      toolCalls: [
        { tool: "write_file", args: { path: `src/${m.name}.mjs`, content: source(m) } },
        { tool: "write_file", args: { path: `test/${m.name}.test.mjs`, content: test(m) } },
      ],
    },
    {
      text: `Running the ${m.name} test, and committing if it passes.`,
      toolCalls: [
        {
          tool: "shell",
          args: {
            command: `node --test test/${m.name}.test.mjs && git add src/${m.name}.mjs test/${m.name}.test.mjs && git commit -qm "Add the ${m.name} module" && git log --oneline -1`,
          },
        },
      ],
    },
    {
      text: `The ${m.name} test passed and is committed; updating the task list.`,
      toolCalls: [
        {
          tool: "update_tasks",
          args: {
            tasks: tasks(i + 1),
            notes: `${m.title} done: src/${m.name}.mjs converts ${m.unit} to ${m.base}; its test passes; committed.`,
          },
        },
      ],
    },
  ];
}

export const DEMO_LONG: Scenario = {
  stopOnError: true,
  contextWindow: DEMO_LONG_CONTEXT_WINDOW,
  turns: [
    {
      text: `A long task: ${MODULES.length} modules. I'll keep the task list and notes current, since a fresh session starts from them.`,
      toolCalls: [
        {
          tool: "update_tasks",
          args: { tasks: tasks(0), notes: "Plan: one module per task, each with a node:test file and its own commit." },
        },
      ],
    },
    ...MODULES.flatMap(moduleTurns),
    {
      text: "Checking that every module's test still passes together.",
      toolCalls: [{ tool: "shell", args: { command: "node --test test/*.test.mjs && git log --oneline | wc -l" } }],
    },
    { text: `All ${MODULES.length} modules are written, tested and committed; the task list is done.` },
  ],
};
