// Conversions between Rein's shapes and the AI SDK's, beyond what the
// contract tests reach through real wire formats.
import type { LanguageModelV4StreamPart, LanguageModelV4Usage } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import type { Message, StreamPart } from "../../types";
import { toCallOptions, toGenerateResult, toPrompt, toReinStream, toUsage } from "./convert";
import { StreamInterrupted } from "./errors";

function usage(input: Partial<LanguageModelV4Usage["inputTokens"]>, output: number | undefined): LanguageModelV4Usage {
  return {
    inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined, ...input },
    outputTokens: { total: output, text: undefined, reasoning: undefined },
  };
}

/** Delivers the parts one read at a time, then fails with `fail` or ends. */
function source(parts: LanguageModelV4StreamPart[], fail?: unknown): ReadableStream<LanguageModelV4StreamPart> {
  const queue = [...parts];
  return new ReadableStream({
    pull(c) {
      const next = queue.shift();
      if (next) c.enqueue(next);
      else if (fail) c.error(fail);
      else c.close();
    },
  });
}

async function collect(stream: ReadableStream<StreamPart>): Promise<StreamPart[]> {
  const out: StreamPart[] = [];
  for (const reader = stream.getReader(); ;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

const FINISH: LanguageModelV4StreamPart = {
  type: "finish",
  finishReason: { unified: "tool-calls", raw: "x" },
  usage: usage({ total: 3 }, 2),
};

describe("toUsage", () => {
  it("takes the provider's total, which includes cached tokens", () => {
    expect(toUsage(usage({ total: 1050, noCache: 100, cacheRead: 900, cacheWrite: 50 }, 20))).toEqual({
      inputTokens: 1050,
      outputTokens: 20,
      cachedInputTokens: 900,
      cacheWriteInputTokens: 50,
      totalTokens: 1070,
    });
  });

  it("adds the parts when there is no total, and reads missing counts as 0", () => {
    expect(toUsage(usage({ noCache: 100, cacheRead: 900, cacheWrite: 50 }, undefined))).toEqual({
      inputTokens: 1050,
      outputTokens: 0,
      cachedInputTokens: 900,
      cacheWriteInputTokens: 50,
      totalTokens: 1050,
    });
    expect(toUsage(usage({}, undefined)).totalTokens).toBe(0);
  });
});

describe("toPrompt", () => {
  it("drops empty text and empty assistant turns, which providers refuse", () => {
    expect(
      toPrompt([
        { role: "user", content: "hi" },
        { role: "assistant", content: [{ type: "text", text: "" }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "" },
            { type: "tool-call", toolCallId: "c1", toolName: "t", input: { a: 1 } },
          ],
        },
      ]),
    ).toEqual([
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "t", input: { a: 1 } }] },
    ]);
  });

  it("maps tool results to text, json and their error forms", () => {
    const prompt = toPrompt([
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "a", toolName: "t", output: "plain" },
          { type: "tool-result", toolCallId: "b", toolName: "t", output: "boom", isError: true },
          { type: "tool-result", toolCallId: "c", toolName: "t", output: { n: 1, skip: undefined } },
          { type: "tool-result", toolCallId: "d", toolName: "t", output: { error: "x" }, isError: true },
          { type: "tool-result", toolCallId: "e", toolName: "t", output: undefined },
        ],
      },
    ]);
    expect((prompt[0].content as Array<{ output: unknown }>).map((p) => p.output)).toEqual([
      { type: "text", value: "plain" },
      { type: "error-text", value: "boom" },
      { type: "json", value: { n: 1 } },
      { type: "error-json", value: { error: "x" } },
      { type: "json", value: null },
    ]);
  });

  it("sends Rein's { error } result unwrapped to a package that wraps failed tool results itself, and only then", () => {
    const prompt: Message[] = [
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "a", toolName: "t", output: { error: { code: "X", message: "no" } }, isError: true },
          { type: "tool-result", toolCallId: "b", toolName: "t", output: { error: "x", detail: 1 }, isError: true },
          { type: "tool-result", toolCallId: "c", toolName: "t", output: { error: "not a failure" } },
        ],
      },
    ];
    const outputs = (o?: { wrapsToolErrors?: boolean }) =>
      (toPrompt(prompt, o)[0].content as Array<{ output: unknown }>).map((p) => p.output);
    expect(outputs({ wrapsToolErrors: true })).toEqual([
      { type: "error-json", value: { code: "X", message: "no" } },
      { type: "error-json", value: { error: "x", detail: 1 } },
      { type: "json", value: { error: "not a failure" } },
    ]);
    expect(outputs()).toEqual([
      { type: "error-json", value: { error: { code: "X", message: "no" } } },
      { type: "error-json", value: { error: "x", detail: 1 } },
      { type: "json", value: { error: "not a failure" } },
    ]);
  });

  it("passes a tool choice only with tools", () => {
    expect(toCallOptions({ prompt: [], toolChoice: "required" }).toolChoice).toBeUndefined();
    const withTools = toCallOptions({
      prompt: [],
      toolChoice: "required",
      tools: [{ name: "t", description: "d", inputSchema: { type: "object" } }],
    });
    expect(withTools.toolChoice).toEqual({ type: "required" });
    expect(withTools.tools).toEqual([{ type: "function", name: "t", description: "d", inputSchema: { type: "object" } }]);
  });
});

