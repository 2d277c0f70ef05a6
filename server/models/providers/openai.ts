// OpenAI. `createOpenAI(...)(modelId)` in @ai-sdk/openai 4 speaks the
// Responses API (POST /responses); `api: "chat"` selects Chat Completions
// (POST /chat/completions) instead.
import { createOpenAI } from "@ai-sdk/openai";
import { AiSdkLanguageModel } from "./ai-sdk/model";
import { fetchWithTimeout } from "./ai-sdk/fetch";
import { DEFAULT_TIMEOUT_MS, type ListModelsConfig, type ListModelsResult, type ProviderModelConfig } from "./config";
import { listModelIds } from "./list-models";

export const OPENAI_BASE_URL = "https://api.openai.com/v1";

export interface OpenAIModelConfig extends ProviderModelConfig {
  api?: "responses" | "chat";
}

export function createOpenAIModel(config: OpenAIModelConfig): AiSdkLanguageModel {
  const provider = createOpenAI({
    name: config.name,
    // Explicit, so OPENAI_BASE_URL / OPENAI_API_KEY in the environment never override Rein's configuration.
    baseURL: config.baseUrl ?? OPENAI_BASE_URL,
    apiKey: config.apiKey,
    fetch: fetchWithTimeout(config.timeoutMs ?? DEFAULT_TIMEOUT_MS, config.fetch),
  });
  const model = config.api === "chat" ? provider.chat(config.modelId) : provider.responses(config.modelId);
  // The Responses API keeps every response on OpenAI's side unless told not to; Rein sends the whole conversation each turn and needs none kept.
  const providerOptions = config.api === "chat" ? undefined : { openai: { store: false } };
  // @ai-sdk/openai sends a failed tool result as {"error": ...} by itself, on both APIs.
  return new AiSdkLanguageModel({
    provider: config.name,
    family: config.family,
    model,
    apiKey: config.apiKey,
    providerOptions,
    wrapsToolErrors: true,
  });
}

export function listOpenAIModels(config: ListModelsConfig): Promise<ListModelsResult> {
  return listModelIds({ ...config, name: config.name ?? "openai", baseUrl: config.baseUrl ?? OPENAI_BASE_URL }, bearer(config.apiKey));
}

export function bearer(apiKey: string | undefined): Record<string, string> {
  return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
}
