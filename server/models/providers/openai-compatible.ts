// Any endpoint that speaks OpenAI Chat Completions (Ollama, vLLM, llama.cpp
// server, OpenRouter, LiteLLM): POST <baseUrl>/chat/completions, asking for
// usage in the stream (stream_options.include_usage).
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { AiSdkLanguageModel } from "./ai-sdk/model";
import { fetchWithTimeout } from "./ai-sdk/fetch";
import { DEFAULT_TIMEOUT_MS, type ListModelsConfig, type ListModelsResult, type ProviderModelConfig } from "./config";
import { listModelIds } from "./list-models";
import { bearer } from "./openai";

export interface OpenAICompatibleModelConfig extends Omit<ProviderModelConfig, "apiKey" | "baseUrl"> {
  /** e.g. http://127.0.0.1:11434/v1 for Ollama. */
  baseUrl: string;
  /** Local servers often need none. */
  apiKey?: string;
}

export function createOpenAICompatibleModel(config: OpenAICompatibleModelConfig): AiSdkLanguageModel {
  const provider = createOpenAICompatible({
    name: config.name,
    baseURL: config.baseUrl,
    apiKey: config.apiKey || undefined,
    includeUsage: true,
    fetch: fetchWithTimeout(config.timeoutMs ?? DEFAULT_TIMEOUT_MS, config.fetch),
  });
  return new AiSdkLanguageModel({
    provider: config.name,
    family: config.family,
    model: provider.chatModel(config.modelId),
    apiKey: config.apiKey,
  });
}

export function listOpenAICompatibleModels(config: ListModelsConfig & { baseUrl: string }): Promise<ListModelsResult> {
  return listModelIds({ ...config, name: config.name ?? "openai-compatible" }, bearer(config.apiKey));
}
