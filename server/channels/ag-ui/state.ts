// The AG-UI state of a run: its task list and notes (docs/ag-ui.md#state).
// A change is sent as the JSON Patch that turns what the client holds into
// the new list, task by task.
import type { JsonPatchOperation } from "@ag-ui/core";
import type { Task } from "@/server/kernel";

export interface AgUiState {
  tasks: Task[];
  notes: string;
}

const same = (a: Task, b: Task) => a.title === b.title && a.status === b.status;

/** The operations that turn `before` into `after` (RFC 6902); empty when nothing changed. */
export function taskListDelta(before: AgUiState, after: AgUiState): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  const shared = Math.min(before.tasks.length, after.tasks.length);
  for (let i = 0; i < shared; i++) {
    if (!same(before.tasks[i], after.tasks[i])) ops.push({ op: "replace", path: `/tasks/${i}`, value: after.tasks[i] });
  }
  for (let i = shared; i < after.tasks.length; i++) ops.push({ op: "add", path: "/tasks/-", value: after.tasks[i] });
  // From the end, so each index still names the task it meant.
  for (let i = before.tasks.length - 1; i >= after.tasks.length; i--) ops.push({ op: "remove", path: `/tasks/${i}` });
  if (before.notes !== after.notes) ops.push({ op: "replace", path: "/notes", value: after.notes });
  return ops;
}