describe("toGenerateResult", () => {
  it("keeps the finish reason, and refuses an interrupted response", () => {
    const result = { content: [{ type: "text" as const, text: "hi" }], usage: usage({ total: 1 }, 1) };
    expect(toGenerateResult({ ...result, finishReason: { unified: "length", raw: "max_tokens" } }).finishReason).toBe("length");
    expect(() => toGenerateResult({ ...result, finishReason: { unified: "interrupted", raw: undefined } })).toThrow(StreamInterrupted);
  });
});

describe("toReinStream", () => {
  const identity = (e: unknown) => e;

  it("assembles streamed tool input when the provider sends no tool-call part", async () => {
    const parts = await collect(
      toReinStream(
        source([
          { type: "stream-start", warnings: [] },
          { type: "tool-input-start", id: "c1", toolName: "read" },
          { type: "tool-input-delta", id: "c1", delta: '{"pa' },
          { type: "tool-input-delta", id: "c1", delta: 'th":"a"}' },
          { type: "tool-input-end", id: "c1" },
          FINISH,
        ]),
        identity,
      ),
    );
    expect(parts).toEqual([
      { type: "stream-start" },
      { type: "tool-call", toolCallId: "c1", toolName: "read", input: '{"path":"a"}' },
      {
        type: "finish",
        finishReason: "tool-calls",
        usage: { inputTokens: 3, outputTokens: 2, cachedInputTokens: 0, cacheWriteInputTokens: 0, totalTokens: 5 },
      },
    ]);
  });

  it("emits each call once when the provider does send the tool-call part, and skips provider-executed tools", async () => {
    const parts = await collect(
      toReinStream(
        source([
          { type: "tool-input-start", id: "c1", toolName: "read" },
          { type: "tool-input-delta", id: "c1", delta: "{}" },
          { type: "tool-input-end", id: "c1" },
          { type: "tool-call", toolCallId: "c1", toolName: "read", input: '{"path":"b"}' },
          { type: "tool-input-start", id: "w", toolName: "web_search", providerExecuted: true },
          { type: "tool-input-end", id: "w" },
          { type: "tool-call", toolCallId: "w", toolName: "web_search", input: "{}", providerExecuted: true },
          { type: "reasoning-delta", id: "r", delta: "thinking" },
          FINISH,
        ]),
        identity,
      ),
    );
    expect(parts.filter((p) => p.type === "tool-call")).toEqual([
      { type: "tool-call", toolCallId: "c1", toolName: "read", input: '{"path":"b"}' },
    ]);
  });

  it("turns a stream the provider left unfinished (interrupted) into one classified error part, without a finish", async () => {
    const parts = await collect(
      toReinStream(
        source([
          { type: "text-delta", id: "t", delta: "half a" },
          { type: "tool-input-start", id: "c1", toolName: "read" },
          { type: "tool-input-delta", id: "c1", delta: "{}" },
          { type: "tool-input-end", id: "c1" },
          { type: "finish", finishReason: { unified: "interrupted", raw: undefined }, usage: usage({}, undefined) },
        ]),
        (e) => (e instanceof StreamInterrupted ? "interrupted" : "other"),
      ),
    );
    expect(parts).toEqual([
      { type: "text-delta", delta: "half a" },
      { type: "error", error: "interrupted" },
    ]);
  });

  it("turns a read failure into one classified error part and ends", async () => {
    const parts = await collect(
      toReinStream(source([{ type: "text-delta", id: "t", delta: "hi" }], new Error("reset")), (e) => ({
        classified: (e as Error).message,
      })),
    );
    expect(parts).toEqual([
      { type: "text-delta", delta: "hi" },
      { type: "error", error: { classified: "reset" } },
    ]);
  });

  it("stops at the first error part the provider reports", async () => {
    const parts = await collect(
      toReinStream(
        source([{ type: "error", error: "overloaded" }, { type: "text-delta", id: "t", delta: "late" }, FINISH]),
        (e) => `classified ${String(e)}`,
      ),
    );
    expect(parts).toEqual([{ type: "error", error: "classified overloaded" }]);
  });
});
