// A model as the admin types it in Settings › Models, turned into
// models.save's input. Every field is checked here at once, by the server's
// own rules (server/models/catalog/store.ts, server/telemetry/prices.ts), so
// all that is wrong shows together; the server checks again and its messages
// show under the same fields.
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

export type ModelParse = { ok: true; input: ReturnType<typeof build> } | { ok: false; errors: Partial<Record<ModelField, string>> };

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
      ? {
          prices: {
            inputPerMTok: num("inputPerMTok")!,
            outputPerMTok: num("outputPerMTok")!,
            cacheReadPerMTok: num("cacheReadPerMTok") ?? 0,
            cacheWritePerMTok: num("cacheWritePerMTok") ?? 0,
          },
        }
      : {}),
  };
}

/** The server's limits, repeated so the browser bundle stays free of server code. */
export const MODEL_LIMITS = {
  contextWindow: { min: 1024, max: 10_000_000 },
  maxOutputTokens: { min: 1, max: 1_000_000 },
  pricePerMTok: { max: 100_000 },
} as const;

const FAMILY_RE = /^[a-z0-9][a-z0-9._-]*$/i;
const WHOLE_RE = /^\d+$/;
const fmt = (n: number) => n.toLocaleString("en-US");

/** What is wrong with a typed number, or null; `value` is what it means when nothing is. */
function numberProblem(f: ModelField, n: number): string | null {
  if (f === "contextWindow" || f === "maxOutputTokens") {
    const { min, max } = MODEL_LIMITS[f];
    if (!Number.isInteger(n)) return "must be a whole number of tokens";
    if (n < min || n > max) return `must be from ${fmt(min)} to ${fmt(max)} tokens`;
    return null;
  }
  if (f === "strength") return n < 0 || n > 1 ? "must be a number from 0 to 1, e.g. 0.7" : null;
  if (n < 0) return "must be 0 or more";
  if (n > MODEL_LIMITS.pricePerMTok.max) return `must be at most ${fmt(MODEL_LIMITS.pricePerMTok.max)} USD per million tokens`;
  return null;
}

function textErrors(d: ModelDraft, errors: Partial<Record<ModelField, string>>) {
  if (!d.provider.trim()) errors.provider = "Choose a provider (add one under Providers first)";
  const modelId = d.modelId.trim();
  if (!modelId) errors.modelId = "is required, e.g. gpt-4.1-mini";
  else if (/\s/.test(modelId)) errors.modelId = "must have no spaces";
  else if (modelId.length > 200) errors.modelId = "must be at most 200 characters";
  const family = d.family.trim();
  if (!family) errors.family = "is required (e.g. gpt, claude, llama)";
  else if (family.length > 60 || !FAMILY_RE.test(family)) errors.family = "must be letters, digits and . _ - only (at most 60)";
}

/** models.save's input, or every field that stops it from being sent. Blank numbers take the server's defaults. */
export function toModelInput(d: ModelDraft): ModelParse {
  const errors: Partial<Record<ModelField, string>> = {};
  textErrors(d, errors);
  const values: Partial<Record<ModelField, number>> = {};
  for (const f of ["contextWindow", "maxOutputTokens", "strength", ...PRICE_KEYS] as const) {
    const text = d[f].trim().replace(/[,_]/g, "");
    if (!text) continue;
    const whole = f === "contextWindow" || f === "maxOutputTokens";
    if (!NUMBER_RE.test(text))
      errors[f] =
        f === "strength"
          ? "must be a number from 0 to 1, e.g. 0.7"
          : whole
            ? "must be a whole number of tokens"
            : "must be a number, e.g. 2.5";
    else if (whole && !WHOLE_RE.test(text.replace(/^-/, ""))) errors[f] = "must be a whole number of tokens";
    else {
      const problem = numberProblem(f, Number(text));
      if (problem) errors[f] = problem;
      else values[f] = Number(text);
    }
  }
  if (PRICE_KEYS.some((k) => d[k].trim())) {
    for (const k of ["inputPerMTok", "outputPerMTok"] as const) if (!d[k].trim()) errors[k] ??= "is required when the model has prices";
  }
  if (Object.keys(errors).length) return { ok: false, errors };
  return { ok: true, input: build(d, (f) => values[f]) };
}
