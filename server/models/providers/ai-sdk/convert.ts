// Rein's prompt, tools and results <-> the AI SDK's LanguageModelV3 shapes.
import type {
  JSONSchema7,
  JSONValue,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3TextPart,
  LanguageModelV3ToolCallPart,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import type { CallOptions, FinishReason, GenerateResult, Message, StreamPart, TextPart, ToolCallPart, ToolResultPart, ToolSpec, Usage } from "../../types";

function jsonValue(value: unknown): JSONValue {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value)) as JSONValue;
}

function toolOutput(part: ToolResultPart): LanguageModelV3ToolResultOutput {
  if (typeof part.output === "string") return part.isError ? { type: "error-text", value: part.output } : { type: "text", value: part.output };
  return part.isError ? { type: "error-json", value: jsonValue(part.output) } : { type: "json", value: jsonValue(part.output) };
}

function toMessage(message: Message): LanguageModelV3Message | null {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user":
      return { role: "user", content: [{ type: "text", text: message.content }] };
    case "assistant": {
      // Providers refuse empty text blocks and empty assistant turns.
      const content: Array<LanguageModelV3TextPart | LanguageModelV3ToolCallPart> = [];
      for (const p of message.content) {
        if (p.type === "text") {
          if (p.text) content.push({ type: "text", text: p.text });
        } else {
          content.push({ type: "tool-call", toolCallId: p.toolCallId, toolName: p.toolName, input: p.input });
        }
      }
      return content.length ? { role: "assistant", content } : null;
    }
    case "tool":
      return {
        role: "tool",
        content: message.content.map((p) => ({ type: "tool-result" as const, toolCallId: p.toolCallId, toolName: p.toolName, output: toolOutput(p) })),
      };
  }
}

export function toPrompt(prompt: Message[]): LanguageModelV3Prompt {
  return prompt.map(toMessage).filter((m): m is LanguageModelV3Message => m !== null);
}

export function toTools(tools: ToolSpec[]): LanguageModelV3FunctionTool[] {
  return tools.map((t) => ({ type: "function", name: t.name, description: t.description, inputSchema: t.inputSchema as JSONSchema7 }));
}

export function toCallOptions(options: CallOptions): LanguageModelV3CallOptions {
  const tools = options.tools?.length ? toTools(options.tools) : undefined;
  return {
    prompt: toPrompt(options.prompt),
    tools,
    toolChoice: tools && options.toolChoice ? { type: options.toolChoice } : undefined,
    maxOutputTokens: options.maxOutputTokens,
    temperature: options.temperature,
    abortSignal: options.abortSignal,
  };
}

/**
 * GenAI semantic conventions: input tokens include cached ones. The SDK's V3
 * usage already counts Anthropic's cache reads and writes into
 * `inputTokens.total`; OpenAI's prompt_tokens include cached_tokens as sent.
 */
export function toUsage(usage: LanguageModelV3Usage): Usage {
  const cachedInputTokens = usage.inputTokens.cacheRead ?? 0;
  const cacheWriteInputTokens = usage.inputTokens.cacheWrite ?? 0;
  const inputTokens = usage.inputTokens.total ?? (usage.inputTokens.noCache ?? 0) + cachedInputTokens + cacheWriteInputTokens;
  const outputTokens = usage.outputTokens.total ?? 0;
  return { inputTokens, outputTokens, cachedInputTokens, cacheWriteInputTokens, totalTokens: inputTokens + outputTokens };
}

function parseInput(input: string): unknown {
  try {
    return input.trim() === "" ? {} : JSON.parse(input);
  } catch {
    return input;
  }
}

export function toGenerateResult(result: { content: LanguageModelV3Content[]; finishReason: { unified: FinishReason }; usage: LanguageModelV3Usage }): GenerateResult {
  const content: Array<TextPart | ToolCallPart> = [];
  for (const part of result.content) {
    if (part.type === "text" && part.text) content.push({ type: "text", text: part.text });
    if (part.type === "tool-call" && !part.providerExecuted) {
      content.push({ type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, input: parseInput(part.input) });
    }
  }
  return { content, finishReason: result.finishReason.unified, usage: toUsage(result.usage) };
}

/**
 * The SDK's stream as Rein's: text deltas, one tool-call part per call with
 * its complete JSON input, finish with normalised usage. A failure while
 * reading becomes one `error` part (classified by `classify`) and ends the
 * stream. Reasoning, sources and metadata parts are dropped.
 */
export function toReinStream(source: ReadableStream<LanguageModelV3StreamPart>, classify: (error: unknown) => unknown): ReadableStream<StreamPart> {
  const reader = source.getReader();
  // Tool inputs streamed in pieces, by id, until the provider's tool-call part.
  const inputs = new Map<string, { toolName: string; input: string; ended: boolean }>();

  function convert(part: LanguageModelV3StreamPart): StreamPart[] {
    switch (part.type) {
      case "stream-start":
        return [{ type: "stream-start" }];
      case "text-delta":
        return part.delta ? [{ type: "text-delta", delta: part.delta }] : [];
      case "tool-input-start":
        if (!part.providerExecuted) inputs.set(part.id, { toolName: part.toolName, input: "", ended: false });
        return [];
      case "tool-input-delta": {
        const pending = inputs.get(part.id);
        if (pending) pending.input += part.delta;
        return [];
      }
      case "tool-input-end": {
        const pending = inputs.get(part.id);
        if (pending) pending.ended = true;
        return [];
      }
      case "tool-call":
        if (part.providerExecuted) return [];
        inputs.delete(part.toolCallId);
        return [{ type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, input: part.input || "{}" }];
      case "finish": {
        // A call whose input finished streaming but that the provider never closed with a tool-call part.
        const assembled: StreamPart[] = [...inputs.entries()]
          .filter(([, p]) => p.ended)
          .map(([id, p]) => ({ type: "tool-call", toolCallId: id, toolName: p.toolName, input: p.input || "{}" }));
        inputs.clear();
        return [...assembled, { type: "finish", finishReason: part.finishReason.unified, usage: toUsage(part.usage) }];
      }
      case "error":
        return [{ type: "error", error: classify(part.error) }];
      default:
        return [];
    }
  }

  return new ReadableStream<StreamPart>({
    async pull(controller) {
      for (;;) {
        let next: ReadableStreamReadResult<LanguageModelV3StreamPart>;
        try {
          next = await reader.read();
        } catch (error) {
          controller.enqueue({ type: "error", error: classify(error) });
          controller.close();
          return;
        }
        if (next.done) {
          controller.close();
          return;
        }
        const parts = convert(next.value);
        for (const part of parts) controller.enqueue(part);
        if (parts.some((p) => p.type === "error")) {
          await reader.cancel().catch(() => undefined);
          controller.close();
          return;
        }
        if (parts.length) return;
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
