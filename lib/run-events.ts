// The run event log as the browser sees it. Payload types come from the kernel
// (types only); over socket.io createdAt arrives as an ISO string.
import type { RunEventPayloads, RunEventRecord, RunEventType, TransientRunMessage, Task } from "@/server/kernel";

export type { RunEventPayloads, RunEventType, Task };

export type TimelineEvent = Omit<RunEventRecord, "createdAt"> & { createdAt: string | Date };
export type ModelDelta = Extract<TransientRunMessage, { type: "model.delta" }>;
/** A long tool call's progress (an MCP server's notifications), live only. */
export type ToolProgress = Extract<TransientRunMessage, { type: "tool.progress" }>;

export type EventOf<T extends RunEventType> = TimelineEvent & { type: T; payload: RunEventPayloads[T] };

export function isEvent<T extends RunEventType>(e: TimelineEvent, type: T): e is EventOf<T> {
  return e.type === type;
}

/** The newest event of a type, or null. */
export function latest<T extends RunEventType>(events: TimelineEvent[], type: T): EventOf<T> | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (isEvent(e, type)) return e;
  }
  return null;
}

/** True when a pause was requested and the run has not changed state since. */
export function pausePending(events: TimelineEvent[]): boolean {
  const control = latest(events, "run.control");
  if (!control || control.payload.action !== "pause") return false;
  const state = latest(events, "run.state");
  return !state || state.seq < control.seq;
}

/** The shell tool's result shape (server/tools/builtin/shell.ts). */
export function shellOutput(output: unknown): { exitCode: number; signal?: string; output: string } | null {
  if (!output || typeof output !== "object") return null;
  const o = output as Record<string, unknown>;
  return typeof o.exitCode === "number" && typeof o.output === "string"
    ? { exitCode: o.exitCode, signal: typeof o.signal === "string" ? o.signal : undefined, output: o.output }
    : null;
}
