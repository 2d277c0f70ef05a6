// A row of Settings › Prices as the admin types it: text fields checked as
// they are filled in, turned into prices.set's input. The server checks again
// (server/telemetry/prices.ts) and its messages are shown the same way.

export const PRICE_FIELDS = [
  { key: "inputPerMTok", label: "Input", required: true },
  { key: "outputPerMTok", label: "Output", required: true },
  { key: "cacheReadPerMTok", label: "Cache read", required: false },
  { key: "cacheWritePerMTok", label: "Cache write", required: false },
] as const;

export type PriceField = (typeof PRICE_FIELDS)[number]["key"];
export type DraftField = "model" | PriceField;

export type PriceDraft = Record<DraftField, string>;
export type DraftErrors = Partial<Record<DraftField, string>>;

export interface PriceValues {
  model: string;
  inputPerMTok: number;
  outputPerMTok: number;
  cacheReadPerMTok: number;
  cacheWritePerMTok: number;
}

export const EMPTY_DRAFT: PriceDraft = { model: "", inputPerMTok: "", outputPerMTok: "", cacheReadPerMTok: "", cacheWritePerMTok: "" };

/** The server's limit (MAX_PRICE_PER_MTOK); repeated so the browser bundle stays free of server code. */
export const MAX_PRICE_PER_MTOK = 100_000;

const MODEL_RE = /^[a-z0-9][a-z0-9._-]*\/\S+$/;
const NUMBER_RE = /^\d+(\.\d+)?$|^\.\d+$/;

export function draftOf(p: PriceValues): PriceDraft {
  return {
    model: p.model,
    inputPerMTok: String(p.inputPerMTok),
    outputPerMTok: String(p.outputPerMTok),
    cacheReadPerMTok: String(p.cacheReadPerMTok),
    cacheWritePerMTok: String(p.cacheWritePerMTok),
  };
}

/** What is wrong with each field, if anything; an empty object means it can be saved. */
export function draftErrors(d: PriceDraft): DraftErrors {
  const errors: DraftErrors = {};
  const model = d.model.trim();
  if (!model) errors.model = "is required";
  else if (model.length > 200) errors.model = "must be at most 200 characters";
  else if (!MODEL_RE.test(model)) errors.model = 'must be "<provider>/<model id>", e.g. openai/gpt-4.1';
  for (const f of PRICE_FIELDS) {
    const text = d[f.key].trim();
    if (!text) {
      if (f.required) errors[f.key] = "is required";
      continue;
    }
    if (text.startsWith("-")) errors[f.key] = "must be 0 or more";
    else if (!NUMBER_RE.test(text)) errors[f.key] = "must be a number, e.g. 2.5";
    else if (Number(text) > MAX_PRICE_PER_MTOK)
      errors[f.key] = `must be at most ${MAX_PRICE_PER_MTOK.toLocaleString("en-US")} USD per million tokens`;
  }
  return errors;
}

/** prices.set's input; blank cache prices are 0. Only call when draftErrors is empty. */
export function toPriceInput(d: PriceDraft): PriceValues {
  const num = (s: string) => (s.trim() ? Number(s.trim()) : 0);
  return {
    model: d.model.trim(),
    inputPerMTok: num(d.inputPerMTok),
    outputPerMTok: num(d.outputPerMTok),
    cacheReadPerMTok: num(d.cacheReadPerMTok),
    cacheWritePerMTok: num(d.cacheWritePerMTok),
  };
}

/** The server's field issues ({ path, message }) as per-field errors; the rest as one message. */
export function serverErrors(
  issues: Array<{ path: string; message: string }> | undefined,
  fallback: string,
): { fields: DraftErrors; other: string | null } {
  const fields: DraftErrors = {};
  const other: string[] = [];
  for (const i of issues ?? []) {
    if ((["model", ...PRICE_FIELDS.map((f) => f.key)] as string[]).includes(i.path)) fields[i.path as DraftField] ??= i.message;
    else other.push(i.path ? `${i.path}: ${i.message}` : i.message);
  }
  if (!issues?.length) return { fields, other: fallback };
  return { fields, other: other.length ? other.join("; ") : null };
}

export function isDirty(d: PriceDraft, saved: PriceValues): boolean {
  const s = draftOf(saved);
  return (Object.keys(d) as DraftField[]).some((k) => d[k].trim() !== s[k]);
}
