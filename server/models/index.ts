// ModelRouter (I12), SPEC section 6.
export type {
  LanguageModel,
  CallOptions,
  GenerateResult,
  StreamPart,
  Usage,
  Message,
  TextPart,
  ToolCallPart,
  ToolResultPart,
  ToolSpec,
  FinishReason,
  ModelRouter,
  ModelRequest,
  ResolvedModel,
  TaskClass,
  Scenario,
  ScenarioTurn,
} from "./types";
export { UnknownModelError, emptyUsage } from "./types";
export { DefaultModelRouter, type RouterOptions } from "./router";
export { countTokens, countPromptTokens } from "./tokens";
export { ScenarioSchema, parseScenario, normalizeScenario, type ScenarioInput } from "./scenario";
export { BUILTIN_SCENARIOS } from "./providers";
