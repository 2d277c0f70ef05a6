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

describe("read from the newest message back", () => {
  // The guard as it was first written, over the whole history, forwards: the reference the backward reading must match.
  function repeatsForward(messages: Message[], call: { toolName: string; args: unknown }): number {
    const keyOf = (name: string, args: unknown) => `${name}\u0000${JSON.stringify(sortKeys(args))}`;
    const answered = new Set<string>();
    for (const m of messages) if (m.role === "tool") for (const r of m.content) answered.add(r.toolCallId);
    const done: string[] = [];
    for (const m of messages)
      if (m.role === "assistant")
        for (const p of m.content) if (p.type === "tool-call" && answered.has(p.toolCallId)) done.push(keyOf(p.toolName, p.input));
    let n = 1;
    for (let i = done.length - 1; i >= 0 && done[i] === keyOf(call.toolName, call.args); i--) n++;
    return n;
  }
  function withoutProgressForward(messages: Message[]): number {
    const failed = new Map<string, boolean>();
    for (const m of messages) if (m.role === "tool") for (const r of m.content) failed.set(r.toolCallId, !!r.isError);
    let n = 0;
    for (const m of messages) {
      if (m.role !== "assistant") continue;
      const ids = m.content.flatMap((p) => (p.type === "tool-call" ? [p.toolCallId] : []));
      if (ids.length === 0 || ids.some((i) => !failed.has(i))) continue;
      n = ids.every((i) => failed.get(i)) ? n + 1 : 0;
    }
    return n;
  }
  const sortKeys = (v: unknown): unknown =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
        )
      : v;

  it("gives the same counts as reading the whole history forwards, over random histories", () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let trial = 0; trial < 300; trial++) {
      const messages: Message[] = [];
      for (let t = rand(12); t > 0; t--) {
        // A turn of one to three calls, some of the same shape, results in any order, some missing or failed.
        const calls = Array.from({ length: 1 + rand(3) }, () => ({
          toolCallId: `r${++id}`,
          toolName: rand(4) ? "shell" : "read_file",
          input: rand(2) ? { command: "ls", timeoutSec: 5 } : { timeoutSec: 5, command: rand(3) ? "ls" : "ls -l" },
        }));
        messages.push({ role: "assistant", content: calls.map((c) => ({ type: "tool-call" as const, ...c })) });
        if (rand(5) === 0) messages.push({ role: "user", content: "a person's note" });
        const answered = calls.filter(() => rand(6) !== 0).reverse();
        if (answered.length)
          messages.push({
            role: "tool",
            content: answered.map((c) => ({
              type: "tool-result" as const,
              toolCallId: c.toolCallId,
              toolName: c.toolName,
              output: "x",
              isError: rand(3) === 0,
            })),
          });
      }
      for (const call of [
        { toolName: "shell", args: { command: "ls", timeoutSec: 5 } },
        { toolName: "shell", args: { command: "ls -l", timeoutSec: 5 } },
        { toolName: "read_file", args: { timeoutSec: 5, command: "ls" } },
      ])
        expect(consecutiveRepeats(messages, call)).toBe(repeatsForward(messages, call));
      expect(stepsWithoutProgress(messages)).toBe(withoutProgressForward(messages));
    }
  });
});
