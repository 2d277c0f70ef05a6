// Rein's prompt, tools and results <-> the AI SDK's LanguageModelV4 shapes.
import type {
  JSONSchema7,
  JSONValue,
  LanguageModelV4CallOptions,
  LanguageModelV4FinishReason,
  LanguageModelV4FunctionTool,
  LanguageModelV4GenerateResult,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4TextPart,
  LanguageModelV4ToolCallPart,
  LanguageModelV4ToolResultOutput,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import type {
  CallOptions,
  FinishReason,
  GenerateResult,
  Message,
  StreamPart,
  TextPart,
  ToolCallPart,
  ToolResultPart,
  ToolSpec,
  Usage,
} from "../../types";
import { StreamInterrupted } from "./errors";

/** What one provider package does with what Rein sends it. */
export interface ConvertOptions {
  /**
   * The package sends a failed tool result as `{"error": <value>}` by itself
   * (@ai-sdk/openai does: OpenAI's tool outputs have no error flag). Rein's
   * own `{ error: ... }` result is then passed as its inner value, so the
   * model reads the error wrapped once, not `{"error": {"error": ...}}`.
   */
  wrapsToolErrors?: boolean;
}

function jsonValue(value: unknown): JSONValue {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value)) as JSONValue;
}

function isErrorEnvelope(value: unknown): value is { error: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 1 && "error" in value;
}

function toolOutput(part: ToolResultPart, o: ConvertOptions): LanguageModelV4ToolResultOutput {
  if (typeof part.output === "string")
    return part.isError ? { type: "error-text", value: part.output } : { type: "text", value: part.output };
  if (!part.isError) return { type: "json", value: jsonValue(part.output) };
  return { type: "error-json", value: jsonValue(o.wrapsToolErrors && isErrorEnvelope(part.output) ? part.output.error : part.output) };
}

function toMessage(message: Message, o: ConvertOptions): LanguageModelV4Message | null {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user":
      return { role: "user", content: [{ type: "text", text: message.content }] };
    case "assistant": {
      // Providers refuse empty text blocks and empty assistant turns.
      const content: Array<LanguageModelV4TextPart | LanguageModelV4ToolCallPart> = [];
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
        content: message.content.map((p) => ({
          type: "tool-result" as const,
          toolCallId: p.toolCallId,
          toolName: p.toolName,
          output: toolOutput(p, o),
        })),
      };
  }
}

export function toPrompt(prompt: Message[], o: ConvertOptions = {}): LanguageModelV4Prompt {
  return prompt.map((m) => toMessage(m, o)).filter((m): m is LanguageModelV4Message => m !== null);
}

export function toTools(tools: ToolSpec[]): LanguageModelV4FunctionTool[] {
  return tools.map((t) => ({ type: "function", name: t.name, description: t.description, inputSchema: t.inputSchema as JSONSchema7 }));
}

export function toCallOptions(options: CallOptions, o: ConvertOptions = {}): LanguageModelV4CallOptions {
  const tools = options.tools?.length ? toTools(options.tools) : undefined;
  return {
    prompt: toPrompt(options.prompt, o),
    tools,
    toolChoice: tools && options.toolChoice ? { type: options.toolChoice } : undefined,
    maxOutputTokens: options.maxOutputTokens,
    temperature: options.temperature,
    abortSignal: options.abortSignal,
  };
}

/**
 * GenAI semantic conventions: input tokens include cached ones. The SDK's V4
 * usage already counts Anthropic's cache reads and writes into
 * `inputTokens.total`; OpenAI's prompt_tokens include cached_tokens as sent.
 */
export function toUsage(usage: LanguageModelV4Usage): Usage {
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

/**
 * Rein's finish reason. The SDK reports "interrupted" when the provider's
 * stream ended without its closing event (a proxy or server cut it short):
 * the output may be incomplete, so it is a failure, not a finish.
 */
function toFinishReason(reason: LanguageModelV4FinishReason): FinishReason {
  if (reason.unified === "interrupted") throw new StreamInterrupted();
  return reason.unified;
}

export function toGenerateResult(result: Pick<LanguageModelV4GenerateResult, "content" | "finishReason" | "usage">): GenerateResult {
  const content: Array<TextPart | ToolCallPart> = [];
  for (const part of result.content) {
    if (part.type === "text" && part.text) content.push({ type: "text", text: part.text });
    if (part.type === "tool-call" && !part.providerExecuted) {
      content.push({ type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, input: parseInput(part.input) });
    }
  }
  return { content, finishReason: toFinishReason(result.finishReason), usage: toUsage(result.usage) };
}

/**
 * The SDK's stream as Rein's: text deltas, one tool-call part per call with
 * its complete JSON input, finish with normalised usage. A failure while
 * reading, an error the provider reports, or a stream the provider left
 * unfinished becomes one `error` part (classified by `classify`) and ends the
 * stream. Reasoning, sources, files and metadata parts are dropped.
 */
export function toReinStream(
  source: ReadableStream<LanguageModelV4StreamPart>,
  classify: (error: unknown) => unknown,
): ReadableStream<StreamPart> {
  const reader = source.getReader();
  // Tool inputs streamed in pieces, by id, until the provider's tool-call part.
  const inputs = new Map<string, { toolName: string; input: string; ended: boolean }>();

  function convert(part: LanguageModelV4StreamPart): StreamPart[] {
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
        if (part.finishReason.unified === "interrupted") return [{ type: "error", error: classify(new StreamInterrupted()) }];
        // A call whose input finished streaming but that the provider never closed with a tool-call part.
        const assembled: StreamPart[] = [...inputs.entries()]
          .filter(([, p]) => p.ended)
          .map(([id, p]) => ({ type: "tool-call", toolCallId: id, toolName: p.toolName, input: p.input || "{}" }));
        inputs.clear();
        return [...assembled, { type: "finish", finishReason: toFinishReason(part.finishReason), usage: toUsage(part.usage) }];
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
        let next: ReadableStreamReadResult<LanguageModelV4StreamPart>;
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
