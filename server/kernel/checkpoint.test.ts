// The Checkpointer format (docs/runs.md#the-event-log-and-checkpoints):
// versioned, a bump ships a migration, and anything it cannot read is refused
// with a clear message.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  CHECKPOINT_MIGRATIONS,
  CHECKPOINT_VERSION,
  CheckpointFormatError,
  initialState,
  parseCheckpoint,
  serializeCheckpoint,
  type CheckpointState,
} from "./checkpoint";

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), "__fixtures__", "checkpoint-v1.json");

// The fixture is the checkpoint of a real demo-team run (scripted scenario),
// taken after the handoff, with one tool result recorded and one pending.
// This object is written out by hand: if the format changes by accident,
// parsing the checked-in file stops giving it.
const FIXTURE_STATE: CheckpointState = {
  version: 1,
  agent: "demo-specialist",
  messages: [
    { role: "user", content: "Write a slugify helper" },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Planning first." },
        {
          type: "tool-call",
          toolCallId: "call_0_0",
          toolName: "update_tasks",
          input: {
            tasks: [
              { title: "Plan", status: "done" },
              { title: "Implement", status: "todo" },
            ],
            notes: "Plan written.",
          },
        },
        { type: "tool-call", toolCallId: "call_0_1", toolName: "write_file", input: { path: "PLAN.md", content: "# Plan\n1. slugify\n" } },
      ],
    },
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "call_0_0",
          toolName: "update_tasks",
          output: {
            tasks: [
              { title: "Plan", status: "done" },
              { title: "Implement", status: "todo" },
            ],
            notes: "Plan written.",
          },
          isError: false,
        },
      ],
    },
    {
      role: "tool",
      content: [
        { type: "tool-result", toolCallId: "call_0_1", toolName: "write_file", output: { path: "PLAN.md", bytes: 18 }, isError: false },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Handing off." },
        { type: "tool-call", toolCallId: "call_1_0", toolName: "handoff", input: { agent: "demo-specialist", reason: "coding work" } },
      ],
    },
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "call_1_0",
          toolName: "handoff",
          output: { handoffTo: "demo-specialist", from: "demo-team", reason: "coding work" },
          isError: false,
        },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Specialist: reading notes." },
        { type: "tool-call", toolCallId: "call_2_0", toolName: "read_file", input: { path: "NOTES.md" } },
        { type: "tool-call", toolCallId: "call_2_1", toolName: "list_files", input: { pattern: "*.md" } },
      ],
    },
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "call_2_0",
          toolName: "read_file",
          output: { error: { code: "NOT_FOUND", message: "No such file: NOTES.md" } },
          isError: true,
        },
      ],
    },
  ],
  pending: [{ toolCallId: "call_2_1", toolName: "list_files", args: { pattern: "*.md" } }],
  step: 3,
  usage: { inputTokens: 1972, outputTokens: 92, cachedInputTokens: 0 },
  handoffs: [{ from: "demo-team", to: "demo-specialist", step: 2 }],
  tasks: [
    { title: "Plan", status: "done" },
    { title: "Implement", status: "todo" },
  ],
  notes: ["Plan written."],
};

function formatError(json: string): CheckpointFormatError {
  try {
    parseCheckpoint(json);
  } catch (err) {
    expect(err).toBeInstanceOf(CheckpointFormatError);
    return err as CheckpointFormatError;
  }
  throw new Error(`expected a CheckpointFormatError for ${json.slice(0, 80)}`);
}

/** The fixture state with one field replaced (or removed when value is undefined). */
function withField(field: string, value: unknown): string {
  const state: Record<string, unknown> = structuredClone(FIXTURE_STATE) as unknown as Record<string, unknown>;
  if (value === undefined) delete state[field];
  else state[field] = value;
  return JSON.stringify(state);
}

