// What Settings › Tiers shows and saves: each tier's settings with what it
// offers, whether this server can provide it now and what a stay is expected
// to cost. The tRPC router calls these.
import type { Db } from "@/server/db";
import { estimatedCostUsd } from "./machine";
import { defaultTierSettings, readTierSettings, saveTierSettings, type TierSettingsInput } from "./settings";
import { NOT_BUILT, TIER_IDS, TIER_NAMES, TIER_OFFERS, type TierId, type TierSettings } from "./types";

/** The running server's tiers (the TierController); absent where none run (some tests). */
export interface TierRuntime {
  readonly defaults: TierSettings;
  availability(): Record<TierId, string | null>;
  applyPoolSizes(settings: TierSettings): void;
}

export async function getTierOverview(db: Db, runtime?: TierRuntime) {
  const defaults = runtime?.defaults ?? defaultTierSettings();
  const { settings, saved } = await readTierSettings(db, defaults);
  const availability = runtime?.availability();
  return {
    saved,
    settings,
    defaults,
    tiers: TIER_IDS.map((id) => ({
      id,
      name: TIER_NAMES[id],
      offers: TIER_OFFERS[id],
      /** Not built in this product: shown, never offered. */
      notBuilt: NOT_BUILT[id] ?? null,
      /** Why this server cannot provide the tier now; null when it can (unknown without a runtime). */
      unavailable: availability ? availability[id] : (NOT_BUILT[id] ?? null),
      estimateUsd: estimatedCostUsd(settings[id]),
    })),
  };
}

export type TierOverview = Awaited<ReturnType<typeof getTierOverview>>;

/** Saves (validated, audited) and resizes the warm pools at once. */
export async function updateTierSettings(db: Db, input: TierSettingsInput, actor: { userId: string; name: string }, runtime?: TierRuntime) {
  const settings = await saveTierSettings(db, input, actor, runtime?.defaults ?? defaultTierSettings());
  runtime?.applyPoolSizes(settings);
  return getTierOverview(db, runtime);
}
