// Tier settings (Settings › Tiers), stored as one JSON value in the Setting
// table, checked with zod, each change audited as tiers.updated.
import { z } from "zod";
import { recordAudit } from "@/server/audit";
import type { Db } from "@/server/db";
import { CONSENT_ROLES, NOT_BUILT, TIER_IDS, type TierId, type TierSetting, type TierSettings } from "./types";

export const SETTING_TIERS = "tiers";
export const MAX_POOL_SIZE = 16;
/** Tiers that keep warm environments (T1 terminal pods, T2 desktops). */
export const POOLED_TIERS: readonly TierId[] = ["T1", "T2"];

/** What the server starts with before an admin saves anything; pool sizes come from the environment. */
export function defaultTierSettings(pools: { terminal?: number; desktop?: number } = {}): TierSettings {
  return {
    T0: { enabled: true, poolSize: 0, idleTimeoutMin: null, costPerHourUsd: 0, threshold: 0, consentRole: null },
    T1: { enabled: true, poolSize: pools.terminal ?? 2, idleTimeoutMin: null, costPerHourUsd: 0.01, threshold: 0.3, consentRole: null },
    // A person who may launch runs says yes before an agent gets a browser.
    T2: { enabled: true, poolSize: pools.desktop ?? 1, idleTimeoutMin: 10, costPerHourUsd: 0.05, threshold: 0.55, consentRole: "operator" },
    T3: { enabled: false, poolSize: 0, idleTimeoutMin: 30, costPerHourUsd: 0.5, threshold: 0.7, consentRole: "admin" },
    T4: { enabled: false, poolSize: 0, idleTimeoutMin: 30, costPerHourUsd: 0, threshold: 0.88, consentRole: "admin" },
  };
}

// Messages name no field: the path does ("T2.threshold: is at most 1").
const number = z.number({ error: "must be a number" });
const TierSettingSchema = z.strictObject({
  enabled: z.boolean({ error: "must be true or false" }),
  poolSize: number.int("must be a whole number").min(0, "is at least 0").max(MAX_POOL_SIZE, `is at most ${MAX_POOL_SIZE}`),
  idleTimeoutMin: number
    .int("must be whole minutes")
    .min(1, "is at least 1 minute")
    .max(7 * 24 * 60, "is at most a week (10080 minutes)")
    .nullable(),
  costPerHourUsd: number.min(0, "cannot be negative").max(1000, "is at most 1000 USD an hour"),
  threshold: number.min(0, "is at least 0").max(1, "is at most 1"),
  consentRole: z.enum(CONSENT_ROLES, { error: `must be one of ${CONSENT_ROLES.join(", ")}, or null for no consent` }).nullable(),
});

export const TierSettingsInput = z
  .strictObject(Object.fromEntries(TIER_IDS.map((t) => [t, TierSettingSchema])) as Record<TierId, typeof TierSettingSchema>)
  .superRefine((s, ctx) => {
    for (const tier of TIER_IDS) {
      if (NOT_BUILT[tier] && s[tier].enabled)
        ctx.addIssue({ code: "custom", path: [tier, "enabled"], message: `cannot be on: ${NOT_BUILT[tier]}` });
      if (!POOLED_TIERS.includes(tier) && s[tier].poolSize !== 0)
        ctx.addIssue({ code: "custom", path: [tier, "poolSize"], message: `is 0: ${tier} keeps no warm environments` });
    }
    if (!s.T0.enabled) ctx.addIssue({ code: "custom", path: ["T0", "enabled"], message: "cannot be off: every run can fall back to T0" });
  });

export type TierSettingsInput = z.input<typeof TierSettingsInput>;

/** The settings in force: the saved ones, each tier's missing or broken part taken from the defaults. */
export async function readTierSettings(
  db: Pick<Db, "setting">,
  defaults: TierSettings = defaultTierSettings(),
): Promise<{ settings: TierSettings; saved: boolean }> {
  const row = await db.setting.findUnique({ where: { key: SETTING_TIERS }, select: { value: true } });
  if (!row) return { settings: defaults, saved: false };
  let stored: Partial<Record<TierId, Partial<TierSetting>>> = {};
  try {
    stored = JSON.parse(row.value) ?? {};
  } catch {
    return { settings: defaults, saved: false };
  }
  const merged = Object.fromEntries(TIER_IDS.map((t) => [t, { ...defaults[t], ...(typeof stored[t] === "object" ? stored[t] : {}) }]));
  const parsed = TierSettingsInput.safeParse(merged);
  return parsed.success ? { settings: parsed.data as TierSettings, saved: true } : { settings: defaults, saved: false };
}

/** What changed, for the audit row: { "T2.threshold": [0.55, 0.6] }. */
function changes(before: TierSettings, after: TierSettings): Record<string, [unknown, unknown]> {
  const out: Record<string, [unknown, unknown]> = {};
  for (const tier of TIER_IDS) {
    for (const key of Object.keys(after[tier]) as Array<keyof TierSetting>) {
      if (before[tier][key] !== after[tier][key]) out[`${tier}.${key}`] = [before[tier][key], after[tier][key]];
    }
  }
  return out;
}

/** Validates and stores the settings of all tiers; audited with what changed. */
export async function saveTierSettings(
  db: Db,
  input: TierSettingsInput,
  actor: { userId: string; name: string },
  defaults: TierSettings = defaultTierSettings(),
): Promise<TierSettings> {
  const settings = TierSettingsInput.parse(input) as TierSettings;
  await db.$transaction(async (tx) => {
    const { settings: before } = await readTierSettings(tx, defaults);
    const data = { value: JSON.stringify(settings), updatedById: actor.userId };
    await tx.setting.upsert({ where: { key: SETTING_TIERS }, create: { key: SETTING_TIERS, ...data }, update: data });
    await recordAudit(tx, {
      kind: "tiers.updated",
      actorId: actor.userId,
      actorName: actor.name,
      channel: "admin",
      subject: "compute tiers",
      detail: { changes: changes(before, settings) },
    });
  });
  return settings;
}
