import { describe, expect, it } from "vitest";
import type { Message } from "@/server/models";
import { consecutiveRepeats, loopSuspected, stepsWithoutProgress } from "./index";

let id = 0;
/** One assistant turn calling `tool` with `args`, and its result when `answered`. */
function turn(tool: string, args: unknown, answered = true, isError = false): Message[] {
  const toolCallId = `c${++id}`;
  const call: Message = { role: "assistant", content: [{ type: "tool-call", toolCallId, toolName: tool, input: args }] };
  return answered
    ? [call, { role: "tool", content: [{ type: "tool-result", toolCallId, toolName: tool, output: "same", isError }] }]
    : [call];
}

describe("the doom-loop guard", () => {
  it("counts the same call with the same arguments in a row, argument order ignored", () => {
    const history = [
      ...turn("shell", { command: "ls", timeoutSec: 5 }),
      ...turn("shell", { timeoutSec: 5, command: "ls" }),
      ...turn("shell", { command: "ls", timeoutSec: 5 }),
    ];
    expect(
      consecutiveRepeats([...history, ...turn("shell", { command: "ls", timeoutSec: 5 }, false)], {
        toolName: "shell",
        args: { command: "ls", timeoutSec: 5 },
      }),
    ).toBe(4);
  });

  it("starts again after a different call, and different arguments are a different call", () => {
    const history = [
      ...turn("shell", { command: "ls" }),
      ...turn("shell", { command: "ls" }),
      ...turn("read_file", { path: "a" }),
      ...turn("shell", { command: "ls" }),
    ];
    expect(consecutiveRepeats(history, { toolName: "shell", args: { command: "ls" } })).toBe(2);
    expect(consecutiveRepeats(history, { toolName: "shell", args: { command: "ls -l" } })).toBe(1);
    expect(consecutiveRepeats([], { toolName: "shell", args: { command: "ls" } })).toBe(1);
  });

  it("does not count calls of the current turn that have not run yet", () => {
    const pending: Message = {
      role: "assistant",
      content: [
        { type: "tool-call", toolCallId: "p1", toolName: "shell", input: { command: "ls" } },
        { type: "tool-call", toolCallId: "p2", toolName: "shell", input: { command: "ls" } },
      ],
    };
    expect(consecutiveRepeats([...turn("shell", { command: "ls" }), pending], { toolName: "shell", args: { command: "ls" } })).toBe(2);
  });

  it("suspects a loop at the limit and at every multiple of it, never below, and not when switched off", () => {
    expect([1, 2, 3, 4, 5, 7, 8, 12].filter((n) => loopSuspected(n, 4))).toEqual([4, 8, 12]);
    expect(loopSuspected(10, 0)).toBe(false);
  });
});

describe("steps without progress", () => {
  it("counts the turns in a row whose every tool call failed; one success starts again", () => {
    const failing = (n: number) => Array.from({ length: n }, (_, i) => turn("read_file", { path: `missing-${i}` }, true, true)).flat();
    expect(stepsWithoutProgress(failing(3))).toBe(3);
    expect(stepsWithoutProgress([...failing(3), ...turn("read_file", { path: "ok" }), ...failing(2)])).toBe(2);
    expect(stepsWithoutProgress([...failing(2), ...turn("shell", { command: "x" }, false)])).toBe(2); // not answered yet: not counted
    expect(stepsWithoutProgress([...failing(2), { role: "assistant", content: [{ type: "text", text: "thinking" }] }])).toBe(2);
  });
});
