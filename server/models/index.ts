// ModelRouter (I12): docs/models.md.
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
export { DefaultModelRouter, AUTO_MODEL, DEFAULT_COOLDOWN_MS, MAX_COOLDOWN_MS, type RouterOptions } from "./router";
export * from "./catalog";
export { countTokens, countPromptTokens } from "./tokens";
export { ScenarioSchema, parseScenario, normalizeScenario, type ScenarioInput } from "./scenario";
export { personMessage, isPersonMessage, sessionSeedHeader, parseSessionSeed } from "./person-message";
export {
  BUILTIN_SCENARIOS,
  GOAL_SCENARIOS,
  DEMO_CSV_GOAL,
  DEMO_FIX_GOAL,
  DEMO_MCP_GOAL,
  DEMO_HOSTED_GOAL,
  DEMO_LONG_GOAL,
  DEMO_BROWSER_GOAL,
  DEMO_DEPLOY_GOAL,
  CSV_TOOL_NAME,
  SALES_CSV,
} from "./providers";
export {
  ProviderError,
  isProviderError,
  isContextLengthError,
  kindOfStatus,
  parseRetryAfter,
  type ProviderErrorKind,
  type ProviderErrorInit,
} from "./errors";
// Provider backends on the AI SDK; the SDKs themselves stay inside ./providers (INV-1).
export {
  createProviderModel,
  listProviderModels,
  createOpenAIModel,
  createAnthropicModel,
  createOpenAICompatibleModel,
  listOpenAIModels,
  listAnthropicModels,
  listOpenAICompatibleModels,
  PROVIDER_KINDS,
  DEFAULT_TIMEOUT_MS,
  OPENAI_BASE_URL,
  ANTHROPIC_BASE_URL,
  type ProviderKind,
  type ProviderModelConfig,
  type AnyProviderModelConfig,
  type OpenAIModelConfig,
  type OpenAICompatibleModelConfig,
  type ListModelsConfig,
  type ListModelsResult,
} from "./providers";
// Fake provider servers (OpenAI, Anthropic wire formats) for tests and e2e.
export {
  startFakeOpenAI,
  startFakeAnthropic,
  type FakeServer,
  type FakeBehaviour,
  type FakeReply,
  type FakeToolCall,
  type FakeUsage,
  type RecordedRequest,
} from "./providers/testing";
