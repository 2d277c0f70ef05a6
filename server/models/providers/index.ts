// Provider backends. INV-1: provider SDKs are imported only under this folder;
// what leaves it is Rein's LanguageModel, configs and factories.
import type { LanguageModel } from "../types";
import type { ListModelsConfig, ListModelsResult, ProviderKind, ProviderModelConfig } from "./config";
import { createAnthropicModel, listAnthropicModels } from "./anthropic";
import { createOpenAIModel, listOpenAIModels, type OpenAIModelConfig } from "./openai";
import { createOpenAICompatibleModel, listOpenAICompatibleModels } from "./openai-compatible";

export {
  ScriptedModel,
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
} from "./scripted";
export { createOpenAIModel, listOpenAIModels, OPENAI_BASE_URL, type OpenAIModelConfig } from "./openai";
export { createAnthropicModel, listAnthropicModels, ANTHROPIC_BASE_URL } from "./anthropic";
export { createOpenAICompatibleModel, listOpenAICompatibleModels, type OpenAICompatibleModelConfig } from "./openai-compatible";
export { DEFAULT_TIMEOUT_MS, type ProviderKind, type ProviderModelConfig, type ListModelsConfig, type ListModelsResult } from "./config";
export type { AiSdkLanguageModel } from "./ai-sdk/model";

export const PROVIDER_KINDS: readonly ProviderKind[] = ["openai", "anthropic", "openai-compatible"];

/** Any kind's configuration: OpenAI and Anthropic need an API key, OpenAI-compatible a base URL. */
export type AnyProviderModelConfig = Omit<OpenAIModelConfig, "apiKey"> & { apiKey?: string };

/** A backend for a configured provider and model. */
export function createProviderModel(kind: ProviderKind, config: AnyProviderModelConfig): LanguageModel {
  const needKey = () => {
    if (!config.apiKey) throw new Error(`The ${kind} provider "${config.name}" needs an API key`);
    return { ...config, apiKey: config.apiKey };
  };
  switch (kind) {
    case "openai":
      return createOpenAIModel(needKey());
    case "anthropic":
      return createAnthropicModel(needKey());
    case "openai-compatible":
      if (!config.baseUrl) throw new Error(`The OpenAI-compatible provider "${config.name}" needs a base URL`);
      return createOpenAICompatibleModel({ ...config, baseUrl: config.baseUrl });
  }
}

/** The model ids a provider offers, for the "Test" button. */
export function listProviderModels(kind: ProviderKind, config: ListModelsConfig): Promise<ListModelsResult> {
  switch (kind) {
    case "openai":
      return listOpenAIModels(config);
    case "anthropic":
      return listAnthropicModels(config);
    case "openai-compatible":
      if (!config.baseUrl) throw new Error(`The OpenAI-compatible provider "${config.name ?? ""}" needs a base URL`);
      return listOpenAICompatibleModels({ ...config, baseUrl: config.baseUrl });
  }
}