describe("checkpoint format", () => {
  it("is at version 1", () => {
    expect(CHECKPOINT_VERSION).toBe(1);
  });

  it("round-trips the initial state", () => {
    const state = initialState("demo-coder", 'Write fizzbuzz ✓ with "quotes"\nand lines');
    expect(state).toEqual({
      version: 1,
      agent: "demo-coder",
      messages: [{ role: "user", content: 'Write fizzbuzz ✓ with "quotes"\nand lines' }],
      pending: [],
      step: 0,
      usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
      handoffs: [],
      tasks: [],
      notes: [],
    });
    expect(parseCheckpoint(serializeCheckpoint(state))).toEqual(state);
  });

  it("round-trips a finished state", () => {
    const state: CheckpointState = { ...FIXTURE_STATE, pending: [], done: { outcome: "failed", reason: "stopOnError" } };
    expect(parseCheckpoint(serializeCheckpoint(state))).toEqual(state);
  });

  it("parses the checked-in v1 fixture to the expected state", () => {
    const text = fs.readFileSync(FIXTURE, "utf8");
    const parsed = parseCheckpoint(text);
    expect(parsed).toEqual(FIXTURE_STATE);
    // And writing it again gives the same document.
    expect(JSON.parse(serializeCheckpoint(parsed))).toEqual(JSON.parse(text));
  });

  it("refuses a newer version, naming both versions", () => {
    const err = formatError(withField("version", 2));
    expect(err.message).toBe("Checkpoint version 2 is newer than this Rein understands (1)");
    expect(err.name).toBe("CheckpointFormatError");
    expect(formatError(withField("version", 17)).message).toContain("17");
  });

  it.each([
    ["no version field", withField("version", undefined)],
    ["a version that is a string", withField("version", "1")],
    ["a version that is null", withField("version", null)],
    ["JSON null", "null"],
    ["a JSON array", "[]"],
    ["a JSON number", "1"],
  ])("refuses %s: no version", (_what, json) => {
    expect(formatError(json).message).toBe("Checkpoint has no version");
  });

  it.each([["not json at all"], [""], ['{"version": 1,'], ["{version: 1}"]])("refuses bad JSON %j", (json) => {
    expect(formatError(json).message).toBe("Checkpoint is not valid JSON");
  });

  it("refuses an older version that has no migration", () => {
    expect(formatError(withField("version", 0)).message).toBe("No migration from checkpoint version 0");
  });

  it.each([
    ["step", -1, "step"],
    ["step", 1.5, "step"],
    ["step", "3", "step"],
    ["agent", "", "agent"],
    ["messages", [{ role: "robot", content: "hi" }], "messages.0"],
    ["messages", [{ role: "assistant", content: "text where parts belong" }], "messages.0"],
    ["messages", "hello", "messages"],
    ["pending", undefined, "pending"],
    ["pending", [{ toolCallId: "c", args: {} }], "pending.0.toolName"],
    ["usage", { inputTokens: 1, outputTokens: 2 }, "usage.cachedInputTokens"],
    ["tasks", [{ title: "t", status: "blocked" }], "tasks.0.status"],
    ["handoffs", [{ from: "a", to: "b" }], "handoffs.0.step"],
    ["notes", [1, 2], "notes.0"],
    ["done", { outcome: "maybe" }, "done.outcome"],
  ])("refuses a malformed %s (%j), naming the field", (field, value, where) => {
    const err = formatError(withField(field, value));
    expect(err.message).toMatch(/^Checkpoint is malformed: /);
    expect(err.message).toContain(`${where}:`);
  });

  it("applies a registered migration from an older version", () => {
    expect(CHECKPOINT_MIGRATIONS[0]).toBeUndefined();
    // A made-up version 0 that kept the conversation under another name.
    const v0 = { ...structuredClone(FIXTURE_STATE), version: 0, conversation: FIXTURE_STATE.messages } as Record<string, unknown>;
    delete v0.messages;
    let calls = 0;
    CHECKPOINT_MIGRATIONS[0] = (old: Record<string, unknown>) => {
      calls++;
      const { conversation, ...rest } = old;
      return { ...rest, version: 1, messages: conversation };
    };
    try {
      expect(parseCheckpoint(JSON.stringify(v0))).toEqual(FIXTURE_STATE);
      expect(calls).toBe(1);
      // Current versions are not migrated.
      parseCheckpoint(serializeCheckpoint(FIXTURE_STATE));
      expect(calls).toBe(1);
    } finally {
      delete CHECKPOINT_MIGRATIONS[0];
    }
    expect(formatError(JSON.stringify(v0)).message).toBe("No migration from checkpoint version 0");
  });

  it("refuses what a migration turns into something malformed", () => {
    CHECKPOINT_MIGRATIONS[0] = (old: Record<string, unknown>) => ({ ...old, version: 1, step: "many" });
    try {
      const err = formatError(withField("version", 0));
      expect(err.message).toMatch(/^Checkpoint is malformed: .*step:/);
    } finally {
      delete CHECKPOINT_MIGRATIONS[0];
    }
  });
});
