// A model as the admin types it in Settings › Models, turned into
// models.save's input. Only what cannot be sent is checked here (text where a
// number belongs, half a price); ranges and names are the server's to refuse,
// and its messages show under the same fields.
import type { ModelView } from "@/server/models";

export const MODEL_FIELDS = [
  "provider",
  "modelId",
  "family",
  "contextWindow",
  "maxOutputTokens",
  "strength",
  "inputPerMTok",
  "outputPerMTok",
  "cacheReadPerMTok",
  "cacheWritePerMTok",
] as const;
export type ModelField = (typeof MODEL_FIELDS)[number];

export const PRICE_KEYS = ["inputPerMTok", "outputPerMTok", "cacheReadPerMTok", "cacheWritePerMTok"] as const;
type PriceKey = (typeof PRICE_KEYS)[number];

/** The server names price issues "prices.<field>". */
export const MODEL_FIELD_ALIAS: Record<string, ModelField> = Object.fromEntries(PRICE_KEYS.map((k) => [`prices.${k}`, k]));

export interface ModelDraft {
  provider: string;
  modelId: string;
  family: string;
  contextWindow: string;
  maxOutputTokens: string;
  strength: string;
  inputPerMTok: string;
  outputPerMTok: string;
  cacheReadPerMTok: string;
  cacheWritePerMTok: string;
  tools: boolean;
  vision: boolean;
  streaming: boolean;
  enabled: boolean;
}

type Prices = Record<PriceKey, number>;
export type ModelWithPrices = ModelView & { prices: Prices | null };

export const NEW_MODEL: ModelDraft = {
  provider: "",
  modelId: "",
  family: "",
  contextWindow: "128000",
  maxOutputTokens: "",
  strength: "0.5",
  inputPerMTok: "",
  outputPerMTok: "",
  cacheReadPerMTok: "",
  cacheWritePerMTok: "",
  tools: true,
  vision: false,
  streaming: true,
  enabled: true,
};

const KNOWN_FAMILIES = /(gpt|claude|llama|mistral|mixtral|codestral|qwen|gemma|gemini|phi|deepseek|command|granite|falcon)/;

/** A family for a model id from a provider's list: "gpt-4.1-mini" → gpt, "meta-llama/Llama-3.1-8B" → llama, "chatgpt-4o" → gpt. The admin can change it. */
export function guessFamily(modelId: string): string {
  const id = modelId.toLowerCase().replace(/^.*\//, "");
  const known = KNOWN_FAMILIES.exec(id)?.[1];
  if (known) return known;
  if (/^o\d/.test(id)) return "gpt";
  return /^[a-z0-9]+/.exec(id)?.[0] ?? "";
}

/** The form for a model picked from a provider's Test list. */
export function prefillModel(provider: string, modelId: string): ModelDraft {
  return { ...NEW_MODEL, provider, modelId, family: guessFamily(modelId) };
}

export function modelDraftOf(m: ModelWithPrices): ModelDraft {
  const price = (k: PriceKey) => (m.prices ? String(m.prices[k]) : "");
  return {
    provider: m.provider,
    modelId: m.modelId,
    family: m.family,
    contextWindow: String(m.contextWindow),
    maxOutputTokens: m.maxOutputTokens === null ? "" : String(m.maxOutputTokens),
    strength: String(m.strength),
    inputPerMTok: price("inputPerMTok"),
    outputPerMTok: price("outputPerMTok"),
    cacheReadPerMTok: price("cacheReadPerMTok"),
    cacheWritePerMTok: price("cacheWritePerMTok"),
    tools: m.tools,
    vision: m.vision,
    streaming: m.streaming,
    enabled: m.enabled,
  };
}

const NUMBER_RE = /^-?(\d+(\.\d*)?|\.\d+)$/;

export type ModelParse =
  | { ok: true; input: ReturnType<typeof build> }
  | { ok: false; errors: Partial<Record<ModelField, string>> };

function build(d: ModelDraft, num: (f: ModelField) => number | undefined) {
  const anyPrice = PRICE_KEYS.some((k) => d[k].trim());
  return {
    provider: d.provider.trim(),
    modelId: d.modelId.trim(),
    family: d.family.trim(),
    contextWindow: num("contextWindow"),
    maxOutputTokens: num("maxOutputTokens") ?? null,
    strength: num("strength"),
    tools: d.tools,
    vision: d.vision,
    streaming: d.streaming,
    enabled: d.enabled,
    ...(anyPrice
      ? { prices: { inputPerMTok: num("inputPerMTok")!, outputPerMTok: num("outputPerMTok")!, cacheReadPerMTok: num("cacheReadPerMTok") ?? 0, cacheWritePerMTok: num("cacheWritePerMTok") ?? 0 } }
      : {}),
  };
}

/** models.save's input, or what stops it from being sent. Blank numbers take the server's defaults. */
export function toModelInput(d: ModelDraft): ModelParse {
  const errors: Partial<Record<ModelField, string>> = {};
  const values: Partial<Record<ModelField, number>> = {};
  for (const f of ["contextWindow", "maxOutputTokens", "strength", ...PRICE_KEYS] as const) {
    const text = d[f].trim().replace(/[,_]/g, "");
    if (!text) continue;
    if (NUMBER_RE.test(text)) values[f] = Number(text);
    else errors[f] = f === "strength" ? "must be a number from 0 to 1, e.g. 0.7" : "must be a number";
  }
  if (PRICE_KEYS.some((k) => d[k].trim())) {
    for (const k of ["inputPerMTok", "outputPerMTok"] as const) if (!d[k].trim()) errors[k] ??= "is required when the model has prices";
  }
  if (Object.keys(errors).length) return { ok: false, errors };
  return { ok: true, input: build(d, (f) => values[f]) };
}
