// CostAttributor (I11): the cost of a model call from its usage and the price
// table. Cached input tokens are priced as cache reads, cache writes as cache
// writes, the rest of the input at the input price.
import type { ModelPrice, TokenUsage } from "./types";

export const FREE: ModelPrice = { inputPerMTok: 0, outputPerMTok: 0, cacheReadPerMTok: 0, cacheWritePerMTok: 0 };

/** USD, rounded to a millionth of a cent so sums stay exact enough to agree to the cent. */
export function costOf(usage: TokenUsage, price: ModelPrice): number {
  const cacheRead = Math.max(0, usage.cachedInputTokens);
  const cacheWrite = Math.max(0, usage.cacheWriteInputTokens ?? 0);
  const plainInput = Math.max(0, usage.inputTokens - cacheRead - cacheWrite);
  const usd =
    (plainInput * price.inputPerMTok +
      cacheRead * price.cacheReadPerMTok +
      cacheWrite * price.cacheWritePerMTok +
      Math.max(0, usage.outputTokens) * price.outputPerMTok) /
    1_000_000;
  return Math.round(usd * 1e8) / 1e8;
}

/** Prices by "<provider>/<model id>"; the scripted model is free unless priced; unknown models cost 0 and say so. */
export class PriceBook {
  constructor(private readonly prices: Map<string, ModelPrice> = new Map()) {}

  set(model: string, price: ModelPrice) {
    this.prices.set(model, price);
  }

  /** The whole table at once: a model whose price was deleted is unpriced again. */
  replace(entries: Iterable<[string, ModelPrice]>) {
    this.prices.clear();
    for (const [model, price] of entries) this.prices.set(model, price);
  }

  lookup(model: string): { price: ModelPrice; known: boolean } {
    const price = this.prices.get(model);
    if (price) return { price, known: true };
    return { price: FREE, known: model.startsWith("scripted/") };
  }
}
