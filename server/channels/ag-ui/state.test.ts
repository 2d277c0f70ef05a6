// The task list's JSON Patch (docs/ag-ui.md#state): applied to what the client
// holds, it gives the new list.
import { describe, expect, it } from "vitest";
import type { JsonPatchOperation } from "@ag-ui/core";
import type { Task } from "@/server/kernel";
import { taskListDelta, type AgUiState } from "./state";

/** The three operations taskListDelta writes, applied as RFC 6902 says. */
function apply(state: AgUiState, ops: JsonPatchOperation[]): AgUiState {
  const next: AgUiState = { tasks: [...state.tasks], notes: state.notes };
  for (const op of ops) {
    if (op.path === "/notes" && op.op === "replace") next.notes = op.value as string;
    else if (op.op === "add" && op.path === "/tasks/-") next.tasks.push(op.value as Task);
    else if (op.op === "replace") next.tasks[Number(op.path.split("/")[2])] = op.value as Task;
    else if (op.op === "remove") next.tasks.splice(Number(op.path.split("/")[2]), 1);
    else throw new Error(`unexpected ${op.op} ${op.path}`);
  }
  return next;
}

const t = (title: string, status: Task["status"] = "todo"): Task => ({ title, status });

describe("taskListDelta", () => {
  it.each<[string, AgUiState, AgUiState]>([
    ["nothing changed", { tasks: [t("a")], notes: "" }, { tasks: [t("a")], notes: "" }],
    ["a status changed", { tasks: [t("a"), t("b")], notes: "" }, { tasks: [t("a", "done"), t("b")], notes: "" }],
    ["tasks added", { tasks: [], notes: "" }, { tasks: [t("a"), t("b")], notes: "" }],
    [
      "tasks removed from the middle and the end",
      { tasks: [t("a"), t("b"), t("c"), t("d")], notes: "" },
      { tasks: [t("a"), t("c")], notes: "" },
    ],
    ["the notes changed", { tasks: [], notes: "x" }, { tasks: [], notes: "y" }],
  ])("%s", (_, before, after) => {
    const ops = taskListDelta(before, after);
    expect(apply(before, ops)).toEqual(after);
    if (JSON.stringify(before) === JSON.stringify(after)) expect(ops).toEqual([]);
  });
});
