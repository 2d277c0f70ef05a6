// Self-improvement settings (Settings → Improvements): whether friction starts
// hack cycles by itself, how many a day, the time box, and which sandbox
// capabilities runtime tools may be granted (none by default), and whether an
// extension waits for an admin's approval before it is installed.
import { z } from "zod";
import type { Db } from "@/server/db";
import { saveAuditedSetting } from "@/server/audit";
import { RUNTIME_CAPABILITIES } from "./sandbox";
import { DEFAULT_TIME_BOX_MS } from "./cycles/states";

export const SETTING_IMPROVE = "improve.settings";

export const ImproveSettings = z
  .object({
    /** Friction that crosses its threshold starts a hack cycle without a person. */
    autoStart: z.boolean(),
    /** Cycles started per agent per day, at most. */
    maxCyclesPerDay: z.number().int().min(0, "maxCyclesPerDay is 0 or more").max(1000, "maxCyclesPerDay is at most 1000"),
    /** Failures of one class before they count as friction. */
    repeatThreshold: z.number().int().min(2, "repeatThreshold is at least 2").max(50, "repeatThreshold is at most 50"),
    timeBoxSec: z.number().int().min(30, "the time box is at least 30 seconds").max(3600, "the time box is at most an hour"),
    /** Capabilities an admin lets runtime tools have; a tool declaring one not listed here does not get it. */
    allowedCapabilities: z.array(z.enum(RUNTIME_CAPABILITIES as unknown as [string, ...string[]])),
    /** An extension whose gate passed waits for an admin other than its proposer before it is installed. */
    extensionsRequireApproval: z.boolean(),
  })
  .strict();
export type ImproveSettings = z.infer<typeof ImproveSettings>;

export const DEFAULT_IMPROVE_SETTINGS: ImproveSettings = {
  autoStart: true,
  maxCyclesPerDay: 20,
  repeatThreshold: 3,
  timeBoxSec: DEFAULT_TIME_BOX_MS / 1000,
  allowedCapabilities: [],
  extensionsRequireApproval: true,
};

export async function improveSettings(db: Db): Promise<ImproveSettings> {
  const row = await db.setting.findUnique({ where: { key: SETTING_IMPROVE }, select: { value: true } });
  if (!row) return DEFAULT_IMPROVE_SETTINGS;
  const parsed = ImproveSettings.partial().safeParse(JSON.parse(row.value));
  return { ...DEFAULT_IMPROVE_SETTINGS, ...(parsed.success ? parsed.data : {}) };
}

export async function saveImproveSettings(db: Db, patch: unknown, actor: { id: string; name: string }): Promise<ImproveSettings> {
  const parsed = ImproveSettings.partial().parse(patch);
  const next = { ...(await improveSettings(db)), ...parsed };
  await saveAuditedSetting(db, SETTING_IMPROVE, next, actor, parsed);
  return next;
}
