// ModelRouter (I12) interface, modelled on the AI SDK's LanguageModelV2:
// a version literal, doGenerate / doStream, a typed stream-part union and
// usage with cached tokens. Real providers implement the same interface.
import { DomainError } from "@/server/errors";

export type TextPart = { type: "text"; text: string };
export type ToolCallPart = { type: "tool-call"; toolCallId: string; toolName: string; input: unknown };
export type ToolResultPart = {
  type: "tool-result";
  toolCallId: string;
  toolName: string;
  output: unknown;
  isError?: boolean;
};

export type Message =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: Array<TextPart | ToolCallPart> }
  | { role: "tool"; content: ToolResultPart[] };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the tool's arguments. */
  inputSchema: Record<string, unknown>;
}

export interface CallOptions {
  prompt: Message[];
  tools?: ToolSpec[];
  toolChoice?: "auto" | "none" | "required";
  maxOutputTokens?: number;
  temperature?: number;
  abortSignal?: AbortSignal;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens read from the provider's prompt cache (included in inputTokens). */
  cachedInputTokens: number;
  /** Input tokens written to the provider's prompt cache (included in inputTokens). */
  cacheWriteInputTokens: number;
  totalTokens: number;
}

export type FinishReason = "stop" | "tool-calls" | "length" | "content-filter" | "error" | "other";

export interface GenerateResult {
  content: Array<TextPart | ToolCallPart>;
  finishReason: FinishReason;
  usage: Usage;
  /** Set when the model itself asks to stop the run (e.g. a scenario with stopOnError). */
  stopReason?: string;
}

export type StreamPart =
  | { type: "stream-start" }
  | { type: "text-delta"; delta: string }
  | { type: "tool-call"; toolCallId: string; toolName: string; input: string }
  | { type: "finish"; finishReason: FinishReason; usage: Usage; stopReason?: string }
  | { type: "error"; error: unknown };

export interface LanguageModel {
  readonly specificationVersion: "rein-v1";
  /** Provider name as configured, e.g. "scripted", "openai". */
  readonly provider: string;
  readonly modelId: string;
  /** Model family, used by the judge cross-family rule. */
  readonly family: string;
  doGenerate(options: CallOptions): Promise<GenerateResult>;
  doStream(options: CallOptions): Promise<{ stream: ReadableStream<StreamPart> }>;
}

export type TaskClass = "plan" | "code" | "classify" | "summarize" | "judge";

export interface ModelRequest {
  /** The model named by the run or the agent spec, e.g. "scripted/demo-coder". */
  model: string;
  taskClass: TaskClass;
  /** A scenario given with the run; it makes the scripted model play it. */
  scenario?: Scenario | null;
  /** The run's team: its sensitivity pool limits the models. */
  teamId?: string | null;
  /** The task's complexity, 0..1 (routing puts strong enough models first). */
  complexity?: number | null;
  /** The agent has tools, so the model must support tool calls. */
  needsTools?: boolean;
  /** For a judge: the family of the model of the agent it judges. */
  judgeOfFamily?: string | null;
}

export interface ResolvedModel {
  model: LanguageModel;
  /** What the UI shows, e.g. "scripted · demo-coder". */
  label: string;
  scripted: boolean;
  /** "<provider>/<model id>" of a configured model. */
  ref?: string;
  /** Why this model: the routing decision, recorded on the call's span. */
  routing?: import("./catalog/routing").RoutingDecision;
  /** Where the call goes next when this one fails with a retryable error, in order. */
  fallbacks?: ResolvedModel[];
  /** Tokens the model reads at most (prompt and tools); a run's sessions are budgeted from it. Unknown: no budget. */
  contextWindow?: number;
  /** Where its provider answers (a configured provider's base URL), for a failure's words. */
  baseUrl?: string;
}

export interface ModelRouter {
  resolve(request: ModelRequest): ResolvedModel;
  /** The models a spec or run may name ("scripted/<scenario>", "<provider>/<model id>"), for forms and checks. */
  knownModels?(): string[];
  /** The deployment failed; returns how long it rests, or null when failing over would not help. */
  coolDown?(ref: string, err: unknown): number | null;
  /** The deployment answered: it is healthy again. */
  answered?(ref: string): void;
  /** The family of a model a run may name ("scripted" for scripted models), for the judge cross-family rule; null when it is not configured. */
  familyOf?(ref: string): string | null;
}

/** One element per assistant turn (docs/runs.md#scenarios). */
export interface ScenarioTurn {
  /** Text and string arguments may name a value an earlier call returned: `{{result:<tool>.<path>}}` (the tool's latest result). */
  text?: string;
  toolCalls?: Array<{ tool: string; args: Record<string, unknown> }>;
  /** A failure of this turn's calls is expected (the scenario shows an agent struggling): stopOnError does not stop there. */
  mayFail?: boolean;
}

/** Turns played instead of the scenario's own when every one of `tools` is offered to the model. */
export interface ScenarioVariant {
  tools: string[];
  turns: ScenarioTurn[];
}

export interface Scenario {
  turns: ScenarioTurn[];
  stopOnError?: boolean;
  /** The first variant whose tools are all offered at the run's first turn is played instead of `turns`. */
  variants?: ScenarioVariant[];
  /**
   * Turns played after a person's message (the message box on a run's page);
   * then the script goes on where it was. A last reply with text only is
   * said together with the script's next turn, so the run does not end there.
   * Without it, the scripted model says it read the message and cannot act on it.
   */
  onMessage?: ScenarioTurn[];
  /**
   * The scripted model's context window in tokens: a longer prompt is refused
   * as a provider would refuse it, and a run's sessions are budgeted from it.
   */
  contextWindow?: number;
}

export class UnknownModelError extends DomainError {
  constructor(model: string, known: string[], reason?: string) {
    super(
      "UNKNOWN_MODEL",
      reason ? `${reason}. Available: ${known.join(", ")}` : `Unknown model "${model}". Available: ${known.join(", ")}`,
    );
    this.name = "UnknownModelError";
  }
}

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0, totalTokens: 0 };
}
