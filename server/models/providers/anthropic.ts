// Anthropic Messages API: POST <baseUrl>/messages with x-api-key.
import { createAnthropic } from "@ai-sdk/anthropic";
import { AiSdkLanguageModel } from "./ai-sdk/model";
import { fetchWithTimeout } from "./ai-sdk/fetch";
import { DEFAULT_TIMEOUT_MS, type ListModelsConfig, type ListModelsResult, type ProviderModelConfig } from "./config";
import { listModelIds } from "./list-models";

export const ANTHROPIC_BASE_URL = "https://api.anthropic.com/v1";
export const ANTHROPIC_VERSION = "2023-06-01";

export function createAnthropicModel(config: ProviderModelConfig): AiSdkLanguageModel {
  const provider = createAnthropic({
    name: config.name,
    // Explicit, so ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY in the environment never override Rein's configuration.
    baseURL: config.baseUrl ?? ANTHROPIC_BASE_URL,
    apiKey: config.apiKey,
    fetch: fetchWithTimeout(config.timeoutMs ?? DEFAULT_TIMEOUT_MS, config.fetch),
  });
  return new AiSdkLanguageModel({
    provider: config.name,
    family: config.family,
    model: provider.messages(config.modelId),
    apiKey: config.apiKey,
  });
}

/** GET <baseUrl>/models, following `has_more` pages. */
export function listAnthropicModels(config: ListModelsConfig): Promise<ListModelsResult> {
  const headers: Record<string, string> = {
    "anthropic-version": ANTHROPIC_VERSION,
    ...(config.apiKey ? { "x-api-key": config.apiKey } : {}),
  };
  return listModelIds(
    { ...config, name: config.name ?? "anthropic", baseUrl: config.baseUrl ?? ANTHROPIC_BASE_URL },
    headers,
    (page, url) => {
      if (!page.has_more || !page.last_id) return null;
      const next = new URL(url);
      next.searchParams.set("after_id", page.last_id);
      return next;
    },
  );
}
