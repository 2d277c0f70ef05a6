// A provider as the admin types it in Settings › Models, turned into
// models.createProvider / updateProvider / testProvider input, and what a
// Test's answer means in words. The server checks everything again.
import type { ProviderInput, ProviderKind, ProviderUpdate, ProviderView, TestProviderInput, TestProviderResult } from "@/server/models";

export const PROVIDER_FIELDS = ["name", "kind", "baseUrl", "apiKey"] as const;
export type ProviderField = (typeof PROVIDER_FIELDS)[number];

export interface KindInfo {
  label: string;
  keyRequired: boolean;
  baseUrlRequired: boolean;
  baseUrlPlaceholder: string;
  hint: string;
}

export const PROVIDER_KINDS: Record<ProviderKind, KindInfo> = {
  openai: {
    label: "OpenAI",
    keyRequired: true,
    baseUrlRequired: false,
    baseUrlPlaceholder: "https://api.openai.com/v1 (default)",
    hint: "Needs an API key. Leave the base URL empty for api.openai.com.",
  },
  anthropic: {
    label: "Anthropic",
    keyRequired: true,
    baseUrlRequired: false,
    baseUrlPlaceholder: "https://api.anthropic.com/v1 (default)",
    hint: "Needs an API key. Leave the base URL empty for api.anthropic.com.",
  },
  "openai-compatible": {
    label: "OpenAI-compatible (Ollama, vLLM, llama.cpp, OpenRouter, LiteLLM)",
    keyRequired: false,
    baseUrlRequired: true,
    baseUrlPlaceholder: "http://localhost:11434/v1",
    hint: "Needs the base URL of the server's /v1 API, e.g. http://localhost:11434/v1 for Ollama. The key is optional: local servers often need none.",
  },
};

export const KIND_ORDER: ProviderKind[] = ["openai", "anthropic", "openai-compatible"];

export interface ProviderDraft {
  name: string;
  kind: ProviderKind;
  baseUrl: string;
  /** A new key; empty keeps the saved one when editing. */
  apiKey: string;
  removeKey: boolean;
  selfHosted: boolean;
  enabled: boolean;
}

export const NEW_PROVIDER: ProviderDraft = {
  name: "",
  kind: "openai-compatible",
  baseUrl: "",
  apiKey: "",
  removeKey: false,
  selfHosted: false,
  enabled: true,
};

/** A saved provider in the form; its key is never in it, only "keep". */
export function providerDraftOf(p: Pick<ProviderView, "name" | "kind" | "baseUrl" | "selfHosted" | "enabled">): ProviderDraft {
  return {
    name: p.name,
    kind: p.kind,
    baseUrl: p.baseUrl ?? "",
    apiKey: "",
    removeKey: false,
    selfHosted: p.selfHosted,
    enabled: p.enabled,
  };
}

export function toCreateInput(d: ProviderDraft): ProviderInput {
  return {
    name: d.name.trim(),
    kind: d.kind,
    baseUrl: d.baseUrl.trim() || undefined,
    apiKey: d.apiKey.trim() || undefined,
    selfHosted: d.selfHosted,
    enabled: d.enabled,
  };
}

/** apiKey: a new value, null to remove it, absent to keep it; an emptied base URL is removed. */
export function toUpdateInput(d: ProviderDraft, saved: Pick<ProviderView, "name" | "baseUrl">): ProviderUpdate {
  const baseUrl = d.baseUrl.trim();
  const key = d.apiKey.trim();
  return {
    name: saved.name,
    ...(baseUrl ? { baseUrl } : saved.baseUrl ? { baseUrl: null } : {}),
    ...(d.removeKey ? { apiKey: null } : key ? { apiKey: key } : {}),
    selfHosted: d.selfHosted,
    enabled: d.enabled,
  };
}

/** Test the form's values; editing without a new key tests with the saved one (`keyOf`). */
export function toTestInput(d: ProviderDraft, savedName: string | null): TestProviderInput {
  const key = d.apiKey.trim();
  return {
    kind: d.kind,
    baseUrl: d.baseUrl.trim() || undefined,
    apiKey: d.removeKey ? undefined : key || undefined,
    ...(savedName && !key && !d.removeKey ? { keyOf: savedName } : {}),
  };
}

/** Whether two drafts would be tested the same way: a Test result stays valid until one of these changes. */
export function sameConnection(a: ProviderDraft, b: ProviderDraft): boolean {
  return a.kind === b.kind && a.baseUrl.trim() === b.baseUrl.trim() && a.apiKey.trim() === b.apiKey.trim() && a.removeKey === b.removeKey;
}

const FAILURE: Record<string, string> = {
  auth: "the key was refused",
  network: "could not connect",
  timeout: "no answer in time",
  rate_limit: "rate limited: the key works, but is over its limit now",
  server: "the provider answered with a server error",
  bad_request: "the request was refused: check the base URL",
};

export interface TestOutcome {
  ok: boolean;
  headline: string;
  detail: string | null;
}

export function testOutcome(r: TestProviderResult): TestOutcome {
  const took = `${r.latencyMs} ms`;
  if (r.ok) {
    const n = r.models.length;
    return {
      ok: true,
      headline: n === 0 ? `Works — the provider lists no models (${took})` : `Works — ${n} ${n === 1 ? "model" : "models"} (${took})`,
      detail: null,
    };
  }
  const e = r.error;
  const what = e ? (FAILURE[e.kind] ?? e.kind) : "failed";
  const status = e?.status ? ` · HTTP ${e.status}` : "";
  return { ok: false, headline: `Failed — ${what}${status} (${took})`, detail: e?.message ?? null };
}
