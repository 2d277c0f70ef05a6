// The built-in `scripted` model: plays a scenario turn by turn, deterministic,
// no key and no network. Its usage is counted with a real tokenizer.
import { countPromptTokens, countTokens } from "../../tokens";
import { MissingResultError, fillTurn, nextTurn } from "./play";
import { goalOf } from "./goal";
import { ProviderError } from "../../errors";
import { parseSessionSeed } from "../../person-message";
import type { CallOptions, GenerateResult, LanguageModel, Scenario, StreamPart, TextPart, ToolCallPart, Usage } from "../../types";

export interface ScriptedModelOptions {
  name: string;
  scenario: Scenario;
  /** A built-in demo's turns for the run's goal (read from the prompt); without it, `scenario` plays. */
  forGoal?: (goal: string) => Scenario;
  /** Pause between streamed words, so a watcher sees text arrive. */
  delayMs?: number;
}

export class ScriptedModel implements LanguageModel {
  readonly specificationVersion = "rein-v1" as const;
  readonly provider = "scripted";
  readonly family = "scripted";
  readonly modelId: string;

  constructor(private readonly options: ScriptedModelOptions) {
    this.modelId = options.name;
  }

  /** The turn to play follows from the assistant turns already in the prompt (play.ts); ids from their number. */
  private plan(options: CallOptions): GenerateResult {
    const { prompt, tools } = options;
    // Unique across sessions too: a fresh session's seed says how many turns came before.
    const seedOf = prompt.map(parseSessionSeed).find(Boolean) ?? null;
    const turnIndex = (seedOf?.turnsBefore ?? 0) + prompt.filter((m) => m.role === "assistant").length;
    // Every tool result since the last assistant turn, not only the last one.
    const lastAssistant = prompt.map((m) => m.role).lastIndexOf("assistant");
    const failed = prompt
      .slice(lastAssistant + 1)
      .flatMap((m) => (m.role === "tool" ? m.content : []))
      .find((p) => p.isError || shellExitCode(p.toolName, p.output) !== 0);
    // A fresh session whose seed says the step before it failed (its result is not in this prompt).
    const seed = lastAssistant < 0 ? seedOf : null;
    const inputTokens = countPromptTokens(prompt, tools);
    // As a provider would: a prompt longer than the window is refused, not read.
    const window = this.options.scenario.contextWindow;
    if (window && inputTokens > window) {
      throw new ProviderError({
        kind: "bad_request",
        status: 400,
        provider: "scripted",
        message: `scripted: the prompt has ${inputTokens} tokens, over this model's context window of ${window} tokens (HTTP 400)`,
      });
    }
    // A demo that reads the run's goal plays the same turns for the same goal, call after call.
    const scenario = this.options.forGoal?.(goalOf(prompt)) ?? this.options.scenario;
    const { turn: planned, previous } = nextTurn(scenario, prompt, tools);
    // A turn that may fail shows an agent struggling; the scenario goes on from it.
    const expected = previous?.mayFail === true;
    if (failed && this.options.scenario.stopOnError && !expected) {
      const exit = shellExitCode(failed.toolName, failed.output);
      const why = failed.isError
        ? (failed.output as { error?: { message?: string } } | null)?.error?.message
        : `it exited with code ${exit}`;
      const text = `Stopping: the tool call ${failed.toolName} failed${why ? ` (${why})` : ""} and the scenario says stopOnError.`;
      return result([{ type: "text", text }], "stop", inputTokens, `tool ${failed.toolName} failed (stopOnError)${why ? `: ${why}` : ""}`);
    }
    if (seed?.lastStepFailed && this.options.scenario.stopOnError && !expected) {
      const text =
        "Stopping: the last step of the session before this one failed (the seed lists the error) and the scenario says stopOnError.";
      return result([{ type: "text", text }], "stop", inputTokens, "the last step before this session failed (stopOnError)");
    }
    if (!planned) return result([], "stop", inputTokens);
    let turn: typeof planned;
    try {
      turn = fillTurn(planned, prompt);
    } catch (err) {
      if (!(err instanceof MissingResultError)) throw err;
      const text = `Stopping: ${err.message}.`;
      return result([{ type: "text", text }], "stop", inputTokens, err.message);
    }
    const content: Array<TextPart | ToolCallPart> = [];
    if (turn.text) content.push({ type: "text", text: turn.text });
    (turn.toolCalls ?? []).forEach((call, i) =>
      content.push({ type: "tool-call", toolCallId: `call_${turnIndex}_${i}`, toolName: call.tool, input: call.args }),
    );
    return result(content, content.some((p) => p.type === "tool-call") ? "tool-calls" : "stop", inputTokens);
  }

  async doGenerate(options: CallOptions): Promise<GenerateResult> {
    options.abortSignal?.throwIfAborted();
    return this.plan(options);
  }

  async doStream(options: CallOptions): Promise<{ stream: ReadableStream<StreamPart> }> {
    const planned = this.plan(options);
    const delayMs = this.options.delayMs ?? 0;
    const signal = options.abortSignal;
    const stream = new ReadableStream<StreamPart>({
      async start(controller) {
        try {
          signal?.throwIfAborted();
          controller.enqueue({ type: "stream-start" });
          for (const part of planned.content) {
            signal?.throwIfAborted();
            if (part.type === "text") {
              for (const word of part.text.match(/\S+\s*|\s+/g) ?? []) {
                signal?.throwIfAborted();
                if (delayMs > 0) await sleep(delayMs, signal);
                controller.enqueue({ type: "text-delta", delta: word });
              }
            } else {
              controller.enqueue({
                type: "tool-call",
                toolCallId: part.toolCallId,
                toolName: part.toolName,
                input: JSON.stringify(part.input),
              });
            }
          }
          signal?.throwIfAborted();
          controller.enqueue({
            type: "finish",
            finishReason: planned.finishReason,
            usage: planned.usage,
            stopReason: planned.stopReason,
          });
          controller.close();
        } catch (error) {
          controller.enqueue({ type: "error", error });
          controller.close();
        }
      },
    });
    return { stream };
  }
}

/**
 * A shell command that ran but exited non-zero failed too: a scenario that
 * stops on errors must not go on to claim, say, that the tests passed.
 */
function shellExitCode(toolName: string, output: unknown): number {
  if (toolName !== "shell" || !output || typeof output !== "object") return 0;
  const code = (output as { exitCode?: unknown }).exitCode;
  return typeof code === "number" ? code : 0;
}

function result(
  content: Array<TextPart | ToolCallPart>,
  finishReason: GenerateResult["finishReason"],
  inputTokens: number,
  stopReason?: string,
): GenerateResult {
  const outputTokens = content.reduce((n, p) => n + countTokens(p.type === "text" ? p.text : `${p.toolName}${JSON.stringify(p.input)}`), 0);
  const usage: Usage = {
    inputTokens,
    outputTokens,
    cachedInputTokens: 0,
    cacheWriteInputTokens: 0,
    totalTokens: inputTokens + outputTokens,
  };
  return { content, finishReason, usage, stopReason };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
