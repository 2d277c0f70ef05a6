// How long each kind of data is kept (Settings › Data; docs/operations.md#retention).
// One setting row holds every kind; a kind set to null is kept forever.
import { z } from "zod";
import { saveAuditedSetting } from "@/server/audit";
import type { Db } from "@/server/db";
import { RUN_PARTS } from "@/server/kernel";

/** Data that is not a run's: dropped by age. */
export const OTHER_KINDS = ["deliveries", "audit"] as const;
export const RETENTION_KINDS = [...RUN_PARTS, ...OTHER_KINDS] as const;
export type RetentionKind = (typeof RETENTION_KINDS)[number];

const Days = z
  .number()
  .int("a whole number of days")
  .min(1, "at least 1 day")
  .max(36500, "at most 36500 days")
  .nullable()
  .describe("Days kept after the run ended (or the row was written); null keeps it forever");

export const RetentionSettings = z.strictObject(
  Object.fromEntries(RETENTION_KINDS.map((k) => [k, Days])) as Record<RetentionKind, typeof Days>,
);
export type RetentionSettings = z.infer<typeof RetentionSettings>;
export const RetentionChange = RetentionSettings.partial();
export type RetentionChange = z.input<typeof RetentionChange>;

/**
 * A year of use stays healthy with these: the heavy parts (files, snapshots,
 * replay state) go first, the timeline and trace later, the audit log last.
 */
export const DEFAULT_RETENTION: RetentionSettings = {
  events: 180,
  terminal: 30,
  checkpoints: 30,
  snapshots: 14,
  workspaces: 14,
  spanDetail: 30,
  spans: 180,
  deliveries: 30,
  audit: 730,
};

export const SETTING_RETENTION = "data.retention";
/** Where span-detail retention was kept before every kind had one; read when the new setting does not say. */
const LEGACY_SPAN_DETAIL = "telemetry.detailRetentionDays";

export async function retentionSettings(db: Db): Promise<RetentionSettings> {
  const rows = await db.setting.findMany({ where: { key: { in: [SETTING_RETENTION, LEGACY_SPAN_DETAIL] } } });
  const saved = rows.find((r) => r.key === SETTING_RETENTION);
  const legacy = rows.find((r) => r.key === LEGACY_SPAN_DETAIL);
  const out: RetentionSettings = { ...DEFAULT_RETENTION };
  if (legacy) {
    const days = Number(JSON.parse(legacy.value));
    if (Number.isInteger(days) && days >= 1) out.spanDetail = days;
  }
  if (saved) {
    // A value a later version wrote and this one does not know is skipped, not fatal.
    const parsed = RetentionChange.safeParse(JSON.parse(saved.value));
    if (parsed.success) Object.assign(out, parsed.data);
  }
  return out;
}

export async function saveRetentionSettings(
  db: Db,
  change: RetentionChange,
  actor: { id: string; name: string },
): Promise<RetentionSettings> {
  const parsed = RetentionChange.parse(change);
  const next = { ...(await retentionSettings(db)), ...parsed };
  await saveAuditedSetting(db, SETTING_RETENTION, next, actor, { changed: parsed });
  return next;
}

/** The cut-off for a kind: data older than this goes; null when the kind is kept forever. */
export function cutoffOf(settings: RetentionSettings, kind: RetentionKind, now: Date): Date | null {
  const days = settings[kind];
  return days === null ? null : new Date(now.getTime() - days * 86_400_000);
}
