// What a provider backend is built from. Secrets arrive here already
// decrypted (server/secrets) and are never logged or echoed in errors.
import type { ProviderError } from "../errors";

export type ProviderKind = "openai" | "anthropic" | "openai-compatible";

export const DEFAULT_TIMEOUT_MS = 120_000;

export interface ProviderModelConfig {
  /** The provider's name as configured; it labels models and errors. */
  name: string;
  /** The API root including its version path, e.g. https://api.openai.com/v1. */
  baseUrl?: string;
  apiKey: string;
  modelId: string;
  /** The model family, for the judge cross-family rule (e.g. "gpt", "claude"). */
  family: string;
  /** For tests and proxies. */
  fetch?: typeof globalThis.fetch;
  /** Give up when the connection is silent this long (no headers, or no bytes between chunks). */
  timeoutMs?: number;
}

export interface ListModelsConfig {
  name?: string;
  baseUrl?: string;
  apiKey?: string;
  fetch?: typeof globalThis.fetch;
  timeoutMs?: number;
}

export type ListModelsResult = { ok: true; models: string[] } | { ok: false; error: ProviderError };
